// ferrocute: Hopper (sm_90a) bf16/f16 GEMM, TMA + WGMMA, warp-specialized, persistent.
//
// Schedules: Schedule = 0 cooperative (both consumer warpgroups on one 128-row tile);
// Schedule = 1 pingpong (each consumer warpgroup owns whole tiles, alternate tiles, one WG's
// epilogue overlapping the other's mainloop); Schedule = 2 cooperative with a staged
// epilogue (for beta = 0 and a 16-bit D the consumers leave the tile in shared memory and
// start the next one while the TMA, or where M % 8 != 0 warps 1-3 of the producer
// warpgroup, store it).
// For beta = 0, a 16-bit D and M % 8 == 0 every schedule stores D by TMA (tma_d) from
// 128-byte-swizzled shared memory.
// ClusterShape (2,1,1): M-adjacent tiles of a cluster share their B tile, each CTA loading
// half of it by TMA multicast.
//
// Computes (gemm_params.h convention)  D(m,n,l) = alpha * sum_k A(m,k,l) B(n,k,l) + beta * C(m,n,l)
// with f32 accumulation.  C has the same element type as D.  beta == 0 never reads C.
//
// =====================================================================================
// CONFIG SCHEMA (a plain struct; see sm90_example_configs.h for concrete examples)
// =====================================================================================
//   struct Cfg {
//     using TileShape    = cute::Shape<cute::Int<BM>, cute::Int<BN>, cute::Int<BK>>;
//                          // CTA tile.  Cooperative: BM = 128 (2 consumer warpgroups x 64 rows),
//                          // BN in {64,...,256} multiple of 64 (one WGMMA m64nBNk16 per WG per k16),
//                          // BK multiple of 64 (64 16-bit elements = one 128-byte swizzle row).
//     using ClusterShape = cute::Shape<cute::Int<CM>, cute::Int<1>, cute::Int<1>>;  // CM = 1 or 2
//     static constexpr int Stages = 4;        // smem pipeline depth (A+B tile per stage)
//     using SmemLayoutAtomK  = cute::ComposedLayout<cute::Swizzle<3,4,3>, cute::smem_ptr_flag_bits<16>,
//                                cute::Layout<cute::Shape<cute::Int<8>,cute::Int<64>>,
//                                             cute::Stride<cute::Int<64>,cute::Int<1>>>>;
//                          // smem atom for a K-major operand (== GMMA::Layout_K_SW128_Atom<16-bit>)
//     using SmemLayoutAtomMN = cute::ComposedLayout<cute::Swizzle<3,4,3>, cute::smem_ptr_flag_bits<16>,
//                                cute::Layout<cute::Shape<cute::Int<64>,cute::Int<8>>,
//                                             cute::Stride<cute::Int<1>,cute::Int<64>>>>;
//                          // smem atom for an M/N-major operand (== GMMA::Layout_MN_SW128_Atom<16-bit>)
//                          // Only the 128B-swizzle atoms are accepted (static_assert): the tensor-map
//                          // contract below fixes CU_TENSOR_MAP_SWIZZLE_128B.
//     static constexpr int RasterGroup = 8;   // grouped raster: tiles are walked M-first inside
//                                             // groups of RasterGroup M-tiles (L2 reuse of B)
//     static constexpr int EpiN = 32;         // epilogue staging chunk width (columns of D), mult of 8
//     static constexpr int Schedule = 0;      // 0 = cooperative: BM = 128, the 2 consumer WGs
//                                             //     split each tile (64 rows each)
//                                             // 1 = pingpong: BM in {64,128}; each consumer WG
//                                             //     owns whole tiles (alternate tiles), BM*BN <=
//                                             //     24576 or BM=64,BN=256; epilogue of one WG
//                                             //     overlaps the mainloop of the other
//                                             // 2 = cooperative, staged epilogue: as 0, plus
//                                             //     BM*BN*2/StageParts + 8*32 bytes of staging
//     static constexpr int StageParts = 1;    // optional, Schedule 2 only: 1, or 2 to stage the
//                                             // tile in two column halves (half the smem)
//   };
//
// =====================================================================================
// ENTRY POINTS
// =====================================================================================
//   extern "C" __global__ void ferrocute_sm90_<cfg>_<am><bm>_<in>_<out>(
//       GemmParams params,                               // param 0, by value (gemm_params.h)
//       const __grid_constant__ CUtensorMap tma_a,       // param 1, 128 B, 64-B aligned
//       const __grid_constant__ CUtensorMap tma_b,       // param 2
//       const __grid_constant__ CUtensorMap tma_d);      // param 3 (D; see below)
//   am in {k,m}: A K-major / M-major;  bm in {k,n}: B K-major / N-major;
//   in in {bf16,f16} (A and B); out in {bf16,f16,f32} (D and C).
//   e.g. ferrocute_sm90_128x256x64_s4_coop_kk_bf16_bf16
//
// =====================================================================================
// TENSOR-MAP CONTRACT (host side: cuTensorMapEncodeTiled, rank 3)
// =====================================================================================
//   common: dataType   = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 (in=bf16) / _FLOAT16 (in=f16)
//           rank       = 3, elementStrides = {1,1,1}
//           interleave = CU_TENSOR_MAP_INTERLEAVE_NONE
//           swizzle    = CU_TENSOR_MAP_SWIZZLE_128B
//           l2Promotion= CU_TENSOR_MAP_L2_PROMOTION_L2_256B
//           oobFill    = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE   (zero fill: required for M/N/K residues)
//           globalAddress = params.a / params.b (must be 16-byte aligned)
//   globalStrides (bytes, dims 1 and 2 only): {ld*2, batch_stride*2}; each must be a multiple
//           of 16 (=> lda, ldb, batch strides multiples of 8 elements).  If batch == 1 (or the batch
//           stride is 0) pass batch_stride*2 := ld*2*globalDim[1] instead (any legal value works,
//           coordinate 2 is always 0).  Broadcast batches (stride 0, batch > 1) are not supported.
//   A K-major (am=k): globalDim = {K, M, batch}, globalStrides = {lda*2, batch_stride_a*2},
//                     boxDim = {64, BM, 1}
//   A M-major (am=m): globalDim = {M, K, batch}, globalStrides = {lda*2, batch_stride_a*2},
//                     boxDim = {64, BK, 1}
//   B K-major (bm=k): globalDim = {K, N, batch}, globalStrides = {ldb*2, batch_stride_b*2},
//                     boxDim = {64, BN/CM, 1}   (each CTA of a cluster loads BN/CM rows)
//   B N-major (bm=n): globalDim = {N, K, batch}, globalStrides = {ldb*2, batch_stride_b*2},
//                     boxDim = {64, BK, 1}
//   D (tma_d; encoded where D is 16-bit, its base 16-byte aligned, ldd % 8 == 0, batch == 1
//             or batch_stride_d % 8 == 0, and M % 8 == 0; else any value, e.g. zeroes: the
//             kernel reads it only when beta == 0 as well):
//                     globalDim = {M, N, batch}, globalStrides = {ldd*2, batch_stride_d*2},
//                     boxDim = {64, 64, 1}
//   (64 = 128 bytes of 16-bit elements = the SW128 row; the kernel issues BK/64 (K-major) or
//    BM/64 resp. BN/64 (MN-major) boxes per operand per stage.)
//   Shapes whose ld/batch stride/base are not 16-byte aligned cannot use this kernel (TMA rule);
//   route them elsewhere.  D and C have no such restriction (the epilogue falls back to scalar
//   accesses when ldd/ldc/pointers are not 16-byte aligned).
//
// =====================================================================================
// LAUNCH FORMULA
// =====================================================================================
//   tiles     = ceil(M/BM) * ceil(N/BN) * batch
//   grid      = (min(tiles, numSMs), 1, 1)      persistent; any grid.x >= 1 is correct
//               with CM = 2: (2 * min(ceil(M/BM/2) * ceil(N/BN) * batch, numSMs/2), 1, 1)
//   split tail (Schedule 0 or 1, CM = 1; params.tail_splits >= 2): the last
//               params.tail_tiles tiles (at most grid.x) are split along K into tail_splits
//               parts (clamped to grid.x / tail_tiles and to the k-blocks), one per CTA
//               (WorkList); grid = (numSMs, 1, 1) makes the other tiles whole rounds.
//               params.workspace: 1024-byte aligned, roundup(grid.x*4, 1024) bytes of u32
//               counters that are zero before the launch (the kernel leaves them zero),
//               then tail_tiles*tail_splits f32 tiles of BM*BN. tail_splits < 2: no split, no
//               workspace.
//   block     = (384, 1, 1)                      warpgroup 0 = producer (1 TMA thread),
//                                                warpgroups 1,2 = consumers (WGMMA + epilogue)
//                                                (both schedules)
//   cluster   = (CM, 1, 1)                       (launch attribute when CM = 2; the kernel
//                                                traps if the launch's cluster is not CM)
//   dynamic smem bytes = smem_bytes<Cfg>() =
//       1024 (alignment slack) + roundup(Stages*(BM+BN)*BK*2 + staging + Stages*16 + 32, 1024)
//       staging = 2*roundup(max(EpiN*(64+4)*4, 2*8192), 1024) (f32 columns, or a ring of two
//                 TMA boxes), or for Schedule 2 max(2*EpiN*(64+4)*4, BM*BN*2/StageParts + 8*32)
//       (the "+ 32" barrier bytes changed none of these values)
//       e.g. 128x256x64_s4 : 1024 + roundup(196608 + 32768 + 64 + 32, 1024) = 231424 bytes (any out type)
//            128x128x64_s6 : 1024 + roundup(196608 + 32768 + 96 + 32, 1024) = 231424 bytes (coop and pp)
//            128x256x64_s3_st : 1024 + roundup(147456 + 65792 + 48 + 32, 1024) = 215040 bytes
//            128x256x64_s4_st2 (StageParts 2) : 1024 + roundup(196608 + 33024 + 64 + 32, 1024)
//                             = 231424 bytes
//   kernel params in PTX: param_0 GemmParams (120 B, align 8, offset 0), param_1 CUtensorMap
//   (128 B, align 128, offset 128), param_2 CUtensorMap (offset 256), param_3 CUtensorMap
//   (offset 384); cuLaunchKernel's kernelParams = {&params, &tma_a, &tma_b, &tma_d}.
//   needs cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem) before launch.
//   The kernel traps if launched with less dynamic smem than it needs, or with blockDim != 384.
//   tiles == 0 (M, N or batch == 0): do not launch.  K == 0 is allowed (D = beta*C).
//
// PTX: nvcc -gencode=arch=compute_90a,code=compute_90a --ptx -O3 -DNDEBUG --expt-relaxed-constexpr
//      -std=c++17 -I<cutlass>/include -DFERROCUTE_SM90_CONFIG_HEADER='"sm90_example_configs.h"'
//      src/kernels/sm90_gemm.cu
#pragma once

