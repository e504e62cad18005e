// ferrocute sm90 GEMM, part of sm90_gemm.cuh: the epilogues of one consumer warpgroup's 64-row
// slab, the general one through f32 staging (epilogue_rows64, store_rows8) and the choice
// between it and the 16-bit ones of epilogue_16bit.cuh (epilogue_slab); the fused epilogue on
// the way to the TMA store is in epilogue_fused.cuh. Separate because they depend only on the
// accumulator fragment, not on how the main loop produced it; sm90_splitk.cuh uses
// store_rows8 and vec_ok.
#pragma once

#include <cuda.h>   // CUtensorMap
#include <stdint.h>

#include <cute/tensor.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cutlass/numeric_types.h>

#include "../epilogue_ops.cuh"
#include "../gemm_params.h"
#include "arch.cuh"
#include "config.cuh"
#include "epilogue_16bit.cuh"

namespace ferrocute {
namespace sm90 {

using namespace cute;

// 8 consecutive values of C from cptr: 16-byte accesses where `vec`, else the first `valid`
// one at a time (the others stay 0).
template <class Out>
__device__ __forceinline__ void load8(float (&c)[8], const Out* cptr, bool vec, int valid) {
  if (vec) {
    alignas(16) Out cv[8];
    CUTE_UNROLL
    for (int q = 0; q < int(sizeof(cv) / 16); ++q)
      reinterpret_cast<uint4*>(cv)[q] = reinterpret_cast<const uint4*>(cptr)[q];
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e) c[e] = OutOps<Out>::from(cv[e]);
  } else {
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e)
      if (e < valid) c[e] = OutOps<Out>::from(cptr[e]);
  }
}

// 8 consecutive values of D to dptr: 16-byte accesses where `vec`, else the first `valid`
// one at a time.
template <class Out>
__device__ __forceinline__ void store8(const float (&v)[8], Out* dptr, bool vec, int valid) {
  if (vec) {
    alignas(16) Out ov[8];
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e) ov[e] = OutOps<Out>::to(v[e]);
    CUTE_UNROLL
    for (int q = 0; q < int(sizeof(ov) / 16); ++q)
      reinterpret_cast<uint4*>(dptr)[q] = reinterpret_cast<const uint4*>(ov)[q];
  } else {
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e)
      if (e < valid) dptr[e] = OutOps<Out>::to(v[e]);
  }
}

// Stores 8 consecutive rows (M, unit stride in D) of column gn: D = alpha*v + beta*C, or
// the fused epilogue (epilogue_ops.cuh) where `epi` is set; 16-byte accesses when the 8 rows
// are inside M and the pointers and strides allow it. Not for a gated epilogue (store_gated8).
// alpha is p.alpha, or 1 where the fused epilogue was applied in registers.
template <class Out>
__device__ __forceinline__ void store_rows8(float (&v)[8], int gm, int gn, int64_t doff,
                                            int64_t coff, GemmParams const& p, bool d_vec,
                                            bool c_vec, bool epi, float alpha) {
  const bool full_vec = (gm + 8 <= p.m);
  float c[8] = {};
  if (p.beta != 0.0f)
    load8<Out>(c, reinterpret_cast<const Out*>(p.c) + coff, full_vec && c_vec, p.m - gm);
  if (epi) {
    epi_rows8(v, c, gm, gn, epi_args(p));
  } else {
    // With beta == 0 C is not added: -0 + 0 would lose a zero's sign.
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e)
      v[e] = p.beta != 0.0f ? alpha * v[e] + p.beta * c[e] : alpha * v[e];
  }
  store8<Out>(v, reinterpret_cast<Out*>(p.d) + doff, full_vec && d_vec, p.m - gm);
}

