// ferrocute: Ampere-class (SM80+) GEMM kernel template, CuTe C++.
// Runs on sm_80 .. sm_90 (H100 fallback path) via PTX compiled for compute_80.
//
//   D(m,n,l) = alpha * sum_k A(m,k,l) * B(n,k,l) + beta * C(m,n,l)     (see gemm_params.h)
//
// Pipeline: cp.async (zero-fill predicated) global -> swizzled shared memory,
// `Config::Stages`-deep multistage ring, ldmatrix shared -> registers (.trans for MN-major
// operands), mma.sync m16n8k16 (bf16|f16 in, f32 accumulate), grouped (L2-friendly) tile
// rasterisation, predicated edges (any M, N, K >= 1, including K residue inside a 16-byte
// vector), batch via blockIdx.z, alpha/beta epilogue (beta == 0 never reads C), output
// bf16 | f16 | f32. C has the same element type as D.
//
// Preconditions of this fast path (the host only dispatches here when they hold), with
// V = Config::GmemVec (8, 4, 2 or 1):
//   * lda, ldb (and every batch_stride_a/b) are multiples of V elements and a, b are 2V-byte
//     aligned: every V-element piece along the contiguous mode is 2V-byte aligned. V = 8
//     copies with 16-byte cp.async.cg, V = 4 / 2 with 8- / 4-byte cp.async.ca, and V = 1
//     (any leading dimension, e.g. an odd vocabulary size) with 2-byte loads and 16-byte
//     shared stores, which the thread waits for: the fallback for unaligned operands.
//   * C/D: no alignment requirement (scalar, predicated stores).
//   * m, n, k >= 1; batch >= 1.
//
// =====================================================================================
// Config schema (the template parameter `Cfg`; every member is required).
// All layout members are plain concrete CuTe types: either
//   cute::Layout<cute::Shape<...>, cute::Stride<...>>  or
//   cute::ComposedLayout<cute::Swizzle<B,M,S>, cute::C<0>, cute::Layout<...>>.
//
//   using TileShape = cute::Shape<cute::Int<BM>, cute::Int<BN>, cute::Int<BK>>;
//       CTA tile. BM, BN multiples of the MMA permutation tile; BK multiple of 16.
//   static constexpr int Stages;          // smem pipeline depth, >= 3
//   static constexpr int GmemVec;         // elements per global read: 8, 4, 2 or 1
//   static constexpr int Threads;         // threads per CTA == 32 * size(MmaAtomLayout)
//   static constexpr int RasterGroup;     // grouped rasterisation: # of M-tiles per group (>=1)
//   using MmaAtomLayout  = cute::Layout<cute::Shape<WM,WN,_1>, ...>;   // warps over (M,N,K)
//   using MmaPermutation = cute::Tile<cute::Int<PM>, cute::Int<PN>, cute::Int<PK>>;
//       e.g. Tile<_32,_32,_16> for a 2x2 warp layout (N doubled so ldmatrix.x4 feeds B).
//
//   Shared-memory layouts, shape (BM,BK,Stages) for A and (BN,BK,Stages) for B.
//   Element (x,k,s) -> element offset. 8 consecutive elements along the contiguous mode
//   (K for *_K, M/N for *_M/*_N) must stay contiguous and 16-byte aligned (swizzle M >= 3):
//   using SmemLayoutA_K;   // A K-major  (e.g. Swizzle<2,3,3> o (8,32):(32,1) tiled)
//   using SmemLayoutA_M;   // A M-major  (e.g. Swizzle<3,3,3> o (64,8):(1,64) tiled)
//   using SmemLayoutB_K;   // B K-major
//   using SmemLayoutB_N;   // B N-major
//   cosize(SmemLayoutA_K) == cosize(SmemLayoutA_M) == BM*BK*Stages (likewise B).
//
//   Global->shared copy partitioning (thread layout x value layout over the (BM,BK) or
//   (BN,BK) tile). The value layout must be exactly 8 elements along the contiguous mode:
//   using GmemCopyThrLayoutA_K;  // e.g. Layout<Shape<_32,_4>,Stride<_4,_1>>  (BK=32)
//   using GmemCopyValLayoutA_K;  // Layout<Shape<_1,_8>>
//   using GmemCopyThrLayoutA_M;  // e.g. Layout<Shape<_16,_8>,Stride<_1,_16>>
//   using GmemCopyValLayoutA_M;  // Layout<Shape<_8,_1>>
//   using GmemCopyThrLayoutB_K;  using GmemCopyValLayoutB_K;
//   using GmemCopyThrLayoutB_N;  using GmemCopyValLayoutB_N;
//   size(thread layout) == Threads.
//
// Picked by the kernel (not in the Config):
//   MMA atom  SM80_16x8x16_F32BF16BF16F32_TN | SM80_16x8x16_F32F16F16F32_TN (from element type)
//   ldmatrix  SM75_U32x4_LDSM_N for K-major operands, SM75_U16x8_LDSM_T for M/N-major.
//   cp.async  cp.async.cg 16 B (.ca 8 / 4 B for GmemVec 4 / 2) with src-size (zero-fill)
//             predication; GmemVec 1, and a piece that would read past the operand's last
//             element, use 2-byte ld.global.nc and shared stores.
//
// Dynamic shared memory = (BM + BN) * BK * Stages * sizeof(element) bytes (see smem_bytes()).
// =====================================================================================
#pragma once