#include <cuda.h>   // CUtensorMap
#include <stdint.h>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/numeric_types.h>

#include "gemm_params.h"

namespace ferrocute {
namespace sm90 {

using namespace cute;

static constexpr int kThreads = 384;
static constexpr int kEpiLd = 64 + 4;   // padded column stride (floats) of the epilogue staging
// Bytes after each warp's slice of a 16-bit staging buffer: the 16-byte pieces that make up
// one column's 128-byte line then come from different banks.
static constexpr int kSlicePad = 32;
// TMA store of D: one box of tma_d is 64 rows (128 bytes) x 64 columns of 16-bit values.
static constexpr int kTmaBoxBytes = 64 * 64 * 2;
// Without the staged epilogue a consumer warpgroup stages D for the TMA in a ring of this
// many boxes, so that it writes one while the TMA still reads the other.
static constexpr int kTmaRingBoxes = 2;
// Named barrier of the two cooperative consumer warpgroups around split-tail partial sums
// (0 is __syncthreads, 1 and 2 each consumer warpgroup's epilogue).
static constexpr int kTailBarrier = 3;

// Cfg::StageParts (staged epilogue only; default 1): the tile goes through the staging in
// that many column parts, so the staging needs only BM*BN*2/StageParts bytes.
template <class Cfg, class = void>
struct StagePartsOf { static constexpr int value = 1; };
template <class Cfg>
struct StagePartsOf<Cfg, std::void_t<decltype(Cfg::StageParts)>> {
  static constexpr int value = Cfg::StageParts;
};

template <class Cfg>
struct Derived {
  static constexpr int BM = size<0>(typename Cfg::TileShape{});
  static constexpr int BN = size<1>(typename Cfg::TileShape{});
  static constexpr int BK = size<2>(typename Cfg::TileShape{});
  static constexpr int S = Cfg::Stages;
  static constexpr int EpiN = Cfg::EpiN;
  static constexpr int kABytes = BM * BK * 2;
  static constexpr int kBBytes = BN * BK * 2;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr bool kStaged = (Cfg::Schedule == 2);
  static constexpr int kStageParts = StagePartsOf<Cfg>::value;
  // Epilogue staging per consumer warpgroup: EpiN padded f32 columns of 64 rows; with the
  // staged epilogue also half of one 16-bit part of the BMxBN tile with its four warps'
  // slice padding (the two uses never meet in one launch: the 16-bit staging serves
  // beta == 0, the f32 one everything else).
  static constexpr int kPartFloats = BM * BN / 4 / kStageParts + 8 * kSlicePad / 4 / 2;
  // Without the staged epilogue each warpgroup's staging holds the TMA epilogue's ring of
  // boxes and starts at a 1024-byte boundary (the 128-byte swizzle repeats every 1024 bytes).
  static constexpr int kRingFloats = kTmaRingBoxes * kTmaBoxBytes / 4;
  static constexpr int kEpiFloats =
      (kStaged && kPartFloats > EpiN * kEpiLd)
          ? kPartFloats
          : ((EpiN * kEpiLd > kRingFloats ? EpiN * kEpiLd : kRingFloats) + 255) / 256 * 256;
};

template <class Cfg>
struct alignas(1024) SharedStorage {
  using D = Derived<Cfg>;
  uint8_t a[D::S * D::kABytes];          // 1024-aligned (offset 0)
  uint8_t b[D::S * D::kBBytes];          // 1024-aligned (kABytes*S is a multiple of 1024)
  float epi[2][D::kEpiFloats];
  uint64_t full[D::S];
  uint64_t empty[D::S];
  uint64_t order[2];   // pingpong math-turn barriers (unused by the cooperative schedule)
  uint64_t out_full;   // staged epilogue: the 16-bit tile is in epi (8 consumer warps)
  uint64_t out_empty;  // staged epilogue: the storer warps have read it (3 warps)
};

template <class Cfg>
__host__ __device__ constexpr int smem_bytes() {
  return int(sizeof(SharedStorage<Cfg>)) + 1024;
}

// ---------------------------------------------------------------------------------
// Tile scheduler: linear persistent index -> (m_blk, n_blk, l) with grouped raster.
// ---------------------------------------------------------------------------------
struct TileCoord { int m, n, l; };

__device__ __forceinline__ TileCoord tile_coord(int idx, int tiles_m, int tiles_n, int group) {
  const int per_batch = tiles_m * tiles_n;
  const int l = idx / per_batch;
  int r = idx - l * per_batch;
  const int per_group = group * tiles_n;
  const int g = r / per_group;
  const int first_m = g * group;
  const int gsize = min(tiles_m - first_m, group);
  r -= g * per_group;
  TileCoord t;
  t.m = first_m + r % gsize;
  t.n = r / gsize;
  t.l = l;
  return t;
}

// ---------------------------------------------------------------------------------
// Work of one persistent CTA: its round-robin share of the first num_units - tail_units
// units (whole tiles), then, when the last round's tail_units tiles are split along K into
// `splits` parts, at most one part: part i (of tail_units*splits <= gridDim.x) goes to CTA
// i and is split i / tail_units of tile i % tail_units. Split-major, the parts that run at
// once start at the same k-blocks, so tiles that share A or B rows read them from L2 at the
// same time, as whole tiles do (a stream-K split at arbitrary k-blocks tripled the DRAM
// reads at 4096³, BENCHMARKS.md).
// ---------------------------------------------------------------------------------
struct Work {
  int unit, kb, ke;   // unit (tile_of), k-blocks [kb, ke)
  int part;           // the split tail's part index, -1 for a whole tile
};

struct WorkList {
  int next_dp, dp_units, stride, k_tiles, tail_units, splits, part;