// store_rows8 for an N-major C and D (GemmParams::d_n_major): the 8 rows of column gn lie
// ldd (ldc) apart, so each is stored alone. For outputs that are a sliver of the bytes the
// kernel reads: split-K's small M, and the narrow tiles' and `_nd` entries' fallbacks
// (beta, or rows not in whole runs of 8).
template <class Out>
__device__ __forceinline__ void store_rows8_n_major(float (&v)[8], int gm, int gn, int64_t l,
                                                    GemmParams const& p, bool epi, float alpha) {
  Out* dptr = reinterpret_cast<Out*>(p.d) + l * p.batch_stride_d + gn;
  const Out* cptr = reinterpret_cast<const Out*>(p.c) + l * p.batch_stride_c + gn;
  float c[8] = {};
  if (p.beta != 0.0f) {
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e)
      if (gm + e < p.m) c[e] = OutOps<Out>::from(cptr[int64_t(gm + e) * p.ldc]);
  }
  if (epi) {
    epi_rows8(v, c, gm, gn, epi_args(p));
  } else {
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e)
      v[e] = p.beta != 0.0f ? alpha * v[e] + p.beta * c[e] : alpha * v[e];
  }
  CUTE_UNROLL
  for (int e = 0; e < 8; ++e) {
    if (gm + e >= p.m) break;
    dptr[int64_t(gm + e) * p.ldd] = OutOps<Out>::to(v[e]);
  }
}

// Stores 8 consecutive columns [gn, gn + 8) of row gm of an N-major D (GemmParams::d_n_major):
// D = alpha*v + beta*C, 16-byte accesses where the 8 columns are inside N and D's (C's)
// pointers and strides allow them. Plain epilogue only.
template <class Out>
__device__ __forceinline__ void store_cols8(float (&v)[8], int gm, int gn, int64_t l,
                                            GemmParams const& p, bool d_vec, bool c_vec,
                                            float alpha) {
  const bool full = gn + 8 <= p.n;
  if (p.beta != 0.0f) {
    float c[8] = {};
    const Out* cptr = reinterpret_cast<const Out*>(p.c) + l * p.batch_stride_c;
    load8<Out>(c, cptr + int64_t(gm) * p.ldc + gn, full && c_vec, p.n - gn);
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e) v[e] = alpha * v[e] + p.beta * c[e];
  } else {
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e) v[e] = alpha * v[e];
  }
  store8<Out>(v, reinterpret_cast<Out*>(p.d) + l * p.batch_stride_d + int64_t(gm) * p.ldd + gn,
              full && d_vec, p.n - gn);
}

// The gated epilogue (SwiGLU, epilogue_ops.cuh) of 8 consecutive rows [gm, gm + 8) of the
// GEMM's column gn, gm a multiple of 8: along N (gated == 1, gn even) `up` holds column gn + 1
// and D gets rows gm.. of column gn / 2; along M (gated == 2) the pairs are v's own rows and
// D gets 4 rows from gm / 2 (`up` unused). Either order of D (d_n_major); 16-byte stores of
// 8 M-major rows where they fit.
template <class Out>
__device__ __forceinline__ void store_gated8(float const (&v)[8], float const (&up)[8], int gm,
                                             int gn, int64_t l, GemmParams const& p,
                                             bool d_vec) {
  Out* const dptr = reinterpret_cast<Out*>(p.d) + l * p.batch_stride_d;
  const bool n_major = p.d_n_major != 0;
  auto at = [&](int om, int on) {
    return n_major ? int64_t(om) * p.ldd + on : int64_t(on) * p.ldd + om;
  };
  float x[8];
  epi_gated8(x, v, up, gm, gn, epi_args(p));
  if (p.gated == 1) {
    alignas(16) Out o[8];
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e) o[e] = OutOps<Out>::to(x[e]);
    if (!n_major && d_vec && gm + 8 <= p.m) {
      CUTE_UNROLL
      for (int q = 0; q < int(sizeof(o) / 16); ++q)
        reinterpret_cast<uint4*>(dptr + at(gm, gn / 2))[q] = reinterpret_cast<const uint4*>(o)[q];
    } else {
      CUTE_UNROLL
      for (int e = 0; e < 8; ++e)
        if (gm + e < p.m) dptr[at(gm + e, gn / 2)] = o[e];
    }
  } else {
    CUTE_UNROLL
    for (int e = 0; e < 8; e += 2)
      if (gm + e < p.m) dptr[at((gm + e) / 2, gn)] = OutOps<Out>::to(x[e / 2]);
  }
}

