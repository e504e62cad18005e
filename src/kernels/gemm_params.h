// The one parameter block every ferrocute GEMM kernel takes, passed by value.
// Mirrored by `GemmParams` in src/gemm/params.rs (#[repr(C)]): change both together.
//
// Problem (CuTe's GEMM convention, all column-major in the BLAS sense for D/C):
//   D(m,n,l) = alpha * sum_k A(m,k,l) * B(n,k,l) + beta * C(m,n,l)
//   A is (M,K), B is (N,K), C and D are (M,N) with strides (1, ldc), or (ldc, 1) where
//   d_n_major is set (a row-major C written in place; the kernels that take it: below).
//   The kernel's template parameter says which mode of A and B has unit stride:
//     K-major A:  A(m,k) = a[m*lda + k]      M-major A: A(m,k) = a[m + k*lda]
//     K-major B:  B(n,k) = b[n*ldb + k]      N-major B: B(n,k) = b[n + k*ldb]
//   Batch l adds l*batch_stride_x elements. beta == 0 means C is never read (c may be null).
//   The epilogue fields below extend this to act(...) + bias, scales and gating
//   (epilogue_ops.cuh); with gated != 0, D has half the columns (1) or rows (2) of the GEMM.
#pragma once
#include <stdint.h>

struct GemmParams {
  const void* a;
  const void* b;
  const void* c;
  void* d;
  int64_t lda;
  int64_t ldb;
  int64_t ldc;
  int64_t ldd;
  int64_t batch_stride_a;
  int64_t batch_stride_b;
  int64_t batch_stride_c;
  int64_t batch_stride_d;
  int32_t m;
  int32_t n;
  int32_t k;
  int32_t batch;
  float alpha;
  float beta;
  // Split along K across CTAs: the sm90 persistent tiles split their last tail_tiles
  // tiles into tail_splits parts, or with tail_splits < 0 run them stream-K, a run of their
  // k-blocks a CTA (sm90/tile_scheduler.cuh); the register-streaming kernel
  // (sm90_skinny.cuh) splits every tile into tail_splits parts (0 or 1: none). The parts'
  // partial sums meet in workspace: arrival counters, zero before the launch, then a f32
  // tile per part. 0 elsewhere.
  void* workspace;
  int32_t tail_tiles;
  int32_t tail_splits;
  // 1: C and D are N-major (D(m,n) = d[m*ldd + n]); sm90_skinny, sm90_splitk, the narrow
  // sm90 tiles and the `_nd` entry points of the sm90 tiles take it
  // (KernelConfig::n_major_d, KernelConfig::takes_n_major_d); every other kernel traps on it.
  int32_t d_n_major;
  // The fused epilogue (epilogue_ops.cuh): activation, a bias and a scale vector along M
  // or N (axis 0: none), their element types, where the scale applies and the gating.
  int32_t act;
  const void* bias;
  const void* scale;
  int32_t bias_axis;
  int32_t bias_type;
  int32_t scale_axis;
  int32_t scale_type;
  int32_t scale_at;
  int32_t gated;
};