  __device__ WorkList(int num_units, int tail_units_, int splits_, int k_tiles_, int first,
                      int stride_, int cta)
      : next_dp(first), dp_units(num_units - tail_units_), stride(stride_), k_tiles(k_tiles_),
        tail_units(tail_units_), splits(splits_),
        part(tail_units_ > 0 && cta < tail_units_ * splits_ ? cta : -1) {}

  // k-blocks [kb, ke) of split j.
  __device__ static int split_begin(int j, int splits, int k_tiles) {
    return int(int64_t(j) * k_tiles / splits);
  }

  __device__ bool next(Work& w) {
    if (next_dp < dp_units) {
      w = Work{next_dp, 0, k_tiles, -1};
      next_dp += stride;
      return true;
    }
    if (part < 0) return false;
    const int j = part / tail_units;
    w = Work{dp_units + part % tail_units, split_begin(j, splits, k_tiles),
             split_begin(j + 1, splits, k_tiles), part};
    part = -1;
    return true;
  }
};

__device__ __forceinline__ void named_bar_sync(int id, int nthreads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

__device__ __forceinline__ uint32_t dyn_smem_size() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

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
// Building blocks shared with sm90_splitk.cuh.
// ---------------------------------------------------------------------------------

// Smem layout (Rows, BK, S) of one operand. K-major: atoms stacked along Rows first (each
// TMA box {64, Rows} covers one 64-wide K slab = Rows*64 contiguous elements). MN-major:
// atoms stacked along K first (each TMA box {64, BK} covers one 64-wide M/N slab).
template <class Cfg, bool KMajor, int Rows, int BK, int S>
using OperandSmem = decltype(conditional_return<KMajor>(
    tile_to_shape(typename Cfg::SmemLayoutAtomK{}, make_shape(Int<Rows>{}, Int<BK>{}, Int<S>{}),
                  Step<_1, _2, _3>{}),
    tile_to_shape(typename Cfg::SmemLayoutAtomMN{}, make_shape(Int<Rows>{}, Int<BK>{}, Int<S>{}),
                  Step<_2, _1, _3>{})));

// Both Hopper kernels take the 128B-swizzle GMMA atoms only: the tensor-map contract fixes
// CU_TENSOR_MAP_SWIZZLE_128B.
template <class Cfg, class In>
__device__ __forceinline__ constexpr void check_gmma_atoms() {
  static_assert(std::is_same<typename Cfg::SmemLayoutAtomK, GMMA::Layout_K_SW128_Atom<In>>::value,
                "SmemLayoutAtomK must be the 128B-swizzle K-major GMMA atom");
  static_assert(std::is_same<typename Cfg::SmemLayoutAtomMN, GMMA::Layout_MN_SW128_Atom<In>>::value,
                "SmemLayoutAtomMN must be the 128B-swizzle MN-major GMMA atom");
}

// The kernel's shared storage at the first 1024-byte boundary of the dynamic shared memory
// (the 128B-swizzle atoms repeat every 1024 bytes; smem sizes include 1024 bytes of slack).
template <class Storage>
__device__ __forceinline__ Storage& shared_storage() {
  extern __shared__ uint8_t smem_raw[];
  return *reinterpret_cast<Storage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                     ~uintptr_t(1023));
}

// TMA loads of part `part` of `Parts` of one operand's (Rows, BK) tile at (row0, k0, l) into
// the stage buffer `dst`, completing on `bar`; with Parts > 1 each part goes to the same
// offset of every CTA in `mask` (multicast). K-major: part = a band of Rows/Parts rows
// (box {64, Rows/Parts}); MN-major: part = every Parts-th 64-wide slab (box {64, BK}).
template <bool KMajor, int Rows, int BK, int Parts = 1,
          uint64_t hint = uint64_t(TMA::CacheHintSm90::EVICT_NORMAL)>
__device__ __forceinline__ void tma_load_operand(CUtensorMap const* desc, uint64_t* bar,
                                                 uint8_t* dst, int k0, int row0, int l,
                                                 int part = 0, uint16_t mask = 0) {
  if constexpr (KMajor) {
    constexpr int band = Rows / Parts;
    static_assert(band % 8 == 0, "a multicast band must hold whole 8-row swizzle atoms");
    CUTE_UNROLL
    for (int i = 0; i < BK / 64; ++i) {
      uint8_t* d = dst + i * Rows * 64 * 2 + part * band * 64 * 2;
      if constexpr (Parts == 1)
        SM90_TMA_LOAD_3D::copy(desc, bar, hint, d, k0 + i * 64, row0, l);
      else
        SM90_TMA_LOAD_MULTICAST_3D::copy(desc, bar, mask, hint, d, k0 + i * 64,
                                         row0 + part * band, l);
    }
  } else {
    CUTE_UNROLL
    for (int i = part; i < Rows / 64; i += Parts) {
      uint8_t* d = dst + i * 64 * BK * 2;
      if constexpr (Parts == 1)
        SM90_TMA_LOAD_3D::copy(desc, bar, hint, d, row0 + i * 64, k0, l);
      else
        SM90_TMA_LOAD_MULTICAST_3D::copy(desc, bar, mask, hint, d, row0 + i * 64, k0, l);
    }
  }
}

// The WGMMA mainloop over `k_tiles` stages of the ring (stage, phase advance in place):
// one uniform loop (a peeled first iteration makes the compiler copy the accumulators and
// inject a warpgroup.wait, C7517); ScaleOut::Zero on the first k-block zero-initialises the
// accumulators. At most one WGMMA batch in flight: a stage is released (release(stage))
// once the batch that read it has retired. Returns the stage of the last batch, still in
// flight and unreleased (-1 if none). Only the k-blocks [KB0, KB1) of each stage are issued
// (KB1 = -1: to the last), so two warpgroups can share a stage's k-blocks.
template <int KB0 = 0, int KB1 = -1, class TiledMma, class FragA, class FragB, class Accum,
          class Release>
__device__ __forceinline__ int mma_mainloop(TiledMma& tiled_mma, FragA const& tCrA,
                                            FragB const& tCrB, Accum& accum, uint64_t* full,
                                            int& stage, uint32_t& phase, int k_tiles, int S,
                                            Release const& release) {
  tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
  if (k_tiles == 0) {
    CUTE_UNROLL
    for (int i = 0; i < size(accum); ++i) accum(i) = 0.0f;
  }
  int prev_stage = -1;
  for (int kt = 0; kt < k_tiles; ++kt) {
    cutlass::arch::ClusterBarrier::wait(&full[stage], phase);
    warpgroup_fence_operand(accum);
    warpgroup_arrive();
    CUTE_UNROLL
    for (int kb = KB0; kb < (KB1 < 0 ? int(size<2>(tCrA)) : KB1); ++kb) {
      cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrB(_, _, kb, stage), accum);
      tiled_mma.accumulate_ = GMMA::ScaleOut::One;
    }
    warpgroup_commit_batch();
    warpgroup_wait<1>();
    warpgroup_fence_operand(accum);
    if (prev_stage >= 0) release(prev_stage);
    prev_stage = stage;
    if (++stage == S) { stage = 0; phase ^= 1; }
  }
  return prev_stage;
}

// Stores 8 consecutive rows (M, unit stride in D) of one column: D = alpha*v + beta*C,
// 16-byte accesses when the 8 rows are inside M and the pointers and strides allow it.
template <class Out>
__device__ __forceinline__ void store_rows8(float (&v)[8], int gm, int64_t doff, int64_t coff,
                                            GemmParams const& p, bool d_vec, bool c_vec) {
  const int M = p.m;
  Out* dptr = reinterpret_cast<Out*>(p.d);
  const Out* cptr = reinterpret_cast<const Out*>(p.c);
  CUTE_UNROLL
  for (int e = 0; e < 8; ++e) v[e] *= p.alpha;
  const bool full_vec = (gm + 8 <= M);
  if (p.beta != 0.0f) {
    if (full_vec && c_vec) {
      alignas(16) Out cv[8];
      CUTE_UNROLL
      for (int q = 0; q < int(sizeof(cv) / 16); ++q)
        reinterpret_cast<uint4*>(cv)[q] = reinterpret_cast<const uint4*>(cptr + coff)[q];
      CUTE_UNROLL
      for (int e = 0; e < 8; ++e) v[e] += p.beta * OutOps<Out>::from(cv[e]);
    } else {
      CUTE_UNROLL
      for (int e = 0; e < 8; ++e)
        if (gm + e < M) v[e] += p.beta * OutOps<Out>::from(cptr[coff + e]);
    }
  }
  if (full_vec && d_vec) {
    alignas(16) Out ov[8];
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e) ov[e] = OutOps<Out>::to(v[e]);
    CUTE_UNROLL
    for (int q = 0; q < int(sizeof(ov) / 16); ++q)
      reinterpret_cast<uint4*>(dptr + doff)[q] = reinterpret_cast<const uint4*>(ov)[q];
  } else {
    CUTE_UNROLL
    for (int e = 0; e < 8; ++e)
      if (gm + e < M) dptr[doff + e] = OutOps<Out>::to(v[e]);
  }
}

