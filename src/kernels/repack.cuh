// ferrocute: the repacking copies of GEMM operands (src/gemm/repack.rs).
//
// An A or B whose base, leading dimension or batch stride is not a multiple of 16 bytes
// cannot be read by TMA, and a C like that cannot take 16-byte or TMA stores. The host
// copies such an A or B into a workspace whose rows start on 128-byte lines, has the GEMM
// read it there, and for such a C has the GEMM write D to the workspace and copies it out.
//
// An M-major A of a few hundred rows whose rows (one k each) are not whole 128-byte lines
// is copied transposed instead: K-major, the layout the small-M tiles read fastest.
//
// ENTRY POINTS (extern "C", one RepackParams by value):
//   ferrocute_repack_b16      2-byte elements (bf16, f16)
//   ferrocute_repack_b32      4-byte elements (f32)
//   ferrocute_transpose_b16   2-byte elements, transposed
// LAUNCH FORMULA
//   grid  = (any, count, 1)   blocks of one copy grid-stride over its rows (transposed: its
//                             64 x 64 tiles); y = the copy
//   block = (256, 1, 1), no dynamic shared memory
// Copy y reads `height` rows of `width` elements, src_ld apart, from src + y * src_step,
// and writes them dst_ld apart from dst + y * dst_step; nothing past `width` is read or
// written. Transposed, it writes element c of source row r to element r of destination row
// c: `width` rows of `height` elements. Either side may have any element alignment.
#pragma once

#include <cstdint>

namespace ferrocute {

struct RepackParams {
  const void* src;
  void* dst;
  int64_t src_ld;
  int64_t dst_ld;
  int64_t width;
  int64_t height;
  int64_t src_step;
  int64_t dst_step;
};

// The widest access, 16, 8 or 4 bytes or one element, at which every row of every copy
// starts: a C whose rows are 8 bytes apart is written 8 bytes at a time, not by element.
template <class T>
__device__ __forceinline__ int row_access(const void* base, int64_t ld, int64_t step) {
  const uint64_t bits = reinterpret_cast<uintptr_t>(base) | uint64_t(ld * int64_t(sizeof(T))) |
                        uint64_t(step * int64_t(sizeof(T)));
  return (bits & 15) == 0 ? 16 : (bits & 7) == 0 ? 8 : (bits & 3) == 0 ? 4 : int(sizeof(T));
}

template <int W> struct Access;
template <> struct Access<16> { using type = uint4; };
template <> struct Access<8> { using type = uint2; };
template <> struct Access<4> { using type = uint32_t; };
template <> struct Access<2> { using type = uint16_t; };

// One 16-byte piece in accesses of W bytes; `from` and `to` are W-byte aligned.
template <int W>
__device__ __forceinline__ void load_piece(const void* from, void* to) {
  using V = typename Access<W>::type;
#pragma unroll
  for (int j = 0; j < 16 / W; ++j)
    static_cast<V*>(to)[j] = __ldg(static_cast<const V*>(from) + j);
}

template <int W>
__device__ __forceinline__ void store_piece(const void* from, void* to) {
  using V = typename Access<W>::type;
#pragma unroll
  for (int j = 0; j < 16 / W; ++j) static_cast<V*>(to)[j] = static_cast<const V*>(from)[j];
}

// Each thread moves one 16-byte piece of a row (16 / sizeof(T) elements) with the widest
// accesses each side's row starts allow (a warp's 32 pieces are 512 contiguous bytes, so
// L1 merges narrow loads into whole lines); a row's last, partial piece goes by element.
template <class T>
__device__ __forceinline__ void repack(RepackParams const& p) {
  constexpr int E = 16 / int(sizeof(T));
  const int src_w = row_access<T>(p.src, p.src_ld, p.src_step);
  const int dst_w = row_access<T>(p.dst, p.dst_ld, p.dst_step);
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
    alignas(16) T v[E];
    if (c0 + E <= p.width) {
      switch (src_w) {
        case 16: load_piece<16>(s, v); break;
        case 8: load_piece<8>(s, v); break;
        case 4: load_piece<4>(s, v); break;
        default: load_piece<int(sizeof(T))>(s, v);
      }
      switch (dst_w) {
        case 16: store_piece<16>(v, d); break;
        case 8: store_piece<8>(v, d); break;
        case 4: store_piece<4>(v, d); break;
        default: store_piece<int(sizeof(T))>(v, d);
      }
    } else {
#pragma unroll
      for (int j = 0; j < E; ++j)
        if (c0 + j < p.width) d[j] = __ldg(s + j);
    }
  }
}

// The transposed copy: each block moves 64 x 64 tiles through shared memory, reading 64
// elements of each of 64 source rows and writing 64 elements of each of 64 destination rows
// (2-byte accesses, a warp's 32 on 64 contiguous bytes either side; the copies are of a
// few MB, where the launch costs more than the accesses).
template <class T>
__device__ __forceinline__ void transpose(RepackParams const& p) {
  constexpr int kTile = 64;
  __shared__ T tile[kTile][kTile + 2];   // (source row, source column); +2: no bank conflicts
  const T* src = static_cast<const T*>(p.src) + int64_t(blockIdx.y) * p.src_step;
  T* dst = static_cast<T*>(p.dst) + int64_t(blockIdx.y) * p.dst_step;
  const int64_t tiles_c = (p.width + kTile - 1) / kTile;
  const int64_t tiles = tiles_c * ((p.height + kTile - 1) / kTile);
  const int x = threadIdx.x % kTile, y0 = threadIdx.x / kTile;   // 4 rows a pass
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t r0 = (t / tiles_c) * kTile, c0 = (t % tiles_c) * kTile;
    __syncthreads();   // the previous tile's reads are done
#pragma unroll 4
    for (int y = y0; y < kTile; y += 4) {
      const int64_t r = r0 + y, c = c0 + x;
      if (r < p.height && c < p.width) tile[y][x] = __ldg(src + r * p.src_ld + c);
    }
    __syncthreads();
#pragma unroll 4
    for (int y = y0; y < kTile; y += 4) {
      const int64_t c = c0 + y, r = r0 + x;   // destination row c, element r
      if (c < p.width && r < p.height) dst[c * p.dst_ld + r] = tile[x][y];
    }
  }
}

}  // namespace ferrocute

extern "C" __global__ void __launch_bounds__(256)
    ferrocute_transpose_b16(const ferrocute::RepackParams p) {
  ferrocute::transpose<uint16_t>(p);
}

extern "C" __global__ void __launch_bounds__(256)
    ferrocute_repack_b16(const ferrocute::RepackParams p) {
  ferrocute::repack<uint16_t>(p);
}

extern "C" __global__ void __launch_bounds__(256)
    ferrocute_repack_b32(const ferrocute::RepackParams p) {
  ferrocute::repack<uint32_t>(p);
}
