// ferrocute sm90 GEMM, part of sm90_gemm.cuh: the 16-bit epilogues of one consumer
// warpgroup's 64-row slab, which convert the f32 fragment (OutOps) and lay it out in shared
// memory by stmatrix: the direct store of 8-row columns (epilogue_rows64_16bit) and the TMA
// store passes of D, M-major (tma_epilogue_pass) or N-major (tma_epilogue_pass_n_major).
// Separate from epilogue.cuh's f32-staged general epilogue, which chooses between them.
#pragma once

#include <cuda.h>   // CUtensorMap
#include <stdint.h>

#include <cute/tensor.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cutlass/numeric_types.h>

#include "../gemm_params.h"
#include "arch.cuh"
#include "config.cuh"

namespace ferrocute {
namespace sm90 {

using namespace cute;

// f32 to and from an output element.
template <class T> struct OutOps;
template <> struct OutOps<float> {
  __device__ static float to(float x) { return x; }
  __device__ static float from(float x) { return x; }
};
template <> struct OutOps<cutlass::bfloat16_t> {
  __device__ static cutlass::bfloat16_t to(float x) { return cutlass::bfloat16_t(x); }
  __device__ static float from(cutlass::bfloat16_t x) { return float(x); }
};
template <> struct OutOps<cutlass::half_t> {
  __device__ static cutlass::half_t to(float x) { return cutlass::half_t(x); }
  __device__ static float from(cutlass::half_t x) { return float(x); }
};

// ---------------------------------------------------------------------------------
// Fast epilogue of one 64-row slab, for beta == 0 and a 16-bit D whose columns allow
// 16-byte stores: each warp converts its own 16 rows to 16 bits, transposes them through
// 2 KiB of shared memory with stmatrix.trans (64 columns x 32 bytes; no warpgroup barrier)
// and stores 8 consecutive rows of one column per 16-byte access. Half the staging bytes
// and an eighth of the shared-memory instructions of epilogue_rows64.
// ---------------------------------------------------------------------------------
static constexpr int kWarpStageBytes = 2048;   // per consumer warp: 16 rows x 64 columns x 2 B
static constexpr int kWarpSliceBytes = kWarpStageBytes + kSlicePad;

// stmatrix.x4.trans: this lane's four registers (pairs of 16-bit values) of four 8x8
// matrices, transposed into shared memory at the rows the lanes address.
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t addr, uint32_t const (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
               ::"r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

template <class Out>
__device__ __forceinline__ uint32_t pack16x2(float lo, float hi) {
  return uint32_t(OutOps<Out>::to(lo).raw()) | (uint32_t(OutOps<Out>::to(hi).raw()) << 16);
}

// Writes the 16-column groups [q0, q0 + NQ) (q0 a constant once unrolled) of this warp's
// 16 rows of an m64nBNk16 fragment, times alpha, as 16-bit values into shared memory, one
// stmatrix.x4.trans per group: lane t addresses row t%8 of matrix t/8, which with .trans is
// column 8*(t/16) + t%8 of the group and 8 M-values (16 bytes) of row half (t/8)%2; its
// address for group q0 + q is lane_addr + q*QStep (slice_lane_addr, swizzled_lane_addr).
// (Fragment value v0 + 2*v1 + 4*j is row lane/4 + 8*v1, column 8*j + 2*(lane%4) + v0.)
template <int NQ, int QStep, class Out, class Frag>
__device__ __forceinline__ void stmatrix_cols(Frag const& acc, int q0, uint32_t lane_addr,
                                              float alpha) {
  CUTE_UNROLL
  for (int q = 0; q < NQ; ++q) {
    uint32_t r[4];
    CUTE_UNROLL
    for (int mtx = 0; mtx < 4; ++mtx) {
      const int i = 4 * (2 * (q0 + q) + mtx / 2) + 2 * (mtx % 2);
      r[mtx] = pack16x2<Out>(alpha * acc(i), alpha * acc(i + 1));
    }
    stmatrix_x4_trans(lane_addr + uint32_t(q * QStep), r);
  }
}

// stmatrix_cols's lane address (QStep 512) for a warp's slice at sbase: column c of its 16
// rows at c*32 bytes, row r at 2*r.
__device__ __forceinline__ uint32_t slice_lane_addr(uint32_t sbase, int lane) {
  return sbase + uint32_t((8 * (lane / 16) + lane % 8) * 32 + ((lane / 8) % 2) * 16);
}

// stmatrix_cols's lane address (QStep 2048) for warp `warp` of a warpgroup whose 64-row slab
// goes to a 1024-byte aligned staging at base in TMA's 128-byte swizzle: column c at c*128
// bytes, its 16-byte piece j (rows 8j..8j+7) at (j ^ c%8)*16. A stmatrix's 8 rows are 8
// consecutive columns, so their pieces fall in 8 different bank groups.
__device__ __forceinline__ uint32_t swizzled_lane_addr(uint32_t base, int warp, int lane) {
  const int col = 8 * (lane / 16) + lane % 8;
  const int piece = 2 * warp + (lane / 8) % 2;
  return base + uint32_t(col * 128 + ((piece ^ (col % 8)) * 16));
}

// Copies 8 rows of one column, 16 bytes of shared memory at saddr, to D at column gn, rows
// [gm, gm + 8), clipped to M and N (16-byte store when all 8 rows are inside M).
template <class Out>
__device__ __forceinline__ void store_col8(uint32_t saddr, Out* dcol, int gm, int gn,
                                           GemmParams const& p) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(saddr)
               : "memory");
  if (gn < p.n && gm < p.m) {
    Out* d = dcol + int64_t(gn) * p.ldd + gm;
    if (gm + 8 <= p.m) {
      *reinterpret_cast<uint4*>(d) = v;
    } else {
      const uint32_t w[4] = {v.x, v.y, v.z, v.w};
      CUTE_UNROLL
      for (int r = 0; r < 8; ++r)
        if (gm + r < p.m) d[r] = Out::bitcast(uint16_t(w[r / 2] >> (16 * (r % 2))));
    }
  }
}

// Shared-memory address of rows 8j..8j+7 of column col in a 16-bit staging made of 16-row
// warp slices `slice` bytes apart, as stmatrix_cols writes them (column c at c*32 bytes).
__device__ __forceinline__ uint32_t staged_rows8(uint32_t base, int slice, int j, int col) {
  return base + uint32_t((j / 2) * slice + col * 32 + (j % 2) * 16);
}

// The 16-bit epilogue of one 64-row slab, by its consumer warpgroup: 64 columns at a time,
// each warp turns its 16 rows into 16-bit columns in its slice of the warpgroup's staging,
// and after a warpgroup barrier every 8 lanes store one column's 64 rows, a whole 128-byte
// line (a warp storing its own 16 rows wrote 32-byte pieces of four lines: half the write
// bandwidth, BENCHMARKS.md).
template <int BN, class Out, class Frag>
__device__ __forceinline__ void epilogue_rows64_16bit(Frag const& acc, uint8_t* wg_buf, int bar_id,
                                                      int wtid, int m_base, int n_base, int skip,
                                                      int64_t l, GemmParams const& p) {
  static_assert(sizeof(Out) == 2, "16-bit D only");
  constexpr int kCols = 64;   // columns per pass through the warps' 2 KiB slices
  static_assert(BN % kCols == 0, "BN must be a multiple of 64");
  const int lane = wtid % 32, wwarp = wtid / 32;
  const uint32_t sbase = cast_smem_ptr_to_uint(wg_buf);
  Out* dcol = reinterpret_cast<Out*>(p.d) + l * p.batch_stride_d;
  CUTE_UNROLL
  for (int c = 0; c < BN / kCols; ++c) {
    if (c * kCols < skip) continue;
    named_bar_sync(bar_id, 128);   // the last pass's pieces have been read
    stmatrix_cols<kCols / 16, 512, Out>(
        acc, c * (kCols / 16), slice_lane_addr(sbase + wwarp * kWarpSliceBytes, lane), p.alpha);
    named_bar_sync(bar_id, 128);
    CUTE_UNROLL
    for (int it = 0; it < kCols * 8 / 128; ++it) {
      const int item = wtid + 128 * it;   // column item/8, rows 8*(item%8) .. +8
      const int j = item % 8, col = item / 8;
      store_col8<Out>(staged_rows8(sbase, kWarpSliceBytes, j, col), dcol, m_base + 8 * j,
                      n_base + c * kCols + col, p);
    }
  }
}

// One pass of the TMA epilogue of a warpgroup's 64-row slab: the columns [16*q0, 16*q0 +
// NCols) of its fragment, times alpha, go to `buf` (1024-byte aligned) as NCols/64 boxes of
// 128-byte-swizzled columns (swizzled_lane_addr), and from there by TMA to D at rows
// [m0, m0 + 64), columns [n0, n0 + NCols) of batch l; the TMA clips them at M and N. Thread
// wtid 0 issues the stores and, before the warpgroup writes `buf`, waits until the TMA has
// read all but the last `Pending` groups it issued (those read other buffers), so the stores
// drain while the warpgroup goes on.
template <int NCols, int Pending, class Out, class Frag>
__device__ __forceinline__ void tma_epilogue_pass(Frag const& acc, int q0, uint8_t* buf,
                                                  int bar_id, int wtid, int m0, int n0, int l,
                                                  float alpha, CUtensorMap const* tma_d) {
  static_assert(NCols % 64 == 0, "whole 64-column boxes");
  if (wtid == 0) tma_store_wait<Pending>();
  named_bar_sync(bar_id, 128);   // buf is free
  stmatrix_cols<NCols / 16, 16 * 128, Out>(
      acc, q0, swizzled_lane_addr(cast_smem_ptr_to_uint(buf), wtid / 32, wtid % 32), alpha);
  tma_store_fence();   // this thread's writes, visible to the TMA (async proxy)
  named_bar_sync(bar_id, 128);
  if (wtid == 0) {
    CUTE_UNROLL
    for (int b = 0; b < NCols / 64; ++b)
      SM90_TMA_STORE_3D::copy(tma_d, buf + b * kTmaBoxBytes, m0, n0 + 64 * b, l);
    tma_store_arrive();
  }
}

// stmatrix.x4 (not transposed): lane t addresses row t%8 of matrix t/8, which receives 8
// consecutive 16-bit values of one fragment row (the lane's register holds 2 of them).
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t const (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
               ::"r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// tma_epilogue_pass for an N-major D (GemmParams::d_n_major; the `_nd` entry points): the slab's
// NCols columns from 16-column group q0, times alpha, as 16-bit values into `buf` in boxes of
// 64 rows of 128 bytes (64 columns, N unit stride) in TMA's 128-byte swizzle (16-byte piece j
// of row r at r*128 + (j ^ r%8)*16), then the TMA stores each box at (n0 + 64b, m0) through
// tma_d, a map over D's rows (the host encodes it N first for an N-major D). One
// stmatrix.x4 a 16-column group: its 4 matrices are rows 0-7 and 8-15 of the warp's 16 by
// columns 0-7 and 8-15, the same registers as stmatrix_cols's, untransposed.
template <int NCols, int Pending, class Out, class Frag>
__device__ __forceinline__ void tma_epilogue_pass_n_major(Frag const& acc, int q0, uint8_t* buf,
                                                          int bar_id, int wtid, int m0, int n0,
                                                          int l, float alpha,
                                                          CUtensorMap const* tma_d) {
  static_assert(NCols % 64 == 0, "whole 64-column boxes");
  if (wtid == 0) tma_store_wait<Pending>();
  named_bar_sync(bar_id, 128);   // buf is free
  const int lane = wtid % 32;
  const int r = 16 * (wtid / 32) + 8 * ((lane / 8) % 2) + lane % 8;   // this lane's row
  const uint32_t row_addr = cast_smem_ptr_to_uint(buf) + uint32_t(r * 128);
  CUTE_UNROLL
  for (int q = 0; q < NCols / 16; ++q) {
    uint32_t regs[4];
    CUTE_UNROLL
    for (int mtx = 0; mtx < 4; ++mtx) {
      const int i = 4 * (2 * (q0 + q) + mtx / 2) + 2 * (mtx % 2);
      regs[mtx] = pack16x2<Out>(alpha * acc(i), alpha * acc(i + 1));
    }
    const int piece = 2 * (q % 4) + lane / 16;   // 16-byte piece of the row within its box
    stmatrix_x4(row_addr + uint32_t((q / 4) * kTmaBoxBytes + ((piece ^ (r % 8)) * 16)), regs);
  }
  tma_store_fence();   // this thread's writes, visible to the TMA (async proxy)
  named_bar_sync(bar_id, 128);
  if (wtid == 0) {
    CUTE_UNROLL
    for (int b = 0; b < NCols / 64; ++b)
      SM90_TMA_STORE_3D::copy(tma_d, buf + b * kTmaBoxBytes, n0 + 64 * b, m0, l);
    tma_store_arrive();
  }
}

}  // namespace sm90
}  // namespace ferrocute