// Whether D (resp. C) allows 16-byte stores of 8 rows.
template <class Out>
__device__ __forceinline__ bool vec_ok(const void* ptr, int64_t ld, int64_t batch_stride) {
  return ((reinterpret_cast<uintptr_t>(ptr) & 15) == 0) && (ld % 8 == 0) && (batch_stride % 8 == 0);
}

// The halves of barrier.cluster, by every thread of every CTA of the cluster. Unlike
// cute::cluster_arrive/wait they carry a "memory" clobber, so the compiler cannot move
// memory accesses across them. A relaxed arrive orders nothing: use it only where no
// access before it has to be seen by (or finished before) the cluster's waiters.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

__device__ __forceinline__ void cluster_arrive_release() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// A whole cluster barrier with release/acquire semantics.
__device__ __forceinline__ void cluster_sync_all() {
  cluster_arrive_release();
  cluster_wait();
}

// ---------------------------------------------------------------------------------
// Epilogue of one 64-row slab (one m64nBNk16 accumulator fragment, BN/2 floats per thread)
// of one consumer warpgroup: registers -> padded smem staging (EpiN columns at a time) ->
// 16-byte global stores of 8 consecutive rows (D is column-major, M unit stride).
// Uses named barrier bar_id over the 128 threads of the warpgroup.
// ---------------------------------------------------------------------------------
template <int BN, int EpiN, class Out, class Frag>
__device__ __forceinline__ void epilogue_rows64(Frag const& acc, float* stg, int bar_id, int wtid,
                                                int m_base, int n_base, int64_t l,
                                                GemmParams const& p, bool d_vec, bool c_vec) {
  const int M = p.m, N = p.n;
  const int lane = wtid % 32, wwarp = wtid / 32;
  // Fragment of m64nBNk16 (f32): value i = v0 + 2*v1 + 4*j  ->
  //   row = 16*warp + lane/4 + 8*v1,  col = 8*j + 2*(lane%4) + v0
  const int frag_row = 16 * wwarp + lane / 4;
  const int frag_col = 2 * (lane % 4);
  CUTE_UNROLL
  for (int c = 0; c < BN / EpiN; ++c) {
    // registers -> staging (column-major, conflict-free with kEpiLd = 68)
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
    named_bar_sync(bar_id, 128);
    // staging -> global, 8 consecutive rows (M, unit stride in D) per access
    CUTE_UNROLL
    for (int it = 0; it < (8 * EpiN) / 128; ++it) {
      const int item = wtid + 128 * it;
      const int mb = item % 8;
      const int col = item / 8;
      const int gm = m_base + mb * 8;
      const int gn = n_base + c * EpiN + col;
      if (gn < N && gm < M) {
        const float4 lo = *reinterpret_cast<const float4*>(&stg[col * kEpiLd + mb * 8]);
        const float4 hi = *reinterpret_cast<const float4*>(&stg[col * kEpiLd + mb * 8 + 4]);
        float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        store_rows8<Out>(v, gm, l * p.batch_stride_d + int64_t(gn) * p.ldd + gm,
                         l * p.batch_stride_c + int64_t(gn) * p.ldc + gm, p, d_vec, c_vec);
      }
    }
    named_bar_sync(bar_id, 128);
  }
}

