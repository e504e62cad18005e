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
//   * a CTA owns 16 rows of N; its `Warps` warps split K, each streaming its slice of those
//     16 rows with 16-byte non-coherent loads, `StepsInFlight` steps of 32 k ahead;
//   * a 16-byte load gives a lane 8 consecutive k of one row of B. mma.m16n8k16 wants the
//     k pairs {2q, 2q+1} and {2q+8, 2q+9} of lane q = lane % 4, so the reduction index is
//     permuted: logical k 2q+j and 2q+8+j of the first MMA are physical 8q+j and 8q+2+j,
//     those of the second 8q+4+j and 8q+6+j (j = 0,1). The sum over k does not care; A is
//     read with the same permutation;
//   * A (16 x K, K-major, L2-resident) is staged per warp in chunks of `KChunk` k with
//     cp.async, double-buffered and synchronised per warp only, as (m, k) with a padded
//     pitch, and read with 16-byte loads. (An M-major A, staged through registers, measured
//     slower than the split-K kernel, so it is not taken here; BENCHMARKS.md);
//   * each warp starts at a different chunk of its slice and wraps around, so that warps do
//     not all read the same columns of B at once;
//   * rows that start on 8 but not 16 bytes (K = 4100, or a view 4 columns in) are read in
//     place, B's 16-byte pieces as two 8-byte halves and A's with 8-byte copies, each
//     predicated on K: a staging copy would triple the bytes of B. A and B choose apart;
//   * the warps' (16 n, 16 m) partial tiles are summed in shared memory; no workspace, no
//     atomics, no cluster.
//
// =====================================================================================
// CONFIG SCHEMA (rendered by build.rs from src/kernel_config.rs)
// =====================================================================================
//   struct Cfg {
//     static constexpr int Warps = 8;           // K slices per CTA (threads = 32 * Warps)
//     static constexpr int StepsInFlight = 4;   // steps of 32 k loaded ahead per warp
//     static constexpr int KChunk = 128;        // k per staged A chunk (multiple of 64)
//     using SmemLayoutAK = ...;   // (16 m, KChunk k) chunk of A, row pitch = 64 (mod 128) bytes
//     using SmemLayoutRed = ...;  // (16 n, 16 m, Warps) f32 partial tiles
//     static constexpr int ABufElems = ...;      // elements of one A chunk buffer
//   };
//
// ENTRY POINTS: ferrocute_sm90_<cfgname>_kk_<in>_<out>(GemmParams): A and B K-major.
//
// LAUNCH FORMULA
//   grid  = (ceil(N / 16), 1, batch), block = (32 * Warps, 1, 1)
//   dynamic smem = Warps * 2 * ABufElems * 2 + cosize(SmemLayoutRed) * 4 (SMEM_BYTES in Rust)
//   programmatic stream serialization may be allowed (PDL): the kernel waits on
//   griddepcontrol.wait before its first global memory access.
// PRECONDITIONS: M <= 16 and K % 4 == 0 (the kernel traps otherwise); A and B 8-byte aligned
//   with lda, ldb and batch strides multiples of 4 elements (16 bytes and 8 elements, with
//   K % 8 == 0, take whole 16-byte loads). C/D: any ldc/ldd and alignment.
#pragma once

#include <cute/tensor.hpp>
#include <cute/arch/mma_sm80.hpp>

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

// 16-byte cp.async from `src`, or 16 zero bytes (reading nothing) when `!valid`.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool valid) {
  const uint32_t s = uint32_t(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(src),
               "r"(valid ? 16 : 0));
}

// 8-byte cp.async (through L1: .cg takes 16 bytes only), or 8 zero bytes when `!valid`.
__device__ __forceinline__ void cp_async_8(void* dst, const void* src, bool valid) {
  const uint32_t s = uint32_t(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(s), "l"(src),
               "r"(valid ? 8 : 0));
}

// The low bits of an operand's row starts (base, leading dimension and batch stride of a
// 16-bit operand) and of K: 16-byte pieces fit where (bits & 15) == 0.
__device__ __forceinline__ uint64_t row_start_bits(const void* base, int64_t ld, int64_t step,
                                                   int k) {
  return reinterpret_cast<uintptr_t>(base) | uint64_t(2 * (ld | step | int64_t(k)));
}