// The fused epilogue's store of rows [gm, gm + 8) of the GEMM's column gn inside D (v: their
// f32 sums; gated along N, up: column gn + 1's, gn even): store_gated8, or the epilogue of
// store_rows8 / store_rows8_n_major; reached from rolled loops only.
template <class Out>
__device__ __forceinline__ void store_epi8(float (&v)[8], const float (&up)[8], int gm, int gn,
                                           int64_t l, GemmParams const& p, bool d_vec,
                                           bool c_vec) {
  if (p.gated != 0) {
    store_gated8<Out>(v, up, gm, gn, l, p, d_vec);
  } else if (p.d_n_major) {
    store_rows8_n_major<Out>(v, gm, gn, l, p, true, p.alpha);
  } else {
    store_rows8<Out>(v, gm, gn, l * p.batch_stride_d + int64_t(gn) * p.ldd + gm,
                     l * p.batch_stride_c + int64_t(gn) * p.ldc + gm, p, d_vec, c_vec, true,
                     p.alpha);
  }
}

// Whether D (resp. C) allows 16-byte stores of 8 rows.
template <class Out>
__device__ __forceinline__ bool vec_ok(const void* ptr, int64_t ld, int64_t batch_stride) {
  return ((reinterpret_cast<uintptr_t>(ptr) & 15) == 0) && (ld % 8 == 0) && (batch_stride % 8 == 0);
}

// Rows [8 mb, 8 mb + 8) of column col of a warpgroup's f32 staging (kEpiLd floats a column).
__device__ __forceinline__ void staged_rows8(float (&v)[8], const float* stg, int col, int mb) {
  const float4 lo = *reinterpret_cast<const float4*>(&stg[col * kEpiLd + mb * 8]);
  const float4 hi = *reinterpret_cast<const float4*>(&stg[col * kEpiLd + mb * 8 + 4]);
  v[0] = lo.x; v[1] = lo.y; v[2] = lo.z; v[3] = lo.w;
  v[4] = hi.x; v[5] = hi.y; v[6] = hi.z; v[7] = hi.w;
}

__device__ __forceinline__ int32_t epi_axis_swapped(int32_t a) {
  return a == kAxisM ? kAxisN : a == kAxisN ? kAxisM : a;
}

// The epilogue's arguments for D's transpose, so that epi_rows8 applies a non-gated
// epilogue to 8 consecutive columns of one row of D: the vectors' axes and the extents
// swapped.
__device__ __forceinline__ EpiArgs epi_args_transposed(GemmParams const& p) {
  EpiArgs e = epi_args(p);
  e.bias_axis = epi_axis_swapped(e.bias_axis);
  e.scale_axis = epi_axis_swapped(e.scale_axis);
  e.m = p.n;
  e.n = p.m;
  return e;
}

// Columns [col, col + 8) of row r of a warpgroup's f32 staging (column-major).
__device__ __forceinline__ void staged_cols8(float (&v)[8], const float* stg, int r, int col) {
  CUTE_UNROLL
  for (int j = 0; j < 8; ++j) v[j] = stg[(col + j) * kEpiLd + r];
}

// Item `item` of a chunk of EpiN columns by 8 runs of 8 rows: (run, column). For an
// M-major D the 8 runs of a column go to consecutive threads (16-byte stores into one
// line); for an N-major D the columns do, so that each of a thread's 8 row stores meets
// its neighbours' in one line.
template <int EpiN>
__device__ __forceinline__ int2 staged_item(int item, bool n_major) {
  return n_major ? make_int2(item / EpiN, item % EpiN) : make_int2(item % 8, item / 8);
}