#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include "epilogue_ops.cuh"
#include "gemm_params.h"

namespace ferrocute {

template <class T> struct Sm80MmaOp;
template <> struct Sm80MmaOp<cute::bfloat16_t> { using type = cute::SM80_16x8x16_F32BF16BF16F32_TN; };
template <> struct Sm80MmaOp<cute::half_t>     { using type = cute::SM80_16x8x16_F32F16F16F32_TN; };

// K-major operand in smem -> plain ldmatrix; MN-major -> ldmatrix.trans.
template <bool KMajor> struct Sm80LdsmOp        { using type = cute::SM75_U32x4_LDSM_N; };
template <>            struct Sm80LdsmOp<false> { using type = cute::SM75_U16x8_LDSM_T; };

template <bool AKMajor, class Cfg> struct Sm80OperandA {
  using Smem = typename Cfg::SmemLayoutA_K;
  using Thr  = typename Cfg::GmemCopyThrLayoutA_K;
  using Val  = typename Cfg::GmemCopyValLayoutA_K;
};
template <class Cfg> struct Sm80OperandA<false, Cfg> {
  using Smem = typename Cfg::SmemLayoutA_M;
  using Thr  = typename Cfg::GmemCopyThrLayoutA_M;
  using Val  = typename Cfg::GmemCopyValLayoutA_M;
};
template <bool BKMajor, class Cfg> struct Sm80OperandB {
  using Smem = typename Cfg::SmemLayoutB_K;
  using Thr  = typename Cfg::GmemCopyThrLayoutB_K;
  using Val  = typename Cfg::GmemCopyValLayoutB_K;
};
template <class Cfg> struct Sm80OperandB<false, Cfg> {
  using Smem = typename Cfg::SmemLayoutB_N;
  using Thr  = typename Cfg::GmemCopyThrLayoutB_N;
  using Val  = typename Cfg::GmemCopyValLayoutB_N;
};

template <class Cfg>
constexpr int smem_bytes(int elem_bytes) {
  using namespace cute;
  constexpr int bm = size<0>(typename Cfg::TileShape{});
  constexpr int bn = size<1>(typename Cfg::TileShape{});
  constexpr int bk = size<2>(typename Cfg::TileShape{});
  return (bm + bn) * bk * Cfg::Stages * elem_bytes;
}

// Bytes-wide cp.async (16: .cg, bypassing L1; 8 or 4: .ca, the only form that takes them)
// copying src_bytes bytes and zero-filling the rest; issued only when `pred` holds.
template <int Bytes>
__device__ __forceinline__ void cp_async_zfill(void* smem_dst, void const* gmem_src, int src_bytes,
                                               bool pred) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem_dst));
  if constexpr (Bytes == 16)
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %3, 0;\n"
                 " @p cp.async.cg.shared.global [%0], [%1], 16, %2;\n}\n"
                 :: "r"(s), "l"(gmem_src), "r"(src_bytes), "r"(int(pred)));
  else
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
                 " @p cp.async.ca.shared.global [%0], [%1], %2, %3;\n}\n"
                 :: "r"(s), "l"(gmem_src), "n"(Bytes), "r"(src_bytes), "r"(int(pred)));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N)); }