// ---------------------------------------------------------------------------------
// Fast epilogue of one 64-row slab, for beta == 0 and a 16-bit D whose columns allow
// 16-byte stores: each warp converts its own 16 rows to 16 bits, transposes them through
// 2 KiB of shared memory with stmatrix.trans (64 columns x 32 bytes; no warpgroup barrier)
// and stores 8 consecutive rows of one column per 16-byte access. Half the staging bytes
// and an eighth of the shared-memory instructions of epilogue_rows64.
// ---------------------------------------------------------------------------------
static constexpr int kWarpStageBytes = 2048;   // per consumer warp: 16 rows x 64 columns x 2 B
static constexpr int kWarpSliceBytes = kWarpStageBytes + kSlicePad;

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
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
                 ::"r"(lane_addr + uint32_t(q * QStep)), "r"(r[0]), "r"(r[1]), "r"(r[2]),
                 "r"(r[3])
                 : "memory");
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
                                                      int wtid, int m_base, int n_base,
                                                      int64_t l, GemmParams const& p) {
  static_assert(sizeof(Out) == 2, "16-bit D only");
  constexpr int kCols = 64;   // columns per pass through the warps' 2 KiB slices
  static_assert(BN % kCols == 0, "BN must be a multiple of 64");
  const int lane = wtid % 32, wwarp = wtid / 32;
  const uint32_t sbase = cast_smem_ptr_to_uint(wg_buf);
  Out* dcol = reinterpret_cast<Out*>(p.d) + l * p.batch_stride_d;
  CUTE_UNROLL
  for (int c = 0; c < BN / kCols; ++c) {
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

// Whether the epilogue stores D by TMA (tma_d): the fast epilogue applies and M % 8 == 0
// (TMA clips a box only at whole 16-byte pieces of its contiguous mode, so with M % 8 != 0
// it would write rows past M). The host encodes tma_d whenever this can hold.
__device__ __forceinline__ bool tma_epilogue(GemmParams const& p, bool fast) {
  return fast && p.m % 8 == 0;
}

// Whether the 16-bit fast epilogue applies: beta == 0 (C is not read) and 16-byte stores.
template <class Out>
__device__ __forceinline__ bool fast_epilogue(GemmParams const& p, bool d_vec) {
  return sizeof(Out) == 2 && p.beta == 0.0f && d_vec;
}

// One 64-row slab through the TMA epilogue or the fast epilogue where they apply, else the
// general one. The TMA epilogue takes `stg` (1024-byte aligned) as a ring of kTmaRingBoxes
// boxes, one per 64 columns; `pass` counts the boxes this warpgroup has stored.
template <int BN, int EpiN, class Out, class Frag>
__device__ __forceinline__ void epilogue_slab(Frag const& acc, float* stg, int bar_id, int wtid,
                                              int m_base, int n_base, int64_t l,
                                              GemmParams const& p, bool fast, bool tma_epi,
                                              bool d_vec, bool c_vec, CUtensorMap const* tma_d,
                                              uint32_t& pass) {
  if constexpr (sizeof(Out) == 2) {
    if (tma_epi) {
      CUTE_UNROLL
      for (int c = 0; c < BN / 64; ++c, ++pass)
        tma_epilogue_pass<64, kTmaRingBoxes - 1, Out>(
            acc, 4 * c,
            reinterpret_cast<uint8_t*>(stg) + (pass % kTmaRingBoxes) * kTmaBoxBytes, bar_id,
            wtid, m_base, n_base + 64 * c, int(l), p.alpha, tma_d);
      return;
    }
    if (fast) {
      epilogue_rows64_16bit<BN, Out>(acc, reinterpret_cast<uint8_t*>(stg), bar_id, wtid, m_base,
                                     n_base, l, p);
      return;
    }
  }
  epilogue_rows64<BN, EpiN, Out>(acc, stg, bar_id, wtid, m_base, n_base, l, p, d_vec, c_vec);
}

// ---------------------------------------------------------------------------------
// Partial sums of a split tail. The workspace (GemmParams::workspace) holds one u32
// arrival counter per tile (zero between launches) in tail_counter_bytes(gridDim.x), then
// one BMxBN f32 slot per part. Each thread of the tile's consumers keeps its accumulators in
// register order, float4 j of thread t at float4 index j*Threads + t, so whichever part
// sums the slots holds the same fragment in the same threads. No CTA waits for another:
// the parts need not be resident at once (SMs taken by other work, or by MPS limits).
// ---------------------------------------------------------------------------------
__device__ __forceinline__ int64_t tail_counter_bytes(int ctas) {
  return (int64_t(ctas) * 4 + 1023) / 1024 * 1024;
}

template <int Threads, class Accum>
__device__ __forceinline__ void store_partial_sums(Accum const& acc, float* slot, int t) {
  float4* dst = reinterpret_cast<float4*>(slot) + t;
  CUTE_UNROLL
  for (int j = 0; j < int(size(acc)) / 4; ++j)
    __stcg(dst + j * Threads,
           make_float4(acc(4 * j), acc(4 * j + 1), acc(4 * j + 2), acc(4 * j + 3)));
}

// acc = slot (Add = false) or acc += slot (Add = true).
template <int Threads, bool Add, class Accum>
__device__ __forceinline__ void load_partial_sums(Accum& acc, const float* slot, int t) {
  const float4* src = reinterpret_cast<const float4*>(slot) + t;
  CUTE_UNROLL
  for (int j = 0; j < int(size(acc)) / 4; ++j) {
    const float4 v = __ldcg(src + j * Threads);
    acc(4 * j) = Add ? acc(4 * j) + v.x : v.x;
    acc(4 * j + 1) = Add ? acc(4 * j + 1) + v.y : v.y;
    acc(4 * j + 2) = Add ? acc(4 * j + 2) + v.z : v.z;
    acc(4 * j + 3) = Add ? acc(4 * j + 3) + v.w : v.w;
  }
}

// One part's arrival at its tile's counter (by one thread, after a barrier of the part's
// threads behind their stores): release of this part's sums, acquire of those of the parts
// that arrived before. Returns the count before this arrival.
__device__ __forceinline__ uint32_t tail_arrive(uint32_t* counter) {
  uint32_t old;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], 1;"
               : "=r"(old)
               : "l"(counter)
               : "memory");
  return old;
}

// Named barrier of nthreads threads that also ORs their predicates.
__device__ __forceinline__ bool named_bar_any(int id, int nthreads, bool pred) {
  uint32_t r;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n"
      " selp.u32 %0, 1, 0, q;\n}"
      : "=r"(r)
      : "r"(uint32_t(pred)), "r"(id), "r"(nthreads)
      : "memory");
  return r != 0;
}

