// ferrocute sm90 GEMM, part of sm90_gemm.cuh: kernel-wide constants, the sizes derived from a
// Cfg (Derived), the shared-memory layout (SharedStorage, smem_bytes) and shared_storage(),
// which places it in the dynamic shared memory. Separate because every other part sizes
// itself from these, and sm90_splitk.cuh locates its own storage with shared_storage().
#pragma once

#include <stdint.h>

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
// A consumer warpgroup stages D for the TMA in a ring of this many boxes, so that it writes
// one while the TMA still reads the other.
static constexpr int kTmaRingBoxes = 2;
// Named barrier of the two cooperative consumer warpgroups around split-tail partial sums
// (0 is __syncthreads, 1 and 2 each consumer warpgroup's epilogue).
static constexpr int kTailBarrier = 3;

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
  // Epilogue staging per consumer warpgroup: EpiN padded f32 columns of 64 rows, or the TMA
  // epilogue's ring of boxes, whichever is larger, from a 1024-byte boundary (the 128-byte
  // swizzle repeats every 1024 bytes).
  static constexpr int kRingFloats = kTmaRingBoxes * kTmaBoxBytes / 4;
  // Whether D can go out in whole 64-column boxes (the TMA and 16-bit fast epilogues). A
  // narrower tile (BN a multiple of 16 only) takes the general epilogue and needs no ring.
  static constexpr bool kBoxes = BN % 64 == 0;
  static constexpr int kEpiFloats =
      ((EpiN * kEpiLd > kRingFloats || !kBoxes ? EpiN * kEpiLd : kRingFloats) + 255) / 256 * 256;
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
