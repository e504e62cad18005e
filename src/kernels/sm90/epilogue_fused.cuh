// ferrocute sm90 GEMM, part of sm90_gemm.cuh: the fused epilogue in registers on the way to
// the TMA store of D (tma_epilogue_fused: unrolled per 64-column box, SwiGLU by
// tma_epilogue_gated, or a rolled loop over 16-column groups) and when it applies
// (tma_fused_epilogue). Built on epilogue_16bit.cuh's TMA pass and stmatrix stores.
#pragma once

#include <cuda.h>   // CUtensorMap
#include <stdint.h>

#include <cute/tensor.hpp>
#include <cute/arch/copy_sm90_tma.hpp>

#include "../epilogue_ops.cuh"
#include "../gemm_params.h"
#include "epilogue.cuh"

namespace ferrocute {
namespace sm90 {

using namespace cute;

// Values [8q, 8q + 8) of a fragment, for the run-time q < NQ: the 16-column group q % G of
// its 64-row slab q / G (G groups a slab) in epi_frag8's order (value 2*mtx + v0 is
// stmatrix_cols's matrix mtx, half v0). Each branch indexes the fragment statically.
template <int Q, int NQ, class Frag>
__device__ __forceinline__ void frag_group_at(int q, Frag const& acc, float (&x)[8]) {
  if constexpr (Q < NQ) {
    if (q == Q) {
      CUTE_UNROLL
      for (int t = 0; t < 8; ++t) x[t] = acc(8 * Q + t);
    } else {
      frag_group_at<Q + 1, NQ>(q, acc, x);
    }
  }
}

// The fused epilogue's unrolled form, in place on the 64 columns of one TMA box (NG = 4
// groups; a narrow tile's whole slab, NG = BN / 16): the groups [q0, q0 + NG) of a warpgroup's
// fragment, value 8q + t being group q's value t in epi_frag8's order (row 16*warp + lane/4 +
// 8*((t/2)%2) of the slab, column 2*(lane%4) + 8*(t/4) + t%2 of the group). Each pass is
// unrolled over the box, so every value stays a register (a rolled loop over a fragment
// reaches a value through a branch tree), and branches fall between passes, not between values
// (a type switch per group made ptxas spill the fragment). alpha and the bias go over every
// box first, then the activation and the store a box at a time: with a box's bias loads among
// the boxes, ptxas left the activation of the middle boxes one temporary register, which ran
// the ~60 cycles of its dependent operations for one value after another.

// The bias along N, of element type T (0 past N); c0 is the thread's first column of the box.
template <int NG, class T, class Frag>
__device__ __forceinline__ void epi_box_bias_cols(Frag& acc, int q0, const void* v, int c0,
                                                  int nlim) {
  CUTE_UNROLL
  for (int g = 0; g < NG; ++g) {
    float c[4];
    epi_cols4_as<T>(c, v, c0 + 16 * g, nlim);
    CUTE_UNROLL
    for (int t = 0; t < 8; ++t)
      acc(8 * (q0 + g) + t) += c[2 * (t / 4) + t % 2];
  }
}

// alpha and the bias of the box (a bias along M comes as its elements at the thread's rows,
// `rows`): with a bias along M one FFMA a value (as two passes, a multiply and an add, the
// branch between them kept them apart).
template <int NG = 4, class Frag>
__device__ __forceinline__ void epi_box_pre(Frag& acc, int q0, int c0, float2 rows,
                                            EpiArgs const& e) {
  const float a = e.alpha;
  if (e.bias_axis == kAxisM) {
    const float r0 = rows.x, r1 = rows.y;
    CUTE_UNROLL
    for (int i = 0; i < 8 * NG; ++i)
      acc(8 * q0 + i) = fmaf(acc(8 * q0 + i), a, (i / 2) % 2 == 0 ? r0 : r1);
    return;
  }
  CUTE_UNROLL
  for (int i = 0; i < 8 * NG; ++i) acc(8 * q0 + i) *= a;
  if (e.bias_axis == kAxisN) {
    switch (e.bias_type) {
      case kVecBf16: epi_box_bias_cols<NG, __nv_bfloat16>(acc, q0, e.bias, c0, e.n); break;
      case kVecF16: epi_box_bias_cols<NG, __half>(acc, q0, e.bias, c0, e.n); break;
      default: epi_box_bias_cols<NG, float>(acc, q0, e.bias, c0, e.n); break;
    }
  }
}

// The activation of the box (after epi_box_pre), for the epilogues without a scale and other
// than GELU's erf form (those take tma_epilogue_fused's rolled loop).
template <int NG = 4, class Frag>
__device__ __forceinline__ void epi_box_act(Frag& acc, int q0, EpiArgs const& e) {
  if (e.act == kActRelu) {
    CUTE_UNROLL
    for (int i = 0; i < 8 * NG; ++i) acc(8 * q0 + i) = epi_act(acc(8 * q0 + i), kActRelu);
  } else if (e.act == kActGeluTanh) {
    CUTE_UNROLL
    for (int i = 0; i < 8 * NG; ++i) acc(8 * q0 + i) = epi_gelu_tanh(acc(8 * q0 + i));
  } else if (e.act == kActSilu) {
    CUTE_UNROLL
    for (int i = 0; i < 8 * NG; ++i) acc(8 * q0 + i) = epi_silu(acc(8 * q0 + i));
  } else if (e.act == kActGeluTanhFast) {
    CUTE_UNROLL
    for (int i = 0; i < 8 * NG; ++i) acc(8 * q0 + i) = epi_gelu_tanh_fast(acc(8 * q0 + i));
  } else if (e.act == kActSiluFast) {
    CUTE_UNROLL
    for (int i = 0; i < 8 * NG; ++i) acc(8 * q0 + i) = epi_silu_fast(acc(8 * q0 + i));
  }
}

// Brings the bias of the tile at (m0, n0) into L2 before its main loop (one thread): in a
// problem of one round of tiles nothing else hides the first read of the bias from memory,
// which each box of the epilogue would otherwise wait for in turn.
__device__ __forceinline__ void epi_prefetch_bias(EpiArgs const& e, int m0, int n0, int bm,
                                                  int bn) {
  if (e.bias_axis == kAxisNone) return;
  const bool along_m = e.bias_axis == kAxisM;
  const uint64_t size = e.bias_type == kVecF32 ? 4 : 2;
  const uint64_t base = reinterpret_cast<uint64_t>(e.bias);
  const uint64_t lo = base + uint64_t(along_m ? m0 : n0) * size;   // the lines of [lo, hi)
  const uint64_t hi = base + uint64_t(min(along_m ? m0 + bm : n0 + bn, along_m ? e.m : e.n)) * size;
  for (uint64_t a = lo & ~uint64_t(127); a < hi; a += 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
}

// The bias along M at a warpgroup's rows of its Slabs 64-row slabs from m_base (zeros for a
// bias along N or none). The kernels load it before they wait for their last WGMMAs, so that
// its L2 round trip overlaps the main loop's tail instead of opening the epilogue.
template <int Slabs>
struct EpiSlabBias {
  float2 rows[Slabs];
};

template <int Slabs>
__device__ __forceinline__ EpiSlabBias<Slabs> epi_slab_bias(EpiArgs const& e, int m_base,
                                                            int wtid) {
  EpiSlabBias<Slabs> b;
  const int r0 = m_base + 16 * (wtid / 32) + (wtid % 32) / 4;
  CUTE_UNROLL
  for (int s = 0; s < Slabs; ++s)
    b.rows[s] = e.bias_axis == kAxisM ? epi_rows2(e.bias, e.bias_type, r0 + 64 * s, e.m)
                                      : make_float2(0.f, 0.f);
  return b;
}

// Whether a fused epilogue takes the unrolled form (epi_box_pre, epi_box_act).
__device__ __forceinline__ bool epi_unrolled(EpiArgs const& e) {
  return e.scale_axis == kAxisNone && e.act != kActGeluErf;
}

// Whether a narrow tile (a BN of no whole 64-column boxes, general epilogue) applies the
// fused epilogue to its fragment in registers (epi_slab_in_registers) and then stores it as
// the plain path does: the unrolled forms, beta == 0, not gated.
__device__ __forceinline__ bool epi_in_registers(GemmParams const& p) {
  return epi_active(p) && p.gated == 0 && p.beta == 0.0f && epi_unrolled(epi_args(p));
}

// The fused epilogue of a narrow tile's 64-row slab (BN / 16 groups from column n0; `sb`:
// the bias at its rows, epi_slab_bias) in place, as epi_box_pre and epi_box_act do for a
// box. The general epilogue
// applies it per staged item instead, behind a switch on the vector's type and the
// activation for each 8 values; at one tile per SM (the narrow tiles' one wave) nothing
// hid those branches' instruction fetches nor each item's bias load (ncu at 256x4608x3584:
// +16% cycles over the plain GEMM, the stalls on both).
template <int BN, class Frag>
__device__ __forceinline__ void epi_slab_in_registers(Frag& acc, int wtid, int n0,
                                                      EpiSlabBias<1> const& sb,
                                                      EpiArgs const& e) {
  const int lane = wtid % 32;
  epi_box_pre<BN / 16>(acc, 0, n0 + 2 * (lane % 4), sb.rows[0], e);
  epi_box_act<BN / 16>(acc, 0, e);
}

// SwiGLU into the TMA store (gated, no scale): D = silu(gate) * up, gate and up adjacent
// along N (gated == 1: columns 2j, 2j + 1, a thread's value pair) or along M (gated == 2:
// rows 2i, 2i + 1, lanes l and l ^ 4, which swap one value of each pair so that each
// computes one output). A 64 x 64 box of the product is a D box of 64 x 32 (along N,
// 128-byte swizzle) or 32 x 64 (along M, 64-byte swizzle), as the host encodes tma_d for
// gated launches. The outputs go to the staging one 16-bit value at a time: a thread's
// outputs are not the pairs stmatrix takes. The axis and the SiLU's form (Fast:
// epi_silu_fast) are template parameters: a branch on the axis between the unrolled values
// made ptxas spill the fragment.
template <int Slabs, int BN, bool AlongM, bool Fast, class Out, class Frag>
__device__ __forceinline__ void tma_epilogue_gated(Frag& acc, uint8_t* ring, int bar_id,
                                                   int wtid, int m_base, int n_base,
                                                   int first_slab, int skip, int l,
                                                   EpiArgs const& e,
                                                   EpiSlabBias<Slabs> const& sb,
                                                   CUtensorMap const* tma_d, uint32_t& pass) {
  constexpr int G = BN / 16;   // groups a slab
  const int lane = wtid % 32, warp = wtid / 32;
  const bool odd = (lane / 4) % 2 != 0;   // along M: the lane holds its pairs' up rows
  CUTE_UNROLL
  for (int s = 0; s < Slabs; ++s) {
    if (s < first_slab) continue;
    CUTE_UNROLL
    for (int c = 0; c < BN / 64; ++c) {
      if (c < skip) continue;
      const int q0 = G * s + 4 * c;
      epi_box_pre(acc, q0, n_base + 64 * c + 2 * (lane % 4), sb.rows[s], e);
      uint8_t* const buf = ring + (pass++ % kTmaRingBoxes) * kTmaBoxBytes;
      if (wtid == 0) tma_store_wait<kTmaRingBoxes - 1>();
      named_bar_sync(bar_id, 128);   // buf is free
      const uint32_t base = cast_smem_ptr_to_uint(buf);
      CUTE_UNROLL
      for (int g = 0; g < 4; ++g) {
        CUTE_UNROLL
        for (int mtx = 0; mtx < 4; ++mtx) {
          const float v0 = acc(8 * (q0 + g) + 2 * mtx), v1 = acc(8 * (q0 + g) + 2 * mtx + 1);
          const int row = 16 * warp + lane / 4 + 8 * (mtx % 2);      // in the slab
          const int col = 16 * g + 8 * (mtx / 2) + 2 * (lane % 4);   // in the box, even
          float gate = v0, up = v1;
          uint32_t addr;
          if constexpr (AlongM) {
            const float other = __shfl_xor_sync(0xffffffffu, odd ? v0 : v1, 4);
            gate = odd ? other : v0;
            up = odd ? v1 : other;
            // D row row / 2 of 32 (64 bytes a column), column col + odd; 64-byte swizzle
            const int dr = row / 2, dc = col + int(odd);
            addr = base + uint32_t(dc * 64 + ((dr / 8) ^ ((dc / 2) % 4)) * 16 + (dr % 8) * 2);
          } else {
            // D row row of 64 (128 bytes a column), column col / 2; 128-byte swizzle
            const int dc = col / 2;
            addr = base + uint32_t(dc * 128 + ((row / 8) ^ (dc % 8)) * 16 + (row % 8) * 2);
          }
          const float sg = Fast ? epi_silu_fast(gate) : epi_silu(gate);
          const uint16_t y = OutOps<Out>::to(sg * up).raw();
          asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(addr), "h"(y) : "memory");
        }
      }
      tma_store_fence();   // this thread's writes, visible to the TMA (async proxy)
      named_bar_sync(bar_id, 128);
      if (wtid == 0) {
        const int m0 = m_base + 64 * s, n0 = n_base + 64 * c;
        if constexpr (AlongM)
          SM90_TMA_STORE_3D::copy(tma_d, buf, m0 / 2, n0, l);
        else
          SM90_TMA_STORE_3D::copy(tma_d, buf, m0, n0 / 2, l);
        tma_store_arrive();
      }
    }
  }
}

// The TMA epilogue of a warpgroup's Slabs 64-row slabs (its whole accumulator) with the
// fused epilogue applied in registers (beta == 0), 64 columns a box as
// tma_epilogue_pass, D leaving by the plain path's asynchronous TMA stores, which overlap
// the next tile's main loop (`sb`: the bias at the slabs' rows, epi_slab_bias, for the `_epi`
// forms). Slabs before `first_slab` and the first `skip` boxes of each
// slab are left out (a last tile of M or N loaded inside M or N: the tile before's rows or
// columns); `pass` counts the boxes stored. In the `_epi` entry points (Epi), SwiGLU goes by
// tma_epilogue_gated and the epilogues without a scale other than GELU's erf form unrolled
// (epi_box_pre over every box, then epi_box_act and the plain pass's store a box at a
// time). Otherwise slabs, boxes and 16-column groups go in rolled loops, each group copied
// out of the fragment (frag_group_at) into epi_frag8, so that the longest code is in the
// kernel once.
template <int Slabs, int BN, class Out, bool Epi, class Frag>
__device__ __forceinline__ void tma_epilogue_fused(Frag& acc, uint8_t* ring, int bar_id,
                                                   int wtid, int m_base, int n_base,
                                                   int first_slab, int skip, int l,
                                                   EpiArgs const& e,
                                                   EpiSlabBias<Slabs> const& sb,
                                                   CUtensorMap const* tma_d, uint32_t& pass) {
  constexpr int G = BN / 16;   // groups a slab
  if constexpr (Epi) {
    if (e.gated != 0) {
      const bool fast = e.act == kActSiluFast;
      if (e.gated == 2 && fast)
        tma_epilogue_gated<Slabs, BN, true, true, Out>(acc, ring, bar_id, wtid, m_base,
                                                       n_base, first_slab, skip, l, e, sb,
                                                       tma_d, pass);
      else if (e.gated == 2)
        tma_epilogue_gated<Slabs, BN, true, false, Out>(acc, ring, bar_id, wtid, m_base,
                                                        n_base, first_slab, skip, l, e, sb,
                                                        tma_d, pass);
      else if (fast)
        tma_epilogue_gated<Slabs, BN, false, true, Out>(acc, ring, bar_id, wtid, m_base,
                                                        n_base, first_slab, skip, l, e, sb,
                                                        tma_d, pass);
      else
        tma_epilogue_gated<Slabs, BN, false, false, Out>(acc, ring, bar_id, wtid, m_base,
                                                         n_base, first_slab, skip, l, e, sb,
                                                         tma_d, pass);
      return;
    }
    if (epi_unrolled(e)) {
      const int lane = wtid % 32;
      CUTE_UNROLL
      for (int s = 0; s < Slabs; ++s) {
        if (s < first_slab) continue;
        CUTE_UNROLL
        for (int c = 0; c < BN / 64; ++c)
          if (c >= skip)
            epi_box_pre(acc, G * s + 4 * c, n_base + 64 * c + 2 * (lane % 4), sb.rows[s], e);
      }
      CUTE_UNROLL
      for (int s = 0; s < Slabs; ++s) {
        CUTE_UNROLL
        for (int c = 0; c < BN / 64; ++c) {
          if (s < first_slab || c < skip) continue;
          epi_box_act(acc, G * s + 4 * c, e);
          tma_epilogue_pass<64, kTmaRingBoxes - 1, Out>(
              acc, G * s + 4 * c, ring + (pass++ % kTmaRingBoxes) * kTmaBoxBytes, bar_id, wtid,
              m_base + 64 * s, n_base + 64 * c, l, 1.f, tma_d);
        }
      }
      return;
    }
  }
  const int lane = wtid % 32, warp = wtid / 32;
  const int c0 = n_base + 2 * (lane % 4);   // the thread's columns: c0 + 8j + {0, 1}
#pragma unroll 1
  for (int s = first_slab; s < Slabs; ++s) {
    const int m0 = m_base + 64 * s;
    // the vectors along M at the thread's rows of the slab, r0 and r0 + 8
    const EpiRows rows = epi_rows(e, m0 + 16 * warp + lane / 4);
#pragma unroll 1
    for (int c = skip; c < BN / 64; ++c) {
      uint8_t* const buf = ring + (pass++ % kTmaRingBoxes) * kTmaBoxBytes;
      if (wtid == 0) tma_store_wait<kTmaRingBoxes - 1>();
      named_bar_sync(bar_id, 128);   // buf is free
      const uint32_t lane_addr = swizzled_lane_addr(cast_smem_ptr_to_uint(buf), warp, lane);
#pragma unroll 1
      for (int g = 0; g < 4; ++g) {
        float x[8];
        frag_group_at<0, Slabs * G>(G * s + 4 * c + g, acc, x);
        epi_frag8(x, c0 + 64 * c + 16 * g, rows, e);
        uint32_t r[4];
        CUTE_UNROLL
        for (int mtx = 0; mtx < 4; ++mtx) r[mtx] = pack16x2<Out>(x[2 * mtx], x[2 * mtx + 1]);
        stmatrix_x4_trans(lane_addr + uint32_t(g * 16 * 128), r);
      }
      tma_store_fence();   // this thread's writes, visible to the TMA (async proxy)
      named_bar_sync(bar_id, 128);
      if (wtid == 0) {
        SM90_TMA_STORE_3D::copy(tma_d, buf, m0, n_base + 64 * c, l);
        tma_store_arrive();
      }
    }
  }
}

// Whether the fused epilogue goes in registers to the TMA store (tma_epilogue_fused): what
// the TMA epilogue needs, D's contiguous extent (M, or M / 2 when gated along M) a multiple
// of 8; SwiGLU only in the `_epi` entry points (Epi) and without a scale.
template <class Out, bool Epi>
__device__ __forceinline__ bool tma_fused_epilogue(GemmParams const& p, bool d_vec) {
  const bool gated_ok =
      p.gated == 0 ||
      (Epi && p.scale_axis == kAxisNone && p.m % (p.gated == 2 ? 16 : 8) == 0);
  return sizeof(Out) == 2 && p.beta == 0.0f && d_vec && p.m % 8 == 0 && gated_ok &&
         epi_active(p);
}

}  // namespace sm90
}  // namespace ferrocute