// W: the widest access every row of B allows, 16 or 8 bytes (row_start_bits).
template <class Cfg, class In, class Out, int W>
__device__ __forceinline__ void skinny_kernel(GemmParams const& p) {
  static_assert(W == 16 || W == 8, "pieces are read whole or in 8-byte halves");
  constexpr int NW = Cfg::Warps, U = Cfg::StepsInFlight, KCH = Cfg::KChunk;
  constexpr int SPC = KCH / 32;   // steps per chunk
  static_assert(KCH % 64 == 0, "KChunk must be a multiple of 64");
  static_assert(U % SPC == 0 || SPC % U == 0, "StepsInFlight and the chunk must nest");
  using Mma = typename Mma16816<In>::Op;

  extern __shared__ __align__(128) uint8_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const uint64_t a_bits = row_start_bits(p.a, p.lda, p.batch_stride_a, p.k);
  const uint64_t b_bits = row_start_bits(p.b, p.ldb, p.batch_stride_b, p.k);
  if (threadIdx.x == 0 && (blockDim.x != 32 * NW || p.m > 16 || ((a_bits | b_bits) & 7) != 0 ||
                           (b_bits & (W - 1)) != 0))
    __trap();
  const bool a_whole = (a_bits & 15) == 0;   // A's chunks in 16-byte copies

  In* abuf = reinterpret_cast<In*>(smem) + warp * 2 * Cfg::ABufElems;   // 2 chunk buffers
  Tensor sRed = make_tensor(make_smem_ptr(reinterpret_cast<float*>(
                                smem + NW * 2 * Cfg::ABufElems * int(sizeof(In)))),
                            typename Cfg::SmemLayoutRed{});   // (16 n, 16 m, NW)

  const int M = p.m, N = p.n, K = p.k, l = blockIdx.z;
  const In* A = static_cast<const In*>(p.a) + int64_t(l) * p.batch_stride_a;
  const In* B = static_cast<const In*>(p.b) + int64_t(l) * p.batch_stride_b;
  const int n0 = blockIdx.x * 16;

  // This warp's k slice [k0, k1), in chunks of KCH taken from chunk `rot` on, wrapping.
  const int kc = ((K + NW - 1) / NW + KCH - 1) / KCH * KCH;
  const int k0 = min(K, warp * kc), k1 = min(K, k0 + kc);
  const int nchunks = (k1 - k0 + KCH - 1) / KCH;
  const int nsteps = nchunks * SPC;
  const int rot = nchunks > 0 ? int((blockIdx.x * 5u + warp * 3u) % unsigned(nchunks)) : 0;
  auto chunk_k = [&](int c) {   // first k of the c-th chunk this warp processes
    c += rot;
    return k0 + (c >= nchunks ? c - nchunks : c) * KCH;
  };

  // Rows g and g + 8 of this CTA's 16 rows of B (clamped: out-of-range rows load nothing).
  const In* b0 = B + int64_t(min(n0 + g, N - 1)) * p.ldb;
  const In* b1 = B + int64_t(min(n0 + g + 8, N - 1)) * p.ldb;
  const bool v0 = n0 + g < N, v1 = n0 + g + 8 < N;

  // Stage the c-th chunk of A (k in [chunk_k(c), +KCH) ∩ [k0, k1), m < M; zeros elsewhere)
  // as (m, k) in shared memory with cp.async.
  auto stage_a = [&](int c) {
    if (c < nchunks) {
      Tensor sA = make_tensor(make_smem_ptr(abuf + (c & 1) * Cfg::ABufElems),
                              typename Cfg::SmemLayoutAK{});   // (16, KCH)
      const int kb = chunk_k(c);
      CUTE_UNROLL
      for (int i = lane; i < 16 * (KCH / 8); i += 32) {
        const int m = i / (KCH / 8), kk = 8 * (i % (KCH / 8));
        const In* src = A + int64_t(m) * p.lda + kb + kk;
        if (a_whole) {
          const bool ok = m < M && kb + kk < k1;
          cp_async_16(&sA(m, kk), ok ? src : A, ok);
        } else {
          const bool lo = m < M && kb + kk < k1, hi = m < M && kb + kk + 4 < k1;
          cp_async_8(&sA(m, kk), lo ? src : A, lo);
          cp_async_8(&sA(m, kk + 4), hi ? src + 4 : A, hi);
        }
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  uint4 rb0[U], rb1[U];   // the ring of B steps in flight: rows g and g + 8
  auto load_b = [&](int t, int j) {
    const int k = chunk_k(t / SPC) + 32 * (t % SPC) + 8 * q;
    const bool in = t < nsteps;
    rb0[j] = ld_piece<W>(b0, k, k1, in && v0);
    rb1[j] = ld_piece<W>(b1, k, k1, in && v1);
  };

  // PDL: the next kernel may start its prologue; global memory is touched only once the
  // previous grid has completed.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");

  CUTE_UNROLL
  for (int j = 0; j < U; ++j) load_b(j, j);
  stage_a(0);
  stage_a(1);

  float acc[2][4] = {};   // (n rows g / g+8 -> n8 tile) x mma.m16n8 accumulator
  for (int t0 = 0; t0 < nsteps; t0 += U) {
    CUTE_UNROLL
    for (int j = 0; j < U; ++j) {
      const int t = t0 + j;
      if (t >= nsteps) break;
      const int s = t % SPC;
      if (s == 0) {   // chunk t / SPC has landed (the next one may still be in flight)
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        __syncwarp();
      }
      // A fragments of both MMAs of this step: (m g / g+8) x (physical k 8q .. 8q+7).
      Tensor sA = make_tensor(make_smem_ptr(abuf + ((t / SPC) & 1) * Cfg::ABufElems),
                              typename Cfg::SmemLayoutAK{});   // (16, KCH)
      const uint4 lo = *reinterpret_cast<const uint4*>(&sA(g, 32 * s + 8 * q));
      const uint4 hi = *reinterpret_cast<const uint4*>(&sA(g + 8, 32 * s + 8 * q));
      const uint32_t a[2][4] = {{lo.x, hi.x, lo.y, hi.y}, {lo.z, hi.z, lo.w, hi.w}};
      const uint4 x0 = rb0[j], x1 = rb1[j];
      load_b(t + U, j);
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
    }
  }
  asm volatile("cp.async.wait_group 0;" ::: "memory");

  // Accumulator of mma.m16n8: value v is (m = g + 8 * (v / 2), n = 2q + v % 2) of its n8 tile.
  CUTE_UNROLL
  for (int h = 0; h < 2; ++h)
    CUTE_UNROLL
    for (int v = 0; v < 4; ++v) sRed(8 * h + 2 * q + v % 2, g + 8 * (v / 2), warp) = acc[h][v];
  __syncthreads();

  Out* D = static_cast<Out*>(p.d) + int64_t(l) * p.batch_stride_d;
  const Out* C = static_cast<const Out*>(p.c) + int64_t(l) * p.batch_stride_c;
  for (int i = threadIdx.x; i < 16 * 16; i += 32 * NW) {
    const int nl = i / 16, m = i % 16, n = n0 + nl;
    if (n >= N || m >= M) continue;
    float v = 0.f;
    CUTE_UNROLL
    for (int w = 0; w < NW; ++w) v += sRed(nl, m, w);
    v *= p.alpha;
    if (p.beta != 0.f) v += p.beta * float(C[int64_t(n) * p.ldc + m]);
    D[int64_t(n) * p.ldd + m] = Out(v);
  }
}

}  // namespace skinny
}  // namespace ferrocute

#define FERROCUTE_SKINNY_TY_bf16 cute::bfloat16_t
#define FERROCUTE_SKINNY_TY_f16 cute::half_t
#define FERROCUTE_SKINNY_TY_f32 float

#define FERROCUTE_SKINNY_DEFINE(cfgname, Cfg, in, out)                                    \
  extern "C" __global__ void __launch_bounds__(32 * Cfg::Warps)                          \
      ferrocute_sm90_##cfgname##_kk_##in##_##out(const GemmParams params) {              \
    using In_ = FERROCUTE_SKINNY_TY_##in;                                                \
    using Out_ = FERROCUTE_SKINNY_TY_##out;                                              \
    if ((ferrocute::skinny::row_start_bits(params.b, params.ldb, params.batch_stride_b,   \
                                           params.k) & 15) == 0)                          \
      ferrocute::skinny::skinny_kernel<Cfg, In_, Out_, 16>(params);                      \
    else                                                                                  \
      ferrocute::skinny::skinny_kernel<Cfg, In_, Out_, 8>(params);                       \
  }
