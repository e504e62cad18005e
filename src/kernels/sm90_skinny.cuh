// ferrocute: GEMM for M <= 16 (decode-like skinny problems such as 16 x 4096 x 4096) that
// streams B through registers.
//
// Computes, like the other kernels (gemm_params.h convention),
//     D(m,n,l) = alpha * sum_k A(m,k,l) B(n,k,l) + beta * C(m,n,l)
// with f32 accumulation; beta == 0 never reads C.
//
// Why a third kernel: with M <= 16 the problem is a read of B (N x K) and nothing else. The
// TMA kernels stage B in shared memory and need a cluster split of K to put enough CTAs on
// the SMs; here B goes from global memory straight into mma.sync fragments:
//   * a tile is 16 rows of N and one of Q equal parts of K (GemmParams::tail_splits; the
//     host picks Q so that the tiles spread evenly over the CTAs); the `Warps` warps of a
//     CTA split a tile's part of K equally, each streaming its slice of those 16 rows with
//     16-byte non-coherent loads, `StepsInFlight` steps of 32 k ahead;
//   * the CTAs are persistent (as many as the SMs hold), each running every gridDim.x-th
//     tile, and the loads run on across tiles: the next tile's first steps are in flight
//     while a tile is reduced and stored (a CTA per tile paid the pipeline's fill and
//     drain per 128 KiB of B, which measured as costly as streaming 64 KiB more);
//   * a 16-byte load gives a lane 8 consecutive k of one row of B. mma.m16n8k16 wants the
//     k pairs {2q, 2q+1} and {2q+8, 2q+9} of lane q = lane % 4, so the reduction index is
//     permuted: logical k 2q+j and 2q+8+j of the first MMA are physical 8q+j and 8q+2+j,
//     those of the second 8q+4+j and 8q+6+j (j = 0,1). The sum over k does not care; A is
//     read with the same permutation;
//   * A (16 x K, L2-resident) is staged per warp in chunks of `KChunk` k with cp.async
//     through L1 (the two CTAs an SM holds read the same slices of A; .ca measured 3-8%
//     faster than .cg), double-buffered and synchronised per warp only;
//     a K-major A as (m, k) with a padded pitch, read with 16-byte loads; an M-major A as
//     it lies in memory, (k, m) in a swizzled chunk, read with ldmatrix.trans, which hands
//     each lane the (m, k pair) fragments mma wants;
//   * warps stream their slices from the start (staggering their start chunks measured 1-2%
//     slower);
//   * rows that start on 8 but not 16 bytes (K = 4100, or a view 4 columns in) are read in
//     place, B's 16-byte pieces as two 8-byte halves and A's with 8-byte copies, each
//     predicated on K (or, for an M-major A, cut at M): a staging copy would triple the
//     bytes of B. A and B choose apart;
//   * the warps' (16 n, 16 m) partial tiles are summed in shared memory; with Q > 1 each
//     part leaves its sum in a workspace slot and the last part to arrive at the tile's
//     counter adds the Q slots in part order (deterministic) and stores the tile; no
//     cluster, no float atomics;
//   * C and D may be N-major (GemmParams::d_n_major: a row-major C, the problem given
//     with the small operand as B), so that y = x W^T never needs a swapped problem.
//
// =====================================================================================
// CONFIG SCHEMA (rendered by ferrocute_kernels::sm90_skinny)
// =====================================================================================
//   struct Cfg {
//     static constexpr int Warps = 8;           // K slices per CTA (threads = 32 * Warps)
//     static constexpr int StepsInFlight = 4;   // steps of 32 k loaded ahead per warp
//     static constexpr int KChunk = 128;        // k per staged A chunk (multiple of 64)
//     using SmemLayoutAK = ...;   // (16 m, KChunk k) chunk of a K-major A, row pitch = 64
//                                 //   (mod 128) bytes
//     using SmemLayoutAM = ...;   // (16 m, KChunk k) chunk of an M-major A: 16 m per k,
//                                 //   swizzled so that each ldmatrix.trans reads 8 distinct
//                                 //   16-byte bank groups
//     using SmemLayoutRed = ...;  // (16 n, 16 m, Warps) f32 partial tiles
//     static constexpr int ABufElems = ...;      // elements of one A chunk buffer (either)
//   };
//
// ENTRY POINTS: ferrocute_sm90_<cfgname>_{kk,mk}_<in>_<out>(GemmParams): A K- or M-major,
//   B K-major; ferrocute_sm90_<cfgname>_epi_{kk,mk}_<in>_<out> the same with the fused
//   epilogue (epilogue_ops.cuh) applied at the tile's store, which the plain ones trap on.
//
// LAUNCH FORMULA
//   grid  = (min(tiles, CTAs the SMs hold at once), 1, 1), block = (32 * Warps, 1, 1),
//   tiles = ceil(N / 16) * Q * batch < 2^31, Q = max(1, tail_splits)
//   workspace (Q > 1): ceil(4 * G / 1024) * 1024 bytes of u32 counters (G = ceil(N / 16) *
//   batch), zero before the launch (left zero after it), then G * Q * 256 f32 slots
//   dynamic smem = Warps * 2 * ABufElems * 2 + cosize(SmemLayoutRed) * 4 (SMEM_BYTES in Rust)
//   programmatic stream serialization may be allowed (PDL): the kernel waits on
//   griddepcontrol.wait before its first global memory access.
// PRECONDITIONS: M <= 16 and K % 4 == 0 (the kernel traps otherwise); A and B 8-byte aligned
//   with lda, ldb and batch strides multiples of 4 elements (16 bytes and 8 elements, with
//   K % 8 == 0 for K-major rows, take whole 16-byte loads). C/D: any ldc/ldd and alignment.
#pragma once