// The fused epilogue of one chunk (EpiN columns from n0, 64 rows from m_base, those from
// m_own on) into an N-major D by rows, where its rows allow 16-byte accesses: 8 consecutive
// columns of D's row a thread. Not gated, the epilogue is applied to them as to 8 rows of
// D's transpose (epi_args_transposed); gated along N, a thread takes 16 columns of a row (8
// gate/up pairs); along M (a transposed plan's gate/up rows of the weight), a gate row with
// its up row, 8 columns of D's row gm / 2.
template <int EpiN, class Out>
__device__ __forceinline__ void store_chunk_rows_fused(const float* stg, int wtid, int m_base,
                                                       int m_own, int n0, int64_t l,
                                                       GemmParams const& p, bool d_vec,
                                                       bool c_vec) {
  const bool along_n = p.gated == 1, along_m = p.gated == 2;
  const int width = along_n ? 16 : 8;   // columns an item
  const int step = along_m ? 2 : 1;     // rows an item
  const int per_row = EpiN / width;
  const EpiArgs e = epi_args(p), et = epi_args_transposed(p);
  Out* const d = reinterpret_cast<Out*>(p.d) + l * p.batch_stride_d;
  const Out* const c = reinterpret_cast<const Out*>(p.c) + l * p.batch_stride_c;
#pragma unroll 1
  for (int item = wtid; item < 64 / step * per_row; item += 128) {
    const int r = step * (item / per_row), col = width * (item % per_row);
    const int gm = m_base + r, gn = n0 + col;
    if (gn >= p.n || gm < m_own || gm >= p.m) continue;
    float v[8];
    staged_cols8(v, stg, r, col);
    if (along_n) {
      float hi[8], x[8];
      staged_cols8(hi, stg, r, col + 8);
      CUTE_UNROLL
      for (int j = 0; j < 8; ++j) {
        const float gate = j < 4 ? v[2 * j] : hi[2 * j - 8];
        const float up = j < 4 ? v[2 * j + 1] : hi[2 * j - 7];
        x[j] = gn + 2 * j < p.n ? epi_gated(gate, up, gm, gn + 2 * j, e) : 0.f;
      }
      const int on = gn / 2;
      const bool vec = gn + 16 <= p.n && d_vec && on % 8 == 0;
      store8<Out>(x, d + int64_t(gm) * p.ldd + on, vec, (p.n - gn) / 2);
    } else if (along_m) {
      float up[8];
      staged_cols8(up, stg, r + 1, col);
      CUTE_UNROLL
      for (int j = 0; j < 8; ++j)
        if (gn + j < p.n) v[j] = epi_gated(v[j], up[j], gm, gn + j, e);
      store8<Out>(v, d + int64_t(gm / 2) * p.ldd + gn, gn + 8 <= p.n && d_vec, p.n - gn);
    } else {
      const bool full = gn + 8 <= p.n;
      float cv[8] = {};
      if (p.beta != 0.0f) load8<Out>(cv, c + int64_t(gm) * p.ldc + gn, full && c_vec, p.n - gn);
      epi_rows8(v, cv, gn, gm, et);
      store8<Out>(v, d + int64_t(gm) * p.ldd + gn, full && d_vec, p.n - gn);
    }
  }
}

// The fused epilogue's stores of one chunk of a warpgroup's staging (EpiN columns of D from
// n0, 64 rows from m_base; on the narrow tiles those from m_own on), its items in a rolled
// loop. Gated along N, an item of the narrow tiles (NMajorD) is a gate column with its up,
// so that no thread holds an up column's idle item (a 16-column chunk's 64 pairs still
// leave half the warpgroup idle); the others skip the up columns' items (with the pairs'
// code ptxas spilled 8 bytes more in their plain entry points). An N-major D whose rows
// allow 16-byte accesses goes out by rows instead (store_chunk_rows_fused).
template <int EpiN, bool NMajorD, class Out>
__device__ __forceinline__ void store_chunk_fused(const float* stg, int wtid, int m_base,
                                                  int m_own, int n0, int64_t l,
                                                  GemmParams const& p, bool d_vec, bool c_vec) {
  const bool n_major = NMajorD && p.d_n_major;
  if (n_major && d_vec && (p.beta == 0.0f || c_vec)) {
    store_chunk_rows_fused<EpiN, Out>(stg, wtid, m_base, m_own, n0, l, p, d_vec, c_vec);
    return;
  }
  const bool pairs = NMajorD && p.gated == 1;
  // Pairs are half as many items: a 16-column chunk's 64 leave half the threads idle.
  const int items = (pairs ? 4 : 8) * EpiN;
#pragma unroll 1
  for (int item = wtid; item < items; item += 128) {
    const int2 at = pairs ? staged_item<EpiN / 2>(item, n_major) : staged_item<EpiN>(item, n_major);
    const int mb = at.x, col = pairs ? 2 * at.y : at.y;
    const int gm = m_base + mb * 8, gn = n0 + col;
    if (gn >= p.n || (NMajorD && gm < m_own) || gm >= p.m) continue;
    if (p.gated == 1 && col % 2 != 0) continue;   // not pairs: the up, stored with its gate
    float v[8], up[8];
    staged_rows8(v, stg, col, mb);
    if (p.gated == 1) staged_rows8(up, stg, col + 1, mb);   // in the chunk: EpiN is even
    store_epi8<Out>(v, up, gm, gn, l, p, d_vec, c_vec);
  }
}

