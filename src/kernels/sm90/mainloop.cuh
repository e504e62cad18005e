// ferrocute sm90 GEMM, part of sm90_gemm.cuh: the TMA + WGMMA main loop, operand smem layouts
// (OperandSmem), the swizzle-atom check, the producer's TMA loads of one stage
// (tma_load_operand) and the consumers' WGMMA loop over the stage ring (mma_mainloop), which
// walks it with a PipelineState (pipeline.cuh). Separate because sm90_splitk.cuh drives the
// same pieces from its own kernel.
#pragma once

#include <cuda.h>   // CUtensorMap
#include <stdint.h>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>

#include "pipeline.cuh"   // PipelineState

namespace ferrocute {
namespace sm90 {

using namespace cute;

// ---------------------------------------------------------------------------------
// Building blocks shared with sm90_splitk.cuh.
// ---------------------------------------------------------------------------------

// Smem layout (Rows, BK, S) of one operand. K-major: atoms stacked along Rows first (each
// TMA box {64, Rows} covers one 64-wide K slab = Rows*64 contiguous elements). MN-major:
// atoms stacked along K first (each TMA box {64, BK} covers one 64-wide M/N slab).
// One specialization per majorness, so that only the one used is formed (a K-major-only
// tile's Rows need not be a multiple of the MN-major atom's 64).
template <class Cfg, bool KMajor, int Rows, int BK, int S>
struct OperandSmemOf {
  using type = decltype(tile_to_shape(typename Cfg::SmemLayoutAtomK{},
                                      make_shape(Int<Rows>{}, Int<BK>{}, Int<S>{}),
                                      Step<_1, _2, _3>{}));
};
template <class Cfg, int Rows, int BK, int S>
struct OperandSmemOf<Cfg, false, Rows, BK, S> {
  using type = decltype(tile_to_shape(typename Cfg::SmemLayoutAtomMN{},
                                      make_shape(Int<Rows>{}, Int<BK>{}, Int<S>{}),
                                      Step<_2, _1, _3>{}));
};
template <class Cfg, bool KMajor, int Rows, int BK, int S>
using OperandSmem = typename OperandSmemOf<Cfg, KMajor, Rows, BK, S>::type;

// Both Hopper kernels take the 128B-swizzle GMMA atoms only: the tensor-map contract fixes
// CU_TENSOR_MAP_SWIZZLE_128B.
template <class Cfg, class In>
__device__ __forceinline__ constexpr void check_gmma_atoms() {
  static_assert(std::is_same<typename Cfg::SmemLayoutAtomK, GMMA::Layout_K_SW128_Atom<In>>::value,
                "SmemLayoutAtomK must be the 128B-swizzle K-major GMMA atom");
  static_assert(std::is_same<typename Cfg::SmemLayoutAtomMN, GMMA::Layout_MN_SW128_Atom<In>>::value,
                "SmemLayoutAtomMN must be the 128B-swizzle MN-major GMMA atom");
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

// The WGMMA mainloop over `k_tiles` stages of the ring (`read` advances in place):
// one uniform loop (a peeled first iteration makes the compiler copy the accumulators and
// inject a warpgroup.wait, C7517); ScaleOut::Zero on the first k-block zero-initialises the
// accumulators. At most one WGMMA batch in flight: a stage is released (release(stage))
// once the batch that read it has retired. Returns the stage of the last batch, still in
// flight and unreleased (-1 if none). Only the k-blocks [KB0, KB1) of each stage are issued
// (KB1 = -1: to the last), so two warpgroups can share a stage's k-blocks.
template <int KB0 = 0, int KB1 = -1, class TiledMma, class FragA, class FragB, class Accum,
          int S, class Release>
__device__ __forceinline__ int mma_mainloop(TiledMma& tiled_mma, FragA const& tCrA,
                                            FragB const& tCrB, Accum& accum, uint64_t* full,
                                            PipelineState<S>& read, int k_tiles,
                                            Release const& release) {
  tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
  if (k_tiles == 0) {
    CUTE_UNROLL
    for (int i = 0; i < size(accum); ++i) accum(i) = 0.0f;
  }
  int prev_stage = -1;
  for (int kt = 0; kt < k_tiles; ++kt, ++read) {
    const int stage = read.index;
    cutlass::arch::ClusterBarrier::wait(&full[stage], read.phase);
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
  }
  return prev_stage;
}

}  // namespace sm90
}  // namespace ferrocute