// After the main loop of work w, by the Threads threads (thread t, named barrier bar_id)
// that hold its accumulators: a part of a split tail leaves its sums in its slot and
// arrives at its tile's counter; all but the last to arrive return false (no epilogue).
// The last sums the slots in split order (the same bits whichever part is last), zeroes the
// counter for the next launch and returns true, as does a whole tile.
template <int Threads, class Accum, class SlotOf>
__device__ __forceinline__ bool split_tail_fixup(Accum& acc, Work const& w, int tail_units,
                                                 int splits, uint32_t* counters,
                                                 SlotOf const& slot_of, int t, int bar_id) {
  if (w.part < 0 || splits < 2) return true;
  store_partial_sums<Threads>(acc, slot_of(w.part), t);
  named_bar_sync(bar_id, Threads);   // this part's sums are all written
  const int tile = w.part % tail_units;   // its parts: tile + j * tail_units, split j
  const bool last =
      named_bar_any(bar_id, Threads, t == 0 && tail_arrive(&counters[tile]) == splits - 1u);
  if (!last) return false;
  if (w.part != tile) load_partial_sums<Threads, false>(acc, slot_of(tile), t);
  for (int j = 1; j < splits; ++j)
    load_partial_sums<Threads, true>(acc, slot_of(tile + j * tail_units), t);
  if (t == 0) counters[tile] = 0;
  return true;
}

// ---------------------------------------------------------------------------------
// The kernel body.
// ---------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ uint32_t cluster_nctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

