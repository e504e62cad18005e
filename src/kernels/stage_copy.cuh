// ferrocute: the staging copies of GEMM operands (src/gemm/stage.rs).
//
// An A or B whose base, leading dimension or batch stride is not a multiple of 16 bytes
// cannot be read by TMA, and a C like that cannot take 16-byte or TMA stores. The host
// copies such an A or B into a workspace whose rows start on 128-byte lines, has the GEMM
// read it there, and for such a C has the GEMM write D to the workspace and copies it out.
//
// ENTRY POINTS (extern "C", one StageCopyParams by value):
//   ferrocute_stage_copy_b16      2-byte elements (bf16, f16)
//   ferrocute_stage_copy_b32      4-byte elements (f32)
// LAUNCH FORMULA
//   grid  = (any, count, 1)   blocks of one copy grid-stride over its rows; y = the copy
//   block = (256, 1, 1), no dynamic shared memory
// Copy y reads `height` rows of `width` elements, src_ld apart, from src + y * src_step,
// and writes them dst_ld apart from dst + y * dst_step; nothing past `width` is read or
// written. Either side may have any element alignment.
#pragma once

#include <cstdint>

namespace ferrocute {

struct StageCopyParams {
  const void* src;
  void* dst;
  int64_t src_ld;
  int64_t dst_ld;
  int64_t width;
  int64_t height;
  int64_t src_step;
  int64_t dst_step;
};

// Whether every row of every copy starts on a 16-byte boundary.
template <class T>
__device__ __forceinline__ bool rows_aligned(const void* base, int64_t ld, int64_t step) {
  return ((reinterpret_cast<uintptr_t>(base) | uint64_t(ld * int64_t(sizeof(T))) |
           uint64_t(step * int64_t(sizeof(T)))) & 15) == 0;
}

// Each thread moves one 16-byte piece of a row (16 / sizeof(T) elements): one vector
// access on a side whose rows are 16-byte aligned, else one access per element (a warp's
// 32 pieces are 512 contiguous bytes, so L1 merges the element loads into whole lines).
template <class T>
__device__ __forceinline__ void stage_copy(StageCopyParams const& p) {
  constexpr int E = 16 / int(sizeof(T));
  const bool src_vec = rows_aligned<T>(p.src, p.src_ld, p.src_step);
  const bool dst_vec = rows_aligned<T>(p.dst, p.dst_ld, p.dst_step);
  const int64_t pieces = (p.width + E - 1) / E;
  const int64_t total = pieces * p.height;
  const T* src = static_cast<const T*>(p.src) + int64_t(blockIdx.y) * p.src_step;
  T* dst = static_cast<T*>(p.dst) + int64_t(blockIdx.y) * p.dst_step;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = i / pieces;
    const int64_t c0 = (i - row * pieces) * E;
    const T* s = src + row * p.src_ld + c0;
    T* d = dst + row * p.dst_ld + c0;
    const bool whole = c0 + E <= p.width;
    alignas(16) T v[E];
    if (whole && src_vec) {
      *reinterpret_cast<uint4*>(v) = __ldg(reinterpret_cast<const uint4*>(s));
    } else {
#pragma unroll
      for (int j = 0; j < E; ++j) v[j] = c0 + j < p.width ? __ldg(s + j) : T(0);
    }
    if (whole && dst_vec) {
      *reinterpret_cast<uint4*>(d) = *reinterpret_cast<const uint4*>(v);
    } else {
#pragma unroll
      for (int j = 0; j < E; ++j)
        if (c0 + j < p.width) d[j] = v[j];
    }
  }
}

}  // namespace ferrocute

extern "C" __global__ void __launch_bounds__(256)
    ferrocute_stage_copy_b16(const ferrocute::StageCopyParams p) {
  ferrocute::stage_copy<uint16_t>(p);
}

extern "C" __global__ void __launch_bounds__(256)
    ferrocute_stage_copy_b32(const ferrocute::StageCopyParams p) {
  ferrocute::stage_copy<uint32_t>(p);
}
