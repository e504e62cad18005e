// ferrocute sm90 GEMM, part of sm90_gemm.cuh: kernel-wide constants, the sizes derived from a
// Cfg (Derived), the shared-memory layout (SharedStorage, smem_bytes) and shared_storage(),
// which places it in the dynamic shared memory. Separate because every other part sizes
// itself from these, and sm90_splitk.cuh locates its own storage with shared_storage().
#pragma once

#include <stdint.h>
#include <type_traits>

#include <cute/tensor.hpp>

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
  // Whether D can go out in whole 64-column boxes (the TMA and 16-bit fast epilogues). A
  // narrower tile (BN a multiple of 16 only) takes the general epilogue and needs no ring.
  static constexpr bool kBoxes = BN % 64 == 0;
  static constexpr int kEpiFloats =
      (kStaged && kPartFloats > EpiN * kEpiLd)
          ? kPartFloats
          : ((EpiN * kEpiLd > kRingFloats || !kBoxes ? EpiN * kEpiLd : kRingFloats) + 255) /
                256 * 256;
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

// The kernel's shared storage at the first 1024-byte boundary of the dynamic shared memory
// (the 128B-swizzle atoms repeat every 1024 bytes; smem sizes include 1024 bytes of slack).
template <class Storage>
__device__ __forceinline__ Storage& shared_storage() {
  extern __shared__ uint8_t smem_raw[];
  return *reinterpret_cast<Storage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                     ~uintptr_t(1023));
}

}  // namespace sm90
}  // namespace ferrocute