#include <cute/tensor.hpp>
#include <cute/arch/mma_sm80.hpp>

#include "epilogue_ops.cuh"
#include "gemm_params.h"

namespace ferrocute {
namespace skinny {

using namespace cute;

template <class In> struct Mma16816;
template <> struct Mma16816<cute::bfloat16_t> { using Op = SM80_16x8x16_F32BF16BF16F32_TN; };
template <> struct Mma16816<cute::half_t> { using Op = SM80_16x8x16_F32F16F16F32_TN; };

__device__ __forceinline__ uint4 ld_stream(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ uint2 ld_stream_half(const void* p) {
  uint2 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0,%1}, [%2];"
               : "=r"(v.x), "=r"(v.y)
               : "l"(p));
  return v;
}

// The 16-byte piece at k of a row: k < k1 holds for all of it (W = 16: K % 8 == 0) or, in
// 8-byte halves (W = 8: K % 4 == 0), for each half; zeros where it does not.
template <int W>
__device__ __forceinline__ uint4 ld_piece(const void* row, int k, int k1, bool valid) {
  if constexpr (W == 16) {
    return valid && k < k1 ? ld_stream(static_cast<const uint16_t*>(row) + k)
                           : make_uint4(0, 0, 0, 0);
  } else {
    const uint16_t* e = static_cast<const uint16_t*>(row) + k;
    const uint2 lo = valid && k < k1 ? ld_stream_half(e) : make_uint2(0, 0);
    const uint2 hi = valid && k + 4 < k1 ? ld_stream_half(e + 4) : make_uint2(0, 0);
    return make_uint4(lo.x, lo.y, hi.x, hi.y);
  }
}

// 16-byte cp.async through L1 to shared address `dst` of the first `bytes` bytes at `src`,
// zero-filling the rest (reading nothing when `bytes == 0`).
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes));
}

// 8-byte cp.async through L1, like cp_async_16.
__device__ __forceinline__ void cp_async_8(uint32_t dst, const void* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(dst), "l"(src), "r"(bytes));
}

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return uint32_t(__cvta_generic_to_shared(p));
}