// Registers -> staging of chunk c (EpiN columns) of a consumer warp's m64nBNk16 fragment
// (value i = v0 + 2*v1 + 4*j is row frag_row + 8*v1, column 8*j + frag_col + v0), column-
// major in the staging (conflict-free with kEpiLd = 68).
template <int EpiN, class Frag>
__device__ __forceinline__ void stage_chunk(Frag const& acc, float* stg, int c, int frag_row,
                                            int frag_col) {
  CUTE_UNROLL
  for (int j = 0; j < EpiN / 8; ++j) {
    CUTE_UNROLL
    for (int v1 = 0; v1 < 2; ++v1) {
      CUTE_UNROLL
      for (int v0 = 0; v0 < 2; ++v0) {
        const int i = v0 + 2 * v1 + 4 * (c * (EpiN / 8) + j);
        stg[(8 * j + frag_col + v0) * kEpiLd + frag_row + 8 * v1] = acc(i);
      }
    }
  }
}

// stage_chunk of the run-time chunk c < NC: each branch indexes the fragment statically.
template <int C, int NC, int EpiN, class Frag>
__device__ __forceinline__ void stage_chunk_at(int c, Frag const& acc, float* stg, int frag_row,
                                               int frag_col) {
  if constexpr (C < NC) {
    if (c == C)
      stage_chunk<EpiN>(acc, stg, C, frag_row, frag_col);
    else
      stage_chunk_at<C + 1, NC, EpiN>(c, acc, stg, frag_row, frag_col);
  }
}

// The plain epilogue's stores of one chunk of a warpgroup's staging (EpiN columns of D from
// n0, 64 rows from m_base, those from m_own on) into an N-major D by rows: EpiN / 8 threads
// a row, 8 consecutive columns each (store_cols8), so a warp covers 8 rows' runs of EpiN
// columns. Each thread gathers its 8 values from 8 columns of the column-major staging.
template <int EpiN, class Out>
__device__ __forceinline__ void store_chunk_rows(const float* stg, int wtid, int m_base,
                                                 int m_own, int n0, int64_t l,
                                                 GemmParams const& p, bool d_vec, bool c_vec,
                                                 float alpha) {
  constexpr int G = EpiN / 8;   // threads a row
  CUTE_UNROLL
  for (int it = 0; it < (64 * G + 127) / 128; ++it) {
    const int item = wtid + 128 * it;
    const int r = item / G, g = item % G;
    const int gm = m_base + r, gn = n0 + 8 * g;
    if (item < 64 * G && gn < p.n && gm >= m_own && gm < p.m) {
      float v[8];
      staged_cols8(v, stg, r, 8 * g);
      store_cols8<Out>(v, gm, gn, l, p, d_vec, c_vec, alpha);
    }
  }
}