// Issue one BMxBK (or BNxBK) tile: per 8-element vector along the contiguous mode, the
// first n_valid elements from global memory and zeros for the rest, in Vec-element pieces.
//   tG: (CPY, CPY_X, CPY_K) gmem view, tS: same shape smem view, tC: identity coords.
//   ContigIsX: the contiguous mode of the global operand is X (M or N) rather than K.
//   end: one past the operand's last element in memory. A piece cut by the operand's edge
//   is copied with a shorter source (zero fill), which reads its whole width; where that
//   width would pass `end` (the allocation may end there; only the operand's last piece can)
//   it is read element by element instead, after the asynchronous copies.
template <bool ContigIsX, int Vec, class TG, class TS, class TC, class T>
__device__ __forceinline__ void issue_tile(TG const& tG, TS& tS, TC const& tC,
                                           int ext_x, int ext_k, T const* base, T const* end) {
  using namespace cute;
  static_assert(Vec == 8 || Vec == 4 || Vec == 2 || Vec == 1, "GmemVec must be 8, 4, 2 or 1");
  constexpr int I = decltype(size<1>(tS))::value, J = decltype(size<2>(tS))::value;
  int n_valid[I][J];
  CUTE_UNROLL
  for (int i = 0; i < I; ++i) {
    CUTE_UNROLL
    for (int j = 0; j < J; ++j) {
      auto c = tC(0, i, j);
      int x = get<0>(c), k = get<1>(c);
      int n;
      if constexpr (ContigIsX) n = (k < ext_k) ? (ext_x - x) : 0;
      else                     n = (x < ext_x) ? (ext_k - k) : 0;
      n_valid[i][j] = n < 0 ? 0 : (n > 8 ? 8 : n);
    }
  }
  if constexpr (Vec == 1) {
    // 2-byte aligned operands: all loads first, then the 16-byte shared stores, so the
    // thread waits for global memory once per tile.
    uint4 v[I][J];
    CUTE_UNROLL
    for (int i = 0; i < I; ++i) {
      CUTE_UNROLL
      for (int j = 0; j < J; ++j) {
        uint16_t e[8];
        const uint16_t* src = reinterpret_cast<const uint16_t*>(&tG(0, i, j));
        CUTE_UNROLL
        for (int q = 0; q < 8; ++q) e[q] = q < n_valid[i][j] ? __ldg(src + q) : uint16_t(0);
        v[i][j] = make_uint4(e[0] | (uint32_t(e[1]) << 16), e[2] | (uint32_t(e[3]) << 16),
                             e[4] | (uint32_t(e[5]) << 16), e[6] | (uint32_t(e[7]) << 16));
      }
    }
    CUTE_UNROLL
    for (int i = 0; i < I; ++i) {
      CUTE_UNROLL
      for (int j = 0; j < J; ++j) *reinterpret_cast<uint4*>(&tS(0, i, j)) = v[i][j];
    }
  } else {
    constexpr int kBytes = Vec * int(sizeof(T));
    bool any_past_end = false;
    CUTE_UNROLL
    for (int i = 0; i < I; ++i) {
      CUTE_UNROLL
      for (int j = 0; j < J; ++j) {
        T const* src = n_valid[i][j] > 0 ? &tG(0, i, j) : base;
        CUTE_UNROLL
        for (int q = 0; q < 8; q += Vec) {
          const int n = min(max(n_valid[i][j] - q, 0), Vec);
          const bool past_end = n > 0 && src + q + Vec > end;
          any_past_end |= past_end;
          cp_async_zfill<kBytes>(&tS(0, i, j) + q, n > 0 ? src + q : src, n * int(sizeof(T)),
                                 !past_end);
        }
      }
    }
    if (any_past_end) {
      CUTE_UNROLL
      for (int i = 0; i < I; ++i) {
        CUTE_UNROLL
        for (int j = 0; j < J; ++j) {
          CUTE_UNROLL
          for (int q = 0; q < 8; q += Vec) {
            const int n = min(max(n_valid[i][j] - q, 0), Vec);
            const uint16_t* e = reinterpret_cast<const uint16_t*>(&tG(0, i, j) + q);
            if (n > 0 && reinterpret_cast<T const*>(e) + Vec > end) {
              uint16_t* d = reinterpret_cast<uint16_t*>(&tS(0, i, j) + q);
              CUTE_UNROLL
              for (int r = 0; r < Vec; ++r) d[r] = r < n ? __ldg(e + r) : uint16_t(0);
            }
          }
        }
      }
    }
  }
}