// Four transposed 8x8 matrices of 16-bit elements: lane l gives the address of row l % 8 of
// matrix l / 8 and receives, of each matrix, rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4.
__device__ __forceinline__ void ldsm_x4_trans(uint32_t (&r)[4], uint32_t s) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

// The low bits of an operand's row starts (base, leading dimension and batch stride of a
// 16-bit operand) and of K: 16-byte pieces fit where (bits & 15) == 0.
__device__ __forceinline__ uint64_t row_start_bits(const void* base, int64_t ld, int64_t step,
                                                   int k) {
  return reinterpret_cast<uintptr_t>(base) | uint64_t(2 * (ld | step | int64_t(k)));
}

// Bytes of the K-split counters at the workspace's start (one u32 per 16-row tile and
// batch, zero between launches); the f32 slots of the parts follow.
__device__ __forceinline__ int64_t split_counter_bytes(int tiles) {
  return (int64_t(tiles) * 4 + 1023) / 1024 * 1024;
}

// One part's arrival at its tile's counter: release of this part's slot, acquire of the
// slots of the parts before it. Returns the count before this arrival.
__device__ __forceinline__ uint32_t split_arrive(uint32_t* counter) {
  uint32_t old;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
  return old;
}

// W: the widest access every row of B allows, 16 or 8 bytes (row_start_bits); AM: A is
// M-major.
template <class Cfg, class In, class Out, int W, bool AM, bool Epi>
__device__ __forceinline__ void skinny_kernel(GemmParams const& p) {
  static_assert(W == 16 || W == 8, "pieces are read whole or in 8-byte halves");
  constexpr int NW = Cfg::Warps, U = Cfg::StepsInFlight, KCH = Cfg::KChunk;
  constexpr int SPC = KCH / 32;   // steps per chunk
  static_assert(KCH % 64 == 0, "KChunk must be a multiple of 64");
  static_assert(U % SPC == 0 || SPC % U == 0, "StepsInFlight and the chunk must nest");
  using Mma = typename Mma16816<In>::Op;

  extern __shared__ __align__(128) uint8_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  // An M-major A is copied in pieces of 8 (or 4) m at each k; a K-major one along K.
  const uint64_t a_bits = row_start_bits(p.a, p.lda, p.batch_stride_a, AM ? 0 : p.k);
  const uint64_t b_bits = row_start_bits(p.b, p.ldb, p.batch_stride_b, p.k);
  // The fused epilogue only in the Epi entry points: its code in the plain ones cost their
  // launches a quarter of their speed (NOTES.md).
  if (threadIdx.x == 0 && (blockDim.x != 32 * NW || p.m > 16 || ((a_bits | b_bits) & 7) != 0 ||
                           (b_bits & (W - 1)) != 0 || (!Epi && epi_active(p))))
    __trap();
  const bool a_whole = (a_bits & 15) == 0;   // A's chunks in 16-byte copies, else 8-byte

  In* abuf = reinterpret_cast<In*>(smem) + warp * 2 * Cfg::ABufElems;   // 2 chunk buffers
  Tensor sRed = make_tensor(make_smem_ptr(reinterpret_cast<float*>(
                                smem + NW * 2 * Cfg::ABufElems * int(sizeof(In)))),
                            typename Cfg::SmemLayoutRed{});   // (16 n, 16 m, NW)

  // Tiles: 16 rows of N (group) x one of Q parts of K x batch, u = (l * G + group) * Q + part;
  // this CTA runs u = blockIdx.x, + gridDim.x, ... (persistent: the loads of the next tile
  // are in flight while this one is reduced and stored).
  const int M = p.m, N = p.n, K = p.k;
  const int Q = max(1, p.tail_splits), G = (N + 15) / 16, tiles = G * Q * p.batch;
  // Every warp of every part: sw steps of 32 k (the last slices of K may be short or
  // empty), in nchunks chunks of KCH, so that every tile has the same nsteps per warp.
  const int T = (K + 31) / 32, sw = (T + Q * NW - 1) / (Q * NW);
  const int nchunks = (32 * sw + KCH - 1) / KCH, nsteps = nchunks * SPC;
  const int my_tiles = blockIdx.x < tiles ? (tiles - 1 - int(blockIdx.x)) / int(gridDim.x) + 1 : 0;
  const int total_steps = my_tiles * nsteps;

  // What this warp reads of tile u: its k slice [k0, k1) and rows g, g + 8 of B
  // (clamped: out-of-range rows load nothing), and A of the tile's batch.
  struct Slice {
    const In* a;
    const In* b0;
    const In* b1;
    bool v0, v1;
    int k0, k1;
  };
  auto slice_of = [&](int u) {
    const int part = u % Q, grp = u / Q % G, l = u / (Q * G);
    const int s0 = (part * NW + warp) * sw;
    Slice sl;
    sl.k0 = min(K, 32 * s0);
    sl.k1 = min(K, 32 * (s0 + sw));
    sl.a = static_cast<const In*>(p.a) + int64_t(l) * p.batch_stride_a;
    const In* B = static_cast<const In*>(p.b) + int64_t(l) * p.batch_stride_b;
    const int n0 = grp * 16;
    sl.b0 = B + int64_t(min(n0 + g, N - 1)) * p.ldb;
    sl.b1 = B + int64_t(min(n0 + g + 8, N - 1)) * p.ldb;
    sl.v0 = n0 + g < N;
    sl.v1 = n0 + g + 8 < N;
    return sl;
  };
  auto tile_at = [&](int i) { return int(blockIdx.x) + i * int(gridDim.x); };   // i-th own tile

  // An M-major A's pieces (8 m at one k) of this lane: m0, the first chunk row, and the
  // bytes of each piece within M.
  const unsigned am_m0 = 8 * (unsigned(lane) % 2), am_kk0 = unsigned(lane) / 2;
  const int am_bytes = max(0, min(16, 2 * (M - int(am_m0))));
  const int am_off0 = int(typename Cfg::SmemLayoutAM{}(am_m0, am_kk0));

  // Stage this warp's chunk cg (counted over all its tiles: chunk cg % nchunks of its tile
  // cg / nchunks; k in [kb, +KCH) ∩ [k0, k1), m < M; zeros elsewhere) in buffer cg % 2 with
  // cp.async. The copy width is chosen outside the unrolled loops and the swizzled chunk is
  // indexed with unsigned coordinates: per-piece branches and signed index arithmetic made
  // the M-major staging cost more issue slots than the whole step.
  auto stage_a = [&](int cg) {
    if (cg < my_tiles * nchunks) {
      const Slice sl = slice_of(tile_at(cg / nchunks));
      const In* A = sl.a;
      const int kb = sl.k0 + (cg % nchunks) * KCH, k1 = sl.k1;
      In* buf = abuf + (cg & 1) * Cfg::ABufElems;
      if constexpr (AM) {
        typename Cfg::SmemLayoutAM chunk;   // (16, KCH)
        // This lane's pieces: 8 m from am_m0 at chunk rows am_kk0 + 16 j. The chunk layout is
        // this lane's offset XOR row 16 j's (skinny_m_major_chunk checks it), so a piece
        // costs one XOR with a constant and one pointer step.
        const uint32_t buf_s = smem_addr(buf);
        auto pieces = [&](auto copy) {
          const In* src = A + int64_t(kb + int(am_kk0)) * p.lda + am_m0;
          CUTE_UNROLL
          for (int j = 0; j < KCH / 16; ++j, src += 16 * p.lda) {
            const int k = kb + int(am_kk0) + 16 * j;
            const int n = k < k1 ? am_bytes : 0;   // none: read nothing, at A
            if (k == K - 1 && n > 0 && n < 16) continue;   // copied below
            copy(buf_s + uint32_t(sizeof(In) * (am_off0 ^ int(chunk(0u, 16u * j)))), n > 0 ? src : A, n);
          }
        };
        if (a_whole) {
          pieces([](uint32_t d, const In* s, int n) { cp_async_16(d, s, n); });
        } else {
          pieces([&](uint32_t d, const In* s, int n) {
            cp_async_8(d, s, min(8, n));
            cp_async_8(d + 8, n > 8 ? s + 4 : A, max(0, n - 8));
          });
        }
        // A's last k row, where M cuts a piece: element by element, as the allocation may
        // end at A(M-1, K-1) and a short cp.async still touches its whole width.
        const int kk = K - 1 - kb;
        if (kk >= 0 && kk < KCH && K - 1 < k1 && int(am_kk0) == kk % 16 && am_bytes > 0 &&
            am_bytes < 16) {
          const In* last = A + int64_t(K - 1) * p.lda + am_m0;
          for (int e = 0; e < 8; ++e)
            buf[chunk(am_m0 + e, unsigned(kk))] = 2 * e < am_bytes ? last[e] : In(0);
        }
      } else {
        // This lane's pieces: 8 k from kk of rows m0 + RPJ j (a plain layout: offsets add).
        constexpr int PR = KCH / 8, RPJ = 32 / PR;   // pieces per row, rows per j
        static_assert(32 % PR == 0, "a warp copies whole rows of a K-major chunk");
        typename Cfg::SmemLayoutAK chunk;   // (16, KCH)
        const int m0 = lane / PR, kk = 8 * (lane % PR);
        const uint32_t dst = smem_addr(buf + chunk(m0, kk));
        const In* src = A + int64_t(m0) * p.lda + kb + kk;
        if (a_whole) {
          const bool in = kb + kk < k1;
          CUTE_UNROLL
          for (int j = 0; j < 16 / RPJ; ++j) {
            const bool ok = in && m0 + RPJ * j < M;
            cp_async_16(dst + uint32_t(sizeof(In) * chunk(RPJ * j, 0)),
                        ok ? src + int64_t(RPJ * j) * p.lda : A, ok ? 16 : 0);
          }
        } else {
          const bool lo_in = kb + kk < k1, hi_in = kb + kk + 4 < k1;
          CUTE_UNROLL
          for (int j = 0; j < 16 / RPJ; ++j) {
            const In* s = src + int64_t(RPJ * j) * p.lda;
            const uint32_t d = dst + uint32_t(sizeof(In) * chunk(RPJ * j, 0));
            const bool lo = lo_in && m0 + RPJ * j < M, hi = hi_in && m0 + RPJ * j < M;
            cp_async_8(d, lo ? s : A, lo ? 8 : 0);
            cp_async_8(d + 8, hi ? s + 4 : A, hi ? 8 : 0);
          }
        }
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  // The ring of B steps in flight (rows g and g + 8), filled in step order across tiles by
  // a cursor: its tile (i-th of this CTA's), step within it, and that tile's slice.
  uint4 rb0[U], rb1[U];
  int ld_i = 0, ld_s = 0;
  Slice ls = slice_of(tile_at(0));
  auto load_next = [&](int j) {
    const bool live = ld_i < my_tiles;
    const int k = ls.k0 + 32 * ld_s + 8 * q;
    rb0[j] = ld_piece<W>(ls.b0, k, ls.k1, live && ls.v0);
    rb1[j] = ld_piece<W>(ls.b1, k, ls.k1, live && ls.v1);
    if (++ld_s == nsteps) {
      ld_s = 0;
      if (++ld_i < my_tiles) ls = slice_of(tile_at(ld_i));
    }
  };

  Out* const D = static_cast<Out*>(p.d);
  const Out* const C = static_cast<const Out*>(p.c);
  // Element i of the 16 x 16 tile: consecutive threads walk D's contiguous mode.
  const bool n_major = p.d_n_major != 0;
  auto coord = [&](int i) { return n_major ? make_int2(i % 16, i / 16) : make_int2(i / 16, i % 16); };
  auto warp_sum = [&](int i) {
    float v = 0.f;
    CUTE_UNROLL
    for (int w = 0; w < NW; ++w) v += sRed(coord(i).x, coord(i).y, w);
    return v;
  };
  uint32_t* const counters = static_cast<uint32_t*>(p.workspace);
  float* const slots = reinterpret_cast<float*>(static_cast<uint8_t*>(p.workspace) +
                                                split_counter_bytes(G * p.batch));
  __shared__ uint32_t arrived;
  // The warps' partial tiles of tile u are in sRed: sum them, and store the tile (Q == 1)
  // or leave it in its part's slot; the last part of a tile to arrive at its counter adds
  // the Q slots in part order (the same bits whichever part is last), stores the tile (the
  // Epi entry points through the fused epilogue) and zeroes the counter for the next launch.
  auto finish_tile = [&](int u) {
    const int part = u % Q, tile = u / Q, grp = tile % G, l = tile / G, n0 = grp * 16;
    auto store = [&](int i, float v) {
      const int nl = coord(i).x, m = coord(i).y, n = n0 + nl;
      if (n >= N || m >= M) return;
      const int64_t at_d = int64_t(l) * p.batch_stride_d +
                           (n_major ? int64_t(m) * p.ldd + n : int64_t(n) * p.ldd + m);
      const int64_t at_c = int64_t(l) * p.batch_stride_c +
                           (n_major ? int64_t(m) * p.ldc + n : int64_t(n) * p.ldc + m);
      v *= p.alpha;
      if (p.beta != 0.f) v += p.beta * float(C[at_c]);
      D[at_d] = Out(v);
    };
    float* const slot = slots + int64_t(tile) * Q * 256;
    // Q > 1: leaves this part's sums in its slot and arrives at the tile's counter; whether
    // this part arrived last (it then finishes the tile). Only thread 0 orders memory at
    // GPU scope: its acq_rel arrival releases the slot writes the barrier before it
    // gathered (release is cumulative) and acquires the other parts' slots for the reads
    // after the barrier behind it. A fence in every thread made each warp wait for the
    // loads of the next tile it had in flight.
    auto last_part = [&]() {
      for (int i = threadIdx.x; i < 16 * 16; i += 32 * NW)
        __stcg(slot + part * 256 + i, warp_sum(i));
      __syncthreads();
      if (threadIdx.x == 0) arrived = split_arrive(&counters[tile]);
      __syncthreads();
      return arrived == uint32_t(Q - 1);
    };
    if (Q > 1 && !last_part()) return;
    // The tile's sum at element i (with Q > 1 its slots added in part order).
    auto sum = [&](int i) {
      if (Q == 1) return warp_sum(i);
      float v = 0.f;
      for (int j = 0; j < Q; ++j) v += __ldcg(slot + j * 256 + i);
      return v;
    };
    if constexpr (Epi) {
      const EpiArgs ea = epi_args(p);
      for (int i = threadIdx.x; i < 16 * 16; i += 32 * NW) {
        const int nl = coord(i).x, m = coord(i).y, n = n0 + nl;
        if (n >= N || m >= M) continue;
        // D's element (om, on) of batch l, in either order
        auto at = [&](int om, int on) {
          return int64_t(l) * p.batch_stride_d +
                 (n_major ? int64_t(om) * p.ldd + on : int64_t(on) * p.ldd + om);
        };
        // element (nl, m) of the tile: coord's inverse
        auto idx = [&](int tn, int tm) { return n_major ? tm * 16 + tn : tn * 16 + tm; };
        if (ea.gated == 0) {
          const int64_t at_c = int64_t(l) * p.batch_stride_c +
                               (n_major ? int64_t(m) * p.ldc + n : int64_t(n) * p.ldc + m);
          const float c = p.beta != 0.f ? float(C[at_c]) : 0.f;
          D[at(m, n)] = Out(epi_one(sum(i), c, m, n, ea));
        } else if (ea.gated == 1) {   // gate at even n, up at n + 1: D column n / 2
          if (nl % 2 != 0) continue;
          const float up = n + 1 < N ? sum(idx(nl + 1, m)) : 0.f;
          D[at(m, n / 2)] = Out(epi_gated_one(sum(i), up, m, n, ea));
        } else {                      // along M: gate at even m, up at m + 1: D row m / 2
          if (m % 2 != 0) continue;
          const float up = m + 1 < M ? sum(idx(nl, m + 1)) : 0.f;
          D[at(m / 2, n)] = Out(epi_gated_one(sum(i), up, m, n, ea));
        }
      }
    } else {
      for (int i = threadIdx.x; i < 16 * 16; i += 32 * NW) store(i, sum(i));
    }
    if (Q > 1 && threadIdx.x == 0) counters[tile] = 0;
  };

  // PDL: the next kernel may start its prologue; global memory is touched only once the
  // previous grid has completed.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");

  CUTE_UNROLL
  for (int j = 0; j < U; ++j) load_next(j);
  stage_a(0);
  stage_a(1);

  float acc[2][4] = {};   // (n rows g / g+8 -> n8 tile) x mma.m16n8 accumulator
  int s_in_tile = 0, tile_i = 0;
  for (int t0 = 0; t0 < total_steps; t0 += U) {
    CUTE_UNROLL
    for (int j = 0; j < U; ++j) {
      const int t = t0 + j;
      if (t >= total_steps) break;
      const int s = t % SPC;
      if (s == 0) {   // chunk t / SPC has landed (the next one may still be in flight)
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        __syncwarp();
      }
      // A fragments of both MMAs of this step: (m g / g+8) x (physical k 8q .. 8q+7).
      uint32_t a[2][4];
      if constexpr (AM) {
        // Matrix mi of MMA r: m 8 (mi % 2) .. +7 at the k pairs a[r][mi] needs; row rho of it
        // is physical k 8 (rho / 2) + 4 r + 2 (mi / 2) + rho % 2 (the permutation above).
        Tensor sA = make_tensor(make_smem_ptr(abuf + ((t / SPC) & 1) * Cfg::ABufElems),
                                typename Cfg::SmemLayoutAM{});   // (16, KCH)
        const unsigned mi = lane / 8, rho = lane % 8;
        CUTE_UNROLL
        for (unsigned r = 0; r < 2; ++r)
          ldsm_x4_trans(a[r], smem_addr(&sA(8 * (mi % 2), unsigned(32 * s) + 8 * (rho / 2) +
                                                          4 * r + 2 * (mi / 2) + rho % 2)));
      } else {
        Tensor sA = make_tensor(make_smem_ptr(abuf + ((t / SPC) & 1) * Cfg::ABufElems),
                                typename Cfg::SmemLayoutAK{});   // (16, KCH)
        const uint4 lo = *reinterpret_cast<const uint4*>(&sA(g, 32 * s + 8 * q));
        const uint4 hi = *reinterpret_cast<const uint4*>(&sA(g + 8, 32 * s + 8 * q));
        const uint32_t f[2][4] = {{lo.x, hi.x, lo.y, hi.y}, {lo.z, hi.z, lo.w, hi.w}};
        CUTE_UNROLL
        for (int r = 0; r < 2; ++r)
          CUTE_UNROLL
          for (int v = 0; v < 4; ++v) a[r][v] = f[r][v];
      }
      const uint4 x0 = rb0[j], x1 = rb1[j];
      load_next(j);
      Mma::fma(acc[0][0], acc[0][1], acc[0][2], acc[0][3], a[0][0], a[0][1], a[0][2], a[0][3],
               x0.x, x0.y, acc[0][0], acc[0][1], acc[0][2], acc[0][3]);
      Mma::fma(acc[0][0], acc[0][1], acc[0][2], acc[0][3], a[1][0], a[1][1], a[1][2], a[1][3],
               x0.z, x0.w, acc[0][0], acc[0][1], acc[0][2], acc[0][3]);
      Mma::fma(acc[1][0], acc[1][1], acc[1][2], acc[1][3], a[0][0], a[0][1], a[0][2], a[0][3],
               x1.x, x1.y, acc[1][0], acc[1][1], acc[1][2], acc[1][3]);
      Mma::fma(acc[1][0], acc[1][1], acc[1][2], acc[1][3], a[1][0], a[1][1], a[1][2], a[1][3],
               x1.z, x1.w, acc[1][0], acc[1][1], acc[1][2], acc[1][3]);
      if (s == SPC - 1) {   // every lane is done with this buffer: refill it two chunks on
        __syncwarp();
        stage_a(t / SPC + 2);
      }
      if (++s_in_tile == nsteps) {
        // Accumulator of mma.m16n8: value v is (m = g + 8 * (v / 2), n = 2q + v % 2) of its
        // n8 tile. The loads of the next tile stay in flight across the two barriers.
        CUTE_UNROLL
        for (int h = 0; h < 2; ++h)
          CUTE_UNROLL
          for (int v = 0; v < 4; ++v) {
            sRed(8 * h + 2 * q + v % 2, g + 8 * (v / 2), warp) = acc[h][v];
            acc[h][v] = 0.f;
          }
        __syncthreads();
        finish_tile(tile_at(tile_i));
        __syncthreads();   // sRed is read before any warp writes its next tile
        s_in_tile = 0;
        ++tile_i;
      }
    }
  }
  asm volatile("cp.async.wait_group 0;" ::: "memory");
}

}  // namespace skinny
}  // namespace ferrocute

#define FERROCUTE_SKINNY_TY_bf16 cute::bfloat16_t
#define FERROCUTE_SKINNY_TY_f16 cute::half_t
#define FERROCUTE_SKINNY_TY_f32 float

// ferrocute_sm90_<cfgname><epi>_<am>k_<in>_<out>: epi is empty (plain) or _epi (Epi: the
// fused epilogue, which the plain entry points trap on).
// At most 128 registers a thread (the loop's footprint): as many CTAs as the register file
// then holds, 2 of 8 warps or 4 of 4, are resident on each SM.
#define FERROCUTE_SKINNY_ENTRY(cfgname, Cfg, in, out, am, AM, epi, Epi)                      \
  extern "C" __global__ void __launch_bounds__(32 * Cfg::Warps, 16 / Cfg::Warps)         \
      ferrocute_sm90_##cfgname##epi##_##am##k_##in##_##out(const GemmParams params) {    \
    using In_ = FERROCUTE_SKINNY_TY_##in;                                                \
    using Out_ = FERROCUTE_SKINNY_TY_##out;                                              \
    if ((ferrocute::skinny::row_start_bits(params.b, params.ldb, params.batch_stride_b,   \
                                           params.k) & 15) == 0)                          \
      ferrocute::skinny::skinny_kernel<Cfg, In_, Out_, 16, AM, Epi>(params);             \
    else                                                                                  \
      ferrocute::skinny::skinny_kernel<Cfg, In_, Out_, 8, AM, Epi>(params);              \
  }

#define FERROCUTE_SKINNY_DEFINE(cfgname, Cfg, in, out)                \
  FERROCUTE_SKINNY_ENTRY(cfgname, Cfg, in, out, k, false, , false)    \
  FERROCUTE_SKINNY_ENTRY(cfgname, Cfg, in, out, m, true, , false)     \
  FERROCUTE_SKINNY_ENTRY(cfgname, Cfg, in, out, k, false, _epi, true) \
  FERROCUTE_SKINNY_ENTRY(cfgname, Cfg, in, out, m, true, _epi, true)