// ---------------------------------------------------------------------------------
// Epilogue of one 64-row slab (one m64nBNk16 accumulator fragment, BN/2 floats per thread)
// of one consumer warpgroup: registers -> padded smem staging (EpiN columns at a time) ->
// 16-byte global stores of 8 consecutive rows (D column-major, M unit stride), or for an
// N-major D (NMajorD: the narrow tiles, the `_nd` entry points) of 8 consecutive columns
// (store_chunk_rows, narrow tiles only) where its rows allow them, else one store a value,
// a warp's along a row.
// Uses named barrier bar_id over the 128 threads of the warpgroup. in_regs: the fragment
// already holds D (a narrow tile's epi_slab_in_registers, alpha included), stored as it is.
// On the narrow tiles rows before m_own (a multiple of 8; a shifted last tile's overlap) are
// not stored (the others skip whole slabs instead).
// ---------------------------------------------------------------------------------
template <int BN, int EpiN, bool NMajorD, class Out, class Frag>
__device__ __forceinline__ void epilogue_rows64(Frag const& acc, float* stg, int bar_id, int wtid,
                                                int m_base, int m_own, int n_base, int skip,
                                                int64_t l, GemmParams const& p, bool d_vec,
                                                bool c_vec, bool in_regs) {
  const int M = p.m, N = p.n;
  const int lane = wtid % 32, wwarp = wtid / 32;
  // Fragment of m64nBNk16 (f32): value i = v0 + 2*v1 + 4*j  ->
  //   row = 16*warp + lane/4 + 8*v1,  col = 8*j + 2*(lane%4) + v0
  const int frag_row = 16 * wwarp + lane / 4;
  const int frag_col = 2 * (lane % 4);
  const bool n_major = NMajorD && p.d_n_major;
  // By rows (store_chunk_rows, store_chunk_rows_fused) on the narrow tiles only: on the
  // 128x192 tile, whose 192 accumulators leave no registers to spare, that code spilled 2.4
  // KB more a thread and its stores took 1.05-1.37x RM's time (2.0x at 161 tokens); an
  // N-major D goes by TMA there (tma_epilogue_pass_n_major), else one value a thread.
  constexpr bool kByRows = NMajorD && BN % 64 != 0;
  if (epi_active(p) && !in_regs) {
    // The fused epilogue: a run-time loop over the chunks, so that its stores are in the
    // kernel once per slab site rather than once per chunk.
#pragma unroll 1
    for (int c = skip / EpiN; c < BN / EpiN; ++c) {
      stage_chunk_at<0, BN / EpiN, EpiN>(c, acc, stg, frag_row, frag_col);
      named_bar_sync(bar_id, 128);
      store_chunk_fused<EpiN, kByRows, Out>(stg, wtid, m_base, m_own, n_base + c * EpiN, l, p,
                                             d_vec, c_vec);
      named_bar_sync(bar_id, 128);
    }
    return;
  }
  const float alpha = in_regs ? 1.0f : p.alpha;
  // An N-major D whose rows allow 16-byte accesses goes out along its rows; otherwise a
  // warp stores 32 columns of one row at a time (one value a thread, 64 bytes of bf16).
  if (kByRows && n_major && d_vec && (p.beta == 0.0f || c_vec)) {
    CUTE_UNROLL
    for (int c = 0; c < BN / EpiN; ++c) {
      if (c * EpiN < skip) continue;
      stage_chunk<EpiN>(acc, stg, c, frag_row, frag_col);
      named_bar_sync(bar_id, 128);
      store_chunk_rows<EpiN, Out>(stg, wtid, m_base, m_own, n_base + c * EpiN, l, p, d_vec,
                                  c_vec, alpha);
      named_bar_sync(bar_id, 128);
    }
    return;
  }
  CUTE_UNROLL
  for (int c = 0; c < BN / EpiN; ++c) {
    if (c * EpiN < skip) continue;
    stage_chunk<EpiN>(acc, stg, c, frag_row, frag_col);   // c is a constant once unrolled
    named_bar_sync(bar_id, 128);
    // staging -> global, 8 consecutive rows (M, unit stride in D) per access
    CUTE_UNROLL
    for (int it = 0; it < (8 * EpiN) / 128; ++it) {
      const int2 at = staged_item<EpiN>(wtid + 128 * it, n_major);
      const int mb = at.x, col = at.y;
      const int gm = m_base + mb * 8;
      const int gn = n_base + c * EpiN + col;
      if (gn < N && (!kByRows || gm >= m_own) && gm < M) {
        float v[8];
        staged_rows8(v, stg, col, mb);
        if (n_major)
          store_rows8_n_major<Out>(v, gm, gn, l, p, false, alpha);
        else
          store_rows8<Out>(v, gm, gn, l * p.batch_stride_d + int64_t(gn) * p.ldd + gm,
                           l * p.batch_stride_c + int64_t(gn) * p.ldc + gm, p, d_vec, c_vec,
                           false, alpha);
      }
    }
    named_bar_sync(bar_id, 128);
  }
}