template <class Cfg, bool AKMajor, bool BKMajor, class In, class Out>
__device__ __forceinline__ void gemm_kernel(GemmParams const& p, CUtensorMap const* tma_a,
                                            CUtensorMap const* tma_b, CUtensorMap const* tma_d) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using D = Derived<Cfg>;
  constexpr int BM = D::BM, BN = D::BN, BK = D::BK, S = D::S, EpiN = D::EpiN;
  constexpr int CM = size<0>(typename Cfg::ClusterShape{});
  static_assert(sizeof(In) == 2, "16-bit inputs only");
  constexpr bool kPingpong = (Cfg::Schedule == 1);
  constexpr bool kStaged = D::kStaged;
  constexpr int kParts = D::kStageParts, kPartN = BN / D::kStageParts;   // staged columns per part
  static_assert(kParts == 1 || (kStaged && kParts == 2 && kPartN % 16 == 0),
                "StageParts: 1, or 2 with the staged epilogue");
  static_assert(Cfg::Schedule >= 0 && Cfg::Schedule <= 2,
                "Schedule: 0 cooperative, 1 pingpong, 2 cooperative with a staged epilogue");
  static_assert(kPingpong || BM == 128, "cooperative schedule: BM must be 128 (2 consumer WGs x 64)");
  static_assert(!kPingpong || BM == 64 || BM == 128, "pingpong schedule: BM must be 64 or 128");
  static_assert(!kPingpong || BM * BN <= 128 * 192 || (BM == 64 && BN <= 256),
                "pingpong: one warpgroup holds the whole BMxBN accumulator (<= 192 regs/thread)");
  static_assert(BN % 64 == 0 && BN >= 64 && BN <= 256, "BN must be 64..256, multiple of 64");
  static_assert(BK % 64 == 0, "BK must be a multiple of 64");
  static_assert(EpiN % 8 == 0 && BN % EpiN == 0 && (8 * EpiN) % 128 == 0, "bad EpiN");
  static_assert((CM == 1 || CM == 2) && size(typename Cfg::ClusterShape{}) == CM,
                "cluster (1,1,1) or (2,1,1) only");
  check_gmma_atoms<Cfg, In>();
  static_assert(D::kEpiFloats * 4 >= 4 * kWarpSliceBytes && (D::kEpiFloats * 4) % 16 == 0,
                "the epilogue staging must hold the fast epilogue's 4 warp slices");
  static_assert(kStaged ? (D::kEpiFloats * 2 * 4 >= BM * BN * 2 / kParts)
                        : (D::kEpiFloats * 4 >= kTmaRingBoxes * kTmaBoxBytes &&
                   (D::kEpiFloats * 4) % 1024 == 0),
                "the TMA epilogue's staging: whole 1024-byte aligned boxes");

  constexpr GMMA::Major MajA = AKMajor ? GMMA::Major::K : GMMA::Major::MN;
  constexpr GMMA::Major MajB = BKMajor ? GMMA::Major::K : GMMA::Major::MN;
  using SmemLayoutA = OperandSmem<Cfg, AKMajor, BM, BK, S>;   // (BM, BK, S)
  using SmemLayoutB = OperandSmem<Cfg, BKMajor, BN, BK, S>;   // (BN, BK, S)
  using MmaOp = decltype(GMMA::ss_op_selector<In, In, float, Shape<_64, Int<BN>, Int<BK>>, MajA, MajB>());
  // cooperative: 2 WGs split the 128 rows (64 each); pingpong: one WG owns the whole tile
  using TiledMma = decltype(make_tiled_mma(MmaOp{}, Layout<Shape<Int<kPingpong ? 1 : 2>, _1, _1>>{}));
  // A stage is released by one arrival per consumer warp that reads it, in every CTA whose
  // smem the stage's B multicast writes.
  constexpr int kReaderWarps = kPingpong ? 4 : 8;
  // Staged epilogue: the consumer warps leave the 16-bit tile in shared memory and go on
  // with the next tile while warps 1-3 of the producer warpgroup store it.
  constexpr int kConsumerWarps = 8, kStorerWarps = 3;
  const bool d_vec = vec_ok<Out>(p.d, p.ldd, p.batch_stride_d);
  const bool c_vec = vec_ok<Out>(p.c, p.ldc, p.batch_stride_c);
  const bool fast = fast_epilogue<Out>(p, d_vec);
  const bool tma_epi = tma_epilogue(p, fast);

  SharedStorage<Cfg>& ss = shared_storage<SharedStorage<Cfg>>();
  // Staged epilogue: (kPartN columns x 32 B) + kSlicePad per consumer warp
  const uint32_t staged_tile = cast_smem_ptr_to_uint(&ss.epi[0][0]);
  // Staged TMA epilogue: consumer warpgroup w's 64 rows of a part at w * 64 * kPartN * 2
  uint8_t* const staged_bytes = reinterpret_cast<uint8_t*>(&ss.epi[0][0]);
  constexpr int kStagedSlice = kPartN * 32 + kSlicePad;

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int wg = warp / 4;
  const int rank = (CM == 1) ? 0 : int(cluster_ctarank());

  if (tid == 0) {
    if (blockDim.x != kThreads || dyn_smem_size() < uint32_t(smem_bytes<Cfg>()) ||
        (CM > 1 && cluster_nctarank() != uint32_t(CM)))
      __trap();
    for (int s = 0; s < S; ++s) {
      cutlass::arch::ClusterTransactionBarrier::init(&ss.full[s], 1);
      cutlass::arch::ClusterBarrier::init(&ss.empty[s], kReaderWarps * CM);
    }
    cutlass::arch::ClusterBarrier::init(&ss.order[0], 128);
    cutlass::arch::ClusterBarrier::init(&ss.order[1], 128);
    cutlass::arch::ClusterBarrier::init(&ss.out_full, kConsumerWarps);
    cutlass::arch::ClusterBarrier::init(&ss.out_empty, kStorerWarps);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  // The peer's barriers must be initialised before its B multicast or its releases reach us.
  if constexpr (CM > 1) cluster_sync_all();

  const int M = p.m, N = p.n, K = p.k;
  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  // Work units: CM M-adjacent tiles sharing one B tile, one per CTA of a cluster. With an
  // odd tiles_m the last unit's second tile lies past M: its A loads are zero-filled and its
  // stores predicated off, but it still loads its half of B for the peer.
  const int units_m = (tiles_m + CM - 1) / CM;
  const int num_units = units_m * tiles_n * p.batch;
  const int first = blockIdx.x / CM;
  const int stride = gridDim.x / CM;
  const int k_tiles = (K + BK - 1) / BK;
  // Split tail (both schedules, no cluster; WorkList): the last round's tail_units tiles
  // split along K into `splits` parts, one per CTA; K == 0 has nothing to split.
  constexpr bool kTail = !kStaged && CM == 1;
  const int tail_units = (kTail && k_tiles > 0 && p.tail_splits > 1 &&
                          p.tail_tiles <= min(num_units, int(gridDim.x)))
                             ? max(0, p.tail_tiles)
                             : 0;
  const int splits =
      tail_units > 0 ? max(1, min(min(p.tail_splits, k_tiles), int(gridDim.x) / tail_units)) : 1;
  uint32_t* const tail_counters = reinterpret_cast<uint32_t*>(p.workspace);
  auto tail_slot = [&](int part) {
    return reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(p.workspace) +
                                    tail_counter_bytes(gridDim.x) + int64_t(part) * (BM * BN * 4));
  };
  const int group = (Cfg::RasterGroup + CM - 1) / CM;
  auto tile_of = [&](int unit) {
    TileCoord tc = tile_coord(unit, units_m, tiles_n, group);
    tc.m = tc.m * CM + rank;
    return tc;
  };
  auto release = [&](int stage) {
    if (tid % 32 == 0) {
      if constexpr (CM == 1) {
        cutlass::arch::ClusterBarrier::arrive(&ss.empty[stage]);
      } else {
        CUTE_UNROLL
        for (int q = 0; q < CM; ++q)
          cutlass::arch::ClusterBarrier::arrive(&ss.empty[stage], uint32_t(q), 1u);
      }
    }
  };

  if (wg == 0) {
    // ============================ PRODUCER ============================
    cutlass::arch::warpgroup_reg_dealloc<40>();
    if (warp == 0 && cute::elect_one_sync()) {
      cute::prefetch_tma_descriptor(tma_a);
      cute::prefetch_tma_descriptor(tma_b);
      if (tma_epi) cute::prefetch_tma_descriptor(tma_d);
      int stage = 0;
      uint32_t phase = 1;   // producer starts on the "previous" phase: first waits pass
      WorkList work(num_units, tail_units, splits, k_tiles, first, stride, blockIdx.x);
      for (Work w; work.next(w);) {
        const TileCoord tc = tile_of(w.unit);
        for (int kt = w.kb; kt < w.ke; ++kt) {
          cutlass::arch::ClusterBarrier::wait(&ss.empty[stage], phase);
          cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&ss.full[stage],
                                                                         D::kStageBytes);
          tma_load_operand<AKMajor, BM, BK>(tma_a, &ss.full[stage], ss.a + stage * D::kABytes,
                                            kt * BK, tc.m * BM, tc.l);
          tma_load_operand<BKMajor, BN, BK, CM>(tma_b, &ss.full[stage],
                                                ss.b + stage * D::kBBytes, kt * BK, tc.n * BN,
                                                tc.l, rank, uint16_t((1u << CM) - 1));
          if (++stage == S) { stage = 0; phase ^= 1; }
        }
      }
    } else if (warp >= 1) {
      if constexpr (kStaged && sizeof(Out) == 2) {
        if (fast && !tma_epi) {
          // Storer warps: copy each tile's 16-bit staging to D, 8 rows of a column per access,
          // 16 lanes per column (its 128 rows, two whole 128-byte lines).
          const int st = tid - 32;   // 0 .. 32*kStorerWarps-1
          uint32_t full_phase = 0;
          for (int unit = first; unit < num_units; unit += stride) {
            const TileCoord tc = tile_of(unit);
            Out* dcol = reinterpret_cast<Out*>(p.d) + int64_t(tc.l) * p.batch_stride_d;
            for (int part = 0; part < kParts; ++part) {
              cutlass::arch::ClusterBarrier::wait(&ss.out_full, full_phase);
              full_phase ^= 1;
              for (int item = st; item < BM * kPartN / 8; item += 32 * kStorerWarps) {
                // rows 8j..8j+7 of column col: consumer warp j/2's slice, row half j%2
                const int j = item % 16, col = item / 16;
                store_col8<Out>(staged_rows8(staged_tile, kStagedSlice, j, col), dcol,
                                tc.m * BM + 8 * j, tc.n * BN + part * kPartN + col, p);
              }
              __syncwarp();
              if (tid % 32 == 0) cutlass::arch::ClusterBarrier::arrive(&ss.out_empty);
            }
          }
        }
      }
    }
    __syncwarp();
    if constexpr (CM > 1) cluster_sync_all();   // stay alive while the peer may still signal us
  } else if constexpr (!kPingpong) {
    // ====================== CONSUMERS (cooperative) ======================
    cutlass::arch::warpgroup_reg_alloc<232>();
    const int ctid = tid - 128;          // 0..255 within the consumer warpgroups
    const int cwg = ctid / 128;          // consumer warpgroup: rows [64*cwg, 64*cwg+64) of the tile
    const int wtid = ctid % 128;         // thread within its warpgroup

    TiledMma tiled_mma;
    auto thr_mma = tiled_mma.get_thread_slice(ctid);
    Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.a)), SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.b)), SmemLayoutB{});
    Tensor tCsA = thr_mma.partition_A(sA);     // (MMA, MMA_M, MMA_K, S)
    Tensor tCsB = thr_mma.partition_B(sB);     // (MMA, MMA_N, MMA_K, S)
    Tensor tCrA = thr_mma.make_fragment_A(tCsA);
    Tensor tCrB = thr_mma.make_fragment_B(tCsB);
    Tensor accum = partition_fragment_C(tiled_mma, Shape<Int<BM>, Int<BN>>{});
    static_assert(decltype(size(accum))::value == BN / 2, "unexpected accumulator fragment");

    float* stg = ss.epi[cwg];
    uint32_t epi_pass = 0;   // TMA epilogue: boxes this warpgroup has stored (its ring slot)

    int stage = 0;
    uint32_t phase = 0;
    uint32_t empty_phase = 1;   // the staging starts empty: the previous phase counts as done
    WorkList work(num_units, tail_units, splits, k_tiles, first, stride, blockIdx.x);
    for (Work w; work.next(w);) {
      const TileCoord tc = tile_of(w.unit);
      const int last = mma_mainloop(tiled_mma, tCrA, tCrB, accum, ss.full, stage, phase,
                                    w.ke - w.kb, S, release);
      warpgroup_wait<0>();
      warpgroup_fence_operand(accum);
      if (last >= 0) release(last);
      if constexpr (kTail) {
        if (!split_tail_fixup<256>(accum, w, tail_units, splits, tail_counters, tail_slot, ctid,
                                   kTailBarrier))
          continue;
      }
      if constexpr (kStaged && sizeof(Out) == 2) {
        if (tma_epi) {
          // Each warpgroup stages its 64 rows of a part at once and stores them by TMA; the
          // next tile's main loop runs while the TMA drains them.
          CUTE_UNROLL
          for (int part = 0; part < kParts; ++part)
            tma_epilogue_pass<kPartN, 0, Out>(accum, part * (kPartN / 16),
                                           staged_bytes + cwg * (64 * kPartN * 2), 1 + cwg, wtid,
                                           tc.m * BM + cwg * 64, tc.n * BN + part * kPartN, tc.l,
                                           p.alpha, tma_d);
          continue;
        }
        if (fast) {
          CUTE_UNROLL
          for (int part = 0; part < kParts; ++part) {
            cutlass::arch::ClusterBarrier::wait(&ss.out_empty, empty_phase);
            empty_phase ^= 1;
            stmatrix_cols<kPartN / 16, 512, Out>(
                accum, part * (kPartN / 16),
                slice_lane_addr(staged_tile + uint32_t((ctid / 32) * kStagedSlice), ctid % 32),
                p.alpha);
            __syncwarp();
            if (ctid % 32 == 0) cutlass::arch::ClusterBarrier::arrive(&ss.out_full);
          }
          continue;
        }
      }
      epilogue_slab<BN, EpiN, Out>(accum, stg, 1 + cwg, wtid, tc.m * BM + cwg * 64, tc.n * BN,
                                   int64_t(tc.l), p, fast, tma_epi, d_vec, c_vec, tma_d, epi_pass);
    }
    if (tma_epi && wtid == 0) tma_store_wait<0>();   // the staging outlives the TMA's reads
    if constexpr (CM > 1) cluster_sync_all();
  } else {
    // ======================= CONSUMERS (pingpong) ========================
    // Consumer warpgroup cwg owns the CTA-local tiles cwg, cwg+2, cwg+4, ... with the whole
    // BMxBN accumulator. The producer fills the stage ring in CTA-local tile order, so each
    // WG consumes k_tiles stages of its own tile and then skips the k_tiles stages of the
    // other WG's tile. Math turns alternate through order[]: a WG waits for its turn, issues
    // its whole mainloop, hands the turn to the other WG right after its last WGMMA batch is
    // committed, then retires the batch and runs its epilogue while the other WG's mainloop
    // keeps the tensor cores busy.
    cutlass::arch::warpgroup_reg_alloc<232>();
    const int cwg = (tid - 128) / 128;
    const int wtid = tid % 128;

    TiledMma tiled_mma;
    auto thr_mma = tiled_mma.get_thread_slice(wtid);
    Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.a)), SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.b)), SmemLayoutB{});
    Tensor tCsA = thr_mma.partition_A(sA);     // (MMA, MMA_M, MMA_K, S)
    Tensor tCsB = thr_mma.partition_B(sB);     // (MMA, MMA_N, MMA_K, S)
    Tensor tCrA = thr_mma.make_fragment_A(tCsA);
    Tensor tCrB = thr_mma.make_fragment_B(tCsB);
    Tensor accum = partition_fragment_C(tiled_mma, Shape<Int<BM>, Int<BN>>{});  // (V, BM/64, 1)
    static_assert(decltype(size(accum))::value == BM * BN / 128, "unexpected accumulator fragment");
    static_assert(decltype(size<1>(accum))::value == BM / 64, "unexpected accumulator fragment");

    float* stg = ss.epi[cwg];
    uint32_t epi_pass = 0;   // TMA epilogue: boxes this warpgroup has stored (its ring slot)

    int stage = 0;
    uint32_t phase = 0;
    auto skip_stages = [&](int n) {
      const int t = stage + n;
      stage = t % S;
      phase ^= uint32_t(t / S) & 1u;
    };
    // WG 0 holds the first turn: waiting on the parity of the (never completed) previous phase
    // of a fresh barrier passes at once.
    uint32_t order_phase = (cwg == 0) ? 1u : 0u;

    WorkList work(num_units, tail_units, splits, k_tiles, first, stride, blockIdx.x);
    int item = 0;   // the CTA's work items alternate between the warpgroups
    for (Work w; work.next(w); ++item) {
      if ((item & 1) != cwg) {
        skip_stages(w.ke - w.kb);   // the other warpgroup's stages
        continue;
      }
      const TileCoord tc = tile_of(w.unit);

      cutlass::arch::ClusterBarrier::wait(&ss.order[cwg], order_phase);
      order_phase ^= 1u;
      const int last = mma_mainloop(tiled_mma, tCrA, tCrB, accum, ss.full, stage, phase,
                                    w.ke - w.kb, S, release);
      // hand the tensor cores to the other warpgroup
      cutlass::arch::ClusterBarrier::arrive(&ss.order[cwg ^ 1]);
      warpgroup_wait<0>();
      warpgroup_fence_operand(accum);
      if (last >= 0) release(last);
      if constexpr (kTail) {
        if (!split_tail_fixup<128>(accum, w, tail_units, splits, tail_counters, tail_slot, wtid,
                                   1 + cwg))
          continue;
      }

      CUTE_UNROLL
      for (int mi = 0; mi < BM / 64; ++mi) {
        epilogue_slab<BN, EpiN, Out>(accum(_, mi, _0{}), stg, 1 + cwg, wtid,
                                     tc.m * BM + mi * 64, tc.n * BN, int64_t(tc.l), p, fast,
                                     tma_epi, d_vec, c_vec, tma_d, epi_pass);
      }
    }
    if (tma_epi && wtid == 0) tma_store_wait<0>();   // the staging outlives the TMA's reads
    if constexpr (CM > 1) cluster_sync_all();
  }