template <class Cfg, bool AKMajor, bool BKMajor, class TIn, class TOut>
__device__ __forceinline__ void sm80_gemm_device(GemmParams const& p) {
  using namespace cute;
  using TileShape = typename Cfg::TileShape;
  constexpr int BM = size<0>(TileShape{});
  constexpr int BN = size<1>(TileShape{});
  constexpr int BK = size<2>(TileShape{});
  constexpr int STAGES = Cfg::Stages;
  static_assert(STAGES >= 3, "multistage pipeline needs >= 3 stages");
  static_assert(BK % 16 == 0, "BK must be a multiple of 16");

  using OpA = Sm80OperandA<AKMajor, Cfg>;
  using OpB = Sm80OperandB<BKMajor, Cfg>;
  using SmemLayoutA = typename OpA::Smem;
  using SmemLayoutB = typename OpB::Smem;
  static_assert(size<0>(SmemLayoutA{}) == BM && size<1>(SmemLayoutA{}) == BK && size<2>(SmemLayoutA{}) == STAGES);
  static_assert(size<0>(SmemLayoutB{}) == BN && size<1>(SmemLayoutB{}) == BK && size<2>(SmemLayoutB{}) == STAGES);

  using GCopyAtom = Copy_Atom<UniversalCopy<uint128_t>, TIn>;   // used for partitioning only
  auto gcopy_a = make_tiled_copy(GCopyAtom{}, typename OpA::Thr{}, typename OpA::Val{});
  auto gcopy_b = make_tiled_copy(GCopyAtom{}, typename OpB::Thr{}, typename OpB::Val{});
  static_assert(size(decltype(gcopy_a){}) == Cfg::Threads && size(decltype(gcopy_b){}) == Cfg::Threads);

  using TiledMma = TiledMMA<MMA_Atom<typename Sm80MmaOp<TIn>::type>,
                            typename Cfg::MmaAtomLayout, typename Cfg::MmaPermutation>;
  TiledMma mma;
  static_assert(size(TiledMma{}) == Cfg::Threads);

  auto s2r_atom_a = Copy_Atom<typename Sm80LdsmOp<AKMajor>::type, TIn>{};
  auto s2r_atom_b = Copy_Atom<typename Sm80LdsmOp<BKMajor>::type, TIn>{};

  const int M = p.m, N = p.n, K = p.k;
  const int tid = threadIdx.x;

  // ---- grouped tile rasterisation (grid.x = tiles_m * tiles_n) ----
  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  int m_blk, n_blk;
  {
    const int pid = blockIdx.x;
    const int per_group = Cfg::RasterGroup * tiles_n;
    const int group = pid / per_group;
    const int first_m = group * Cfg::RasterGroup;
    const int rem = tiles_m - first_m;
    const int gsz = rem < Cfg::RasterGroup ? rem : Cfg::RasterGroup;
    const int in_group = pid - group * per_group;
    m_blk = first_m + in_group % gsz;
    n_blk = in_group / gsz;
  }
  if (m_blk >= tiles_m || n_blk >= tiles_n) return;

  const int64_t l = blockIdx.z;
  TIn const* ptr_a = static_cast<TIn const*>(p.a) + l * p.batch_stride_a;
  TIn const* ptr_b = static_cast<TIn const*>(p.b) + l * p.batch_stride_b;

  // ---- global tensors ----
  auto stride_a = [&] {
    if constexpr (AKMajor) return make_stride(p.lda, Int<1>{});
    else                   return make_stride(Int<1>{}, p.lda);
  }();
  auto stride_b = [&] {
    if constexpr (BKMajor) return make_stride(p.ldb, Int<1>{});
    else                   return make_stride(Int<1>{}, p.ldb);
  }();
  Tensor mA = make_tensor(make_gmem_ptr(ptr_a), make_shape(M, K), stride_a);   // (M,K)
  Tensor mB = make_tensor(make_gmem_ptr(ptr_b), make_shape(N, K), stride_b);   // (N,K)
  Tensor cA = make_identity_tensor(make_shape(M, K));
  Tensor cB = make_identity_tensor(make_shape(N, K));

  auto tile_mk = make_shape(Int<BM>{}, Int<BK>{});
  auto tile_nk = make_shape(Int<BN>{}, Int<BK>{});
  Tensor gA = local_tile(mA, tile_mk, make_coord(m_blk, _));   // (BM,BK,k)
  Tensor gB = local_tile(mB, tile_nk, make_coord(n_blk, _));   // (BN,BK,k)
  Tensor gcA = local_tile(cA, tile_mk, make_coord(m_blk, _));
  Tensor gcB = local_tile(cB, tile_nk, make_coord(n_blk, _));

  // ---- shared memory ----
  extern __shared__ __align__(128) unsigned char fc_smem[];
  TIn* smem_a = reinterpret_cast<TIn*>(fc_smem);
  TIn* smem_b = smem_a + cosize(SmemLayoutA{});
  Tensor sA = make_tensor(make_smem_ptr(smem_a), SmemLayoutA{});   // (BM,BK,STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem_b), SmemLayoutB{});   // (BN,BK,STAGES)

  // ---- gmem -> smem partitions ----
  auto thr_ga = gcopy_a.get_slice(tid);
  Tensor tAgA = thr_ga.partition_S(gA);    // (CPY,CPY_M,CPY_K,k)
  Tensor tAcA = thr_ga.partition_S(gcA);
  Tensor tAsA = thr_ga.partition_D(sA);    // (CPY,CPY_M,CPY_K,STAGES)
  auto thr_gb = gcopy_b.get_slice(tid);
  Tensor tBgB = thr_gb.partition_S(gB);
  Tensor tBcB = thr_gb.partition_S(gcB);
  Tensor tBsB = thr_gb.partition_D(sB);
  CUTE_STATIC_ASSERT_V(size<0>(tAsA) == Int<8>{});
  CUTE_STATIC_ASSERT_V(size<0>(tBsB) == Int<8>{});

  const int k_tiles = (K + BK - 1) / BK;
  // One past each operand's last element of this batch (a piece may not read beyond it).
  TIn const* end_a = ptr_a + (AKMajor ? int64_t(M - 1) * p.lda + K : int64_t(K - 1) * p.lda + M);
  TIn const* end_b = ptr_b + (BKMajor ? int64_t(N - 1) * p.ldb + K : int64_t(K - 1) * p.ldb + N);
  auto load_stage = [&](int kt, int stage) {
    Tensor dA = tAsA(_, _, _, stage);
    Tensor dB = tBsB(_, _, _, stage);
    issue_tile<!AKMajor, Cfg::GmemVec>(tAgA(_, _, _, kt), dA, tAcA(_, _, _, kt), M, K, ptr_a, end_a);
    issue_tile<!BKMajor, Cfg::GmemVec>(tBgB(_, _, _, kt), dB, tBcB(_, _, _, kt), N, K, ptr_b, end_b);
  };

  // ---- prologue: fill STAGES-1 stages ----
  CUTE_UNROLL
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_commit();
  }

  // ---- MMA partitions ----
  auto thr_mma = mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));   // (MMA,MMA_M,MMA_K)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));   // (MMA,MMA_N,MMA_K)
  Tensor acc = partition_fragment_C(mma, Shape<Int<BM>, Int<BN>>{});   // (MMA,MMA_M,MMA_N) f32
  clear(acc);

  auto s2r_a = make_tiled_copy_A(s2r_atom_a, mma);
  auto s2r_thr_a = s2r_a.get_slice(tid);
  Tensor tXsA = s2r_thr_a.partition_S(sA);    // (CPY,MMA_M,MMA_K,STAGES)
  Tensor tXrA = s2r_thr_a.retile_D(tCrA);
  auto s2r_b = make_tiled_copy_B(s2r_atom_b, mma);
  auto s2r_thr_b = s2r_b.get_slice(tid);
  Tensor tXsB = s2r_thr_b.partition_S(sB);
  Tensor tXrB = s2r_thr_b.retile_D(tCrB);

  constexpr int KB = size<2>(decltype(tCrA){});   // k-blocks (of 16) per BK tile

  int read_stage = 0;
  int write_stage = STAGES - 1;
  int next_tile = STAGES - 1;

  cp_async_wait<STAGES - 2>();
  __syncthreads();
  copy(s2r_atom_a, tXsA(_, _, Int<0>{}, read_stage), tXrA(_, _, Int<0>{}));
  copy(s2r_atom_b, tXsB(_, _, Int<0>{}, read_stage), tXrB(_, _, Int<0>{}));

  // ---- main loop ----
  CUTE_NO_UNROLL
  for (int kt = 0; kt < k_tiles; ++kt) {
    CUTE_UNROLL
    for (int kb = 0; kb < KB; ++kb) {
      if (kb == KB - 1) {
        // Next tile's stage must be resident before we prefetch its first k-block.
        read_stage = (read_stage + 1 == STAGES) ? 0 : read_stage + 1;
        cp_async_wait<STAGES - 2>();
        __syncthreads();
      }
      const int kb_next = (kb + 1) % KB;
      copy(s2r_atom_a, tXsA(_, _, kb_next, read_stage), tXrA(_, _, kb_next));
      copy(s2r_atom_b, tXsB(_, _, kb_next, read_stage), tXrB(_, _, kb_next));
      if (kb == 0) {
        // Refill the stage consumed by the previous tile (all threads passed the barrier).
        if (next_tile < k_tiles) load_stage(next_tile, write_stage);
        cp_async_commit();
        ++next_tile;
        write_stage = (write_stage + 1 == STAGES) ? 0 : write_stage + 1;
      }
      gemm(mma, tCrA(_, _, kb), tCrB(_, _, kb), acc);
    }
  }
  cp_async_wait<0>();

  // ---- epilogue: D = alpha*acc + beta*C or the fused one (epilogue_ops.cuh), predicated
  // scalar stores. A gated pair along N is the atom's values v0 = 0, 1 (columns 2q, 2q + 1:
  // fragment elements i, i + 1 for even i); along M the rows lane/4 and lane/4 + 1, lanes
  // t and t ^ 4 (the atom's 16 rows start at even rows of D).
  TOut* ptr_d = static_cast<TOut*>(p.d) + l * p.batch_stride_d;
  Tensor mD = make_tensor(make_gmem_ptr(ptr_d), make_shape(M, N), make_stride(Int<1>{}, p.ldd));
  Tensor cD = make_identity_tensor(make_shape(M, N));
  auto tile_mn = make_shape(Int<BM>{}, Int<BN>{});
  Tensor gD  = local_tile(mD, tile_mn, make_coord(m_blk, n_blk));
  Tensor gcD = local_tile(cD, tile_mn, make_coord(m_blk, n_blk));
  Tensor tCgD = thr_mma.partition_C(gD);
  Tensor tCcD = thr_mma.partition_C(gcD);
  const float alpha = p.alpha, beta = p.beta;
  // C is read only where beta != 0 (null otherwise).
  TOut const* ptr_c = static_cast<TOut const*>(beta != 0.0f ? p.c : p.d) + l * p.batch_stride_c;
  Tensor mC = make_tensor(make_gmem_ptr(ptr_c), make_shape(M, N), make_stride(Int<1>{}, p.ldc));
  Tensor tCgC = thr_mma.partition_C(local_tile(mC, tile_mn, make_coord(m_blk, n_blk)));
  if (!epi_active(p)) {
    CUTE_UNROLL
    for (int i = 0; i < size(acc); ++i) {
      auto c = tCcD(i);
      if (get<0>(c) < M && get<1>(c) < N)
        tCgD(i) = TOut(alpha * acc(i) + (beta != 0.0f ? beta * float(tCgC(i)) : 0.f));
    }
    return;
  }
  // The fused epilogue from one rolled loop over the thread's elements (their values, the
  // gated partner along M from lane ^ 4, and their coordinates listed first).
  constexpr int kVals = decltype(size(acc))::value;
  float val[kVals], up[kVals];
  int rows[kVals], cols[kVals];
  CUTE_UNROLL
  for (int i = 0; i < kVals; ++i) {
    val[i] = acc(i);
    up[i] = __shfl_xor_sync(0xffffffffu, acc(i), 4);
    rows[i] = get<0>(tCcD(i));
    cols[i] = get<1>(tCcD(i));
  }
  const bool gate_rows = (threadIdx.x % 32 / 4) % 2 == 0;   // lanes holding a pair's gate
  const EpiArgs ea = epi_args(p);