// Whether the epilogue stores D by TMA (tma_d): the fast epilogue applies and D's contiguous
// extent (M, or N where d_n_major) is a multiple of 8 (TMA clips a box only at whole 16-byte
// pieces of its contiguous mode, so otherwise it would write past it). The host encodes tma_d
// whenever this can hold.
__device__ __forceinline__ bool tma_epilogue(GemmParams const& p, bool fast, bool d_n_major) {
  return fast && (d_n_major ? p.n : p.m) % 8 == 0;
}

// Whether the 16-bit fast epilogue applies: beta == 0 (C is not read), 16-byte stores and
// no fused epilogue (applied by tma_epilogue_fused where D goes by TMA, else at the
// general epilogue's stores, from its f32 staging).
template <class Out>
__device__ __forceinline__ bool fast_epilogue(GemmParams const& p, bool d_vec) {
  return sizeof(Out) == 2 && p.beta == 0.0f && d_vec && !epi_active(p);
}

// One 64-row slab through the TMA epilogue or the fast epilogue where they apply, else the
// general one (tma_epilogue_fused takes the fused launches that can go by TMA). The TMA
// epilogue takes `stg` (1024-byte aligned) as a ring of kTmaRingBoxes boxes, one per 64
// columns; `pass` counts the boxes this warpgroup has stored. The first `skip` columns (0 or
// 64: a shifted last tile of N, see gemm_kernel) are the tile before's and are not stored,
// as are rows before m_own on the narrow tiles (epilogue_rows64). in_regs: as
// epilogue_rows64.
template <int BN, int EpiN, bool NMajorD, class Out, class Frag>
__device__ __forceinline__ void epilogue_slab(Frag const& acc, float* stg, int bar_id, int wtid,
                                              int m_base, int m_own, int n_base, int skip,
                                              int64_t l,
                                              GemmParams const& p, bool fast, bool tma_epi,
                                              bool d_vec, bool c_vec, CUtensorMap const* tma_d,
                                              uint32_t& pass, bool in_regs) {
  if constexpr (sizeof(Out) == 2 && BN % 64 == 0) {
    if (tma_epi) {
      CUTE_UNROLL
      for (int c = 0; c < BN / 64; ++c) {
        if (64 * c < skip) continue;
        // The ring slot turns only with a store: the one skipped leaves no group in flight.
        uint8_t* const slot =
            reinterpret_cast<uint8_t*>(stg) + (pass % kTmaRingBoxes) * kTmaBoxBytes;
        if (NMajorD && p.d_n_major)
          tma_epilogue_pass_n_major<64, kTmaRingBoxes - 1, Out>(
              acc, 4 * c, slot, bar_id, wtid, m_base, n_base + 64 * c, int(l), p.alpha, tma_d);
        else
          tma_epilogue_pass<64, kTmaRingBoxes - 1, Out>(acc, 4 * c, slot, bar_id, wtid, m_base,
                                                        n_base + 64 * c, int(l), p.alpha, tma_d);
        ++pass;
      }
      return;
    }
    if (fast) {
      epilogue_rows64_16bit<BN, Out>(acc, reinterpret_cast<uint8_t*>(stg), bar_id, wtid, m_base,
                                     n_base, skip, l, p);
      return;
    }
  }
  epilogue_rows64<BN, EpiN, NMajorD, Out>(acc, stg, bar_id, wtid, m_base, m_own, n_base, skip, l, p,
                                 d_vec, c_vec, in_regs);
}

}  // namespace sm90
}  // namespace ferrocute