#else
  // Not sm_90a: this kernel must not run.
  if (threadIdx.x == 0) __trap();
#endif
}

}  // namespace sm90
}  // namespace ferrocute

// ---------------------------------------------------------------------------------
// Entry-point definition macro.
//   FERROCUTE_SM90_DEFINE(cfgname, CfgType, am, bm, in, out)
//   e.g. FERROCUTE_SM90_DEFINE(128x256x64_s4_coop, Sm90Cfg_128x256x64_s4_coop, k, k, bf16, bf16)
// ---------------------------------------------------------------------------------
#define FERROCUTE_SM90_MAJ_k true
#define FERROCUTE_SM90_MAJ_m false
#define FERROCUTE_SM90_MAJ_n false
#define FERROCUTE_SM90_TY_bf16 cutlass::bfloat16_t
#define FERROCUTE_SM90_TY_f16 cutlass::half_t
#define FERROCUTE_SM90_TY_f32 float
#define FERROCUTE_SM90_CAT_(a, b) a##b
#define FERROCUTE_SM90_CAT(a, b) FERROCUTE_SM90_CAT_(a, b)

#define FERROCUTE_SM90_DEFINE(cfgname, Cfg, am, bm, in, out)                                   \
  extern "C" __global__ void __launch_bounds__(384, 1)                                         \
      ferrocute_sm90_##cfgname##_##am##bm##_##in##_##out(                                      \
          const GemmParams params, const __grid_constant__ CUtensorMap tma_a,                  \
          const __grid_constant__ CUtensorMap tma_b,                                           \
          const __grid_constant__ CUtensorMap tma_d) {                                         \
    ferrocute::sm90::gemm_kernel<Cfg, FERROCUTE_SM90_MAJ_##am, FERROCUTE_SM90_MAJ_##bm,        \
                                 FERROCUTE_SM90_TY_##in, FERROCUTE_SM90_TY_##out>(             \
        params, &tma_a, &tma_b, &tma_d);                                                       \
  }