#pragma unroll 1
  for (int i = 0; i < kVals; ++i) {
    const int gm = rows[i], gn = cols[i];
    if (gm >= M || gn >= N) continue;
    if (p.gated == 2) {
      if (gate_rows) ptr_d[gm / 2 + int64_t(gn) * p.ldd] = TOut(epi_gated_one(val[i], up[i], gm, gn, ea));
    } else if (p.gated == 1) {
      if (i % 2 == 0) ptr_d[gm + int64_t(gn / 2) * p.ldd] = TOut(epi_gated_one(val[i], val[i + 1], gm, gn, ea));
    } else {
      const float cv = beta != 0.0f ? float(ptr_c[gm + int64_t(gn) * p.ldc]) : 0.f;
      ptr_d[gm + int64_t(gn) * p.ldd] = TOut(epi_one(val[i], cv, gm, gn, ea));
    }
  }
}

// =====================================================================================
// Simple fallback: any strides / alignment. 64x64 CTA tile, 16-deep K slab in smem (f32),
// 256 threads, 4x4 outputs per thread (rows and columns in adjacent pairs, so that a gated
// epilogue finds both halves of a pair in its own registers), f32 accumulate. Launch: grid
// (ceil(M/64), ceil(N/64), batch), block 256, no dynamic smem.
// =====================================================================================
template <bool AKMajor, bool BKMajor, class TIn, class TOut>
__device__ __forceinline__ void gemm_simple_device(GemmParams const& p) {
  constexpr int T = 64, TK = 16;
  __shared__ float sa[TK][T + 4];
  __shared__ float sb[TK][T + 4];
  const int M = p.m, N = p.n, K = p.k;
  const int64_t l = blockIdx.z;
  TIn const* A = static_cast<TIn const*>(p.a) + l * p.batch_stride_a;
  TIn const* B = static_cast<TIn const*>(p.b) + l * p.batch_stride_b;
  const int m0 = blockIdx.x * T, n0 = blockIdx.y * T;
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  // The thread's rows 32*(i/2) + 2*tx + i%2, columns 32*(j/2) + 2*ty + j%2 of the tile.
  auto own = [](int t, int i) { return 32 * (i / 2) + 2 * t + i % 2; };
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += TK) {
    // 64*16 = 1024 elements per operand, 4 per thread.
    for (int e = tid; e < T * TK; e += 256) {
      int x, kk;
      // Make the faster-varying index follow the contiguous global mode.
      if constexpr (AKMajor) { kk = e % TK; x = e / TK; } else { x = e % T; kk = e / T; }
      int gm = m0 + x, gk = k0 + kk;
      float v = 0.f;
      if (gm < M && gk < K)
        v = float(AKMajor ? A[int64_t(gm) * p.lda + gk] : A[gm + int64_t(gk) * p.lda]);
      sa[kk][x] = v;
      if constexpr (BKMajor) { kk = e % TK; x = e / TK; } else { x = e % T; kk = e / T; }
      int gn = n0 + x; gk = k0 + kk;
      v = 0.f;
      if (gn < N && gk < K)
        v = float(BKMajor ? B[int64_t(gn) * p.ldb + gk] : B[gn + int64_t(gk) * p.ldb]);
      sb[kk][x] = v;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TK; ++kk) {
      float ra[4], rb[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) { ra[i] = sa[kk][own(tx, i)]; rb[i] = sb[kk][own(ty, i)]; }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
  TOut* D = static_cast<TOut*>(p.d) + l * p.batch_stride_d;
  TOut const* C = p.beta != 0.0f ? static_cast<TOut const*>(p.c) + l * p.batch_stride_c : nullptr;
  if (epi_active(p)) {
    // The fused epilogue from one rolled loop (its code once), over a copy of the outputs.
    const EpiArgs ea = epi_args(p);
    float v[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) v[i][j] = acc[i][j];
#pragma unroll 1
    for (int ij = 0; ij < 16; ++ij) {
      const int i = ij / 4, j = ij % 4;
      const int gm = m0 + own(tx, i), gn = n0 + own(ty, j);
      if (gm >= M || gn >= N) continue;
      if (p.gated == 1) {
        if (j % 2 == 0) D[gm + int64_t(gn / 2) * p.ldd] = TOut(epi_gated_one(v[i][j], v[i][j + 1], gm, gn, ea));
      } else if (p.gated == 2) {
        if (i % 2 == 0) D[gm / 2 + int64_t(gn) * p.ldd] = TOut(epi_gated_one(v[i][j], v[i + 1][j], gm, gn, ea));
      } else {
        const float c = C ? float(C[gm + int64_t(gn) * p.ldc]) : 0.f;
        D[gm + int64_t(gn) * p.ldd] = TOut(epi_one(v[i][j], c, gm, gn, ea));
      }
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int gm = m0 + own(tx, i), gn = n0 + own(ty, j);
      if (gm < M && gn < N) {
        float v = p.alpha * acc[i][j];
        if (C) v += p.beta * float(C[gm + int64_t(gn) * p.ldc]);
        D[gm + int64_t(gn) * p.ldd] = TOut(v);
      }
    }
}

}  // namespace ferrocute
