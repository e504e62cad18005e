// Hand-written example Configs for sm80_gemm.cuh (schema documented at the top of that file).
// Every layout is spelled as the concrete CuTe type the Rust renderer must produce
// (tile_to_shape of a swizzled atom, flattened to Layout<Shape<...>,Stride<...>>): no decltype.
#pragma once
#include <cute/tensor.hpp>

namespace ferrocute_cfg_detail {
using namespace cute;

// ---------------------------------------------------------------------------------------
// 128x256x32, 4 stages, 8 warps (2x4), each warp 64x64. smem = (128+256)*32*4*2 = 96 KiB
// (needs MAX_DYNAMIC_SHARED_SIZE_BYTES). Fastest measured on H100/H200 for large problems.
// ---------------------------------------------------------------------------------------
struct Sm80_128x256x32_s4 {
  using TileShape = Shape<Int<128>, Int<256>, Int<32>>;
  static constexpr int Stages = 4;
  static constexpr int GmemVec = 8;
  static constexpr int Threads = 256;
  static constexpr int RasterGroup = 8;
  using MmaAtomLayout = Layout<Shape<Int<2>, Int<4>, Int<1>>, Stride<Int<1>, Int<2>, Int<0>>>;
  using MmaPermutation = Tile<Int<32>, Int<64>, Int<16>>;
  using SmemLayoutA_K = ComposedLayout<Swizzle<2, 3, 3>, C<0>,
      Layout<Shape<Shape<Int<8>, Int<16>>, Shape<Int<32>, Int<1>>, Shape<Int<1>, Int<4>>>,
             Stride<Stride<Int<32>, Int<256>>, Stride<Int<1>, Int<0>>, Stride<Int<0>, Int<4096>>>>>;
  using SmemLayoutA_M = ComposedLayout<Swizzle<3, 3, 3>, C<0>,
      Layout<Shape<Shape<Int<64>, Int<2>>, Shape<Int<8>, Int<4>>, Shape<Int<1>, Int<4>>>,
             Stride<Stride<Int<1>, Int<512>>, Stride<Int<64>, Int<1024>>, Stride<Int<0>, Int<4096>>>>>;
  using SmemLayoutB_K = ComposedLayout<Swizzle<2, 3, 3>, C<0>,
      Layout<Shape<Shape<Int<8>, Int<32>>, Shape<Int<32>, Int<1>>, Shape<Int<1>, Int<4>>>,
             Stride<Stride<Int<32>, Int<256>>, Stride<Int<1>, Int<0>>, Stride<Int<0>, Int<8192>>>>>;
  using SmemLayoutB_N = ComposedLayout<Swizzle<3, 3, 3>, C<0>,
      Layout<Shape<Shape<Int<64>, Int<4>>, Shape<Int<8>, Int<4>>, Shape<Int<1>, Int<4>>>,
             Stride<Stride<Int<1>, Int<512>>, Stride<Int<64>, Int<2048>>, Stride<Int<0>, Int<8192>>>>>;
  using GmemCopyThrLayoutA_K = Layout<Shape<Int<64>, Int<4>>, Stride<Int<4>, Int<1>>>;
  using GmemCopyValLayoutA_K = Layout<Shape<Int<1>, Int<8>>, Stride<Int<0>, Int<1>>>;
  using GmemCopyThrLayoutA_M = Layout<Shape<Int<16>, Int<16>>, Stride<Int<1>, Int<16>>>;
  using GmemCopyValLayoutA_M = Layout<Shape<Int<8>, Int<1>>, Stride<Int<1>, Int<0>>>;
  using GmemCopyThrLayoutB_K = GmemCopyThrLayoutA_K;
  using GmemCopyValLayoutB_K = GmemCopyValLayoutA_K;
  using GmemCopyThrLayoutB_N = GmemCopyThrLayoutA_M;
  using GmemCopyValLayoutB_N = GmemCopyValLayoutA_M;
};

// ---------------------------------------------------------------------------------------
// 128x128x32, 3 stages, 4 warps (2x2), each warp 64x64. smem = (128+128)*32*3*2 = 48 KiB.
// ---------------------------------------------------------------------------------------
struct Sm80_128x128x32_s3 {
  using TileShape = Shape<Int<128>, Int<128>, Int<32>>;
  static constexpr int Stages = 3;
  static constexpr int GmemVec = 8;
  static constexpr int Threads = 128;
  static constexpr int RasterGroup = 8;
  using MmaAtomLayout = Layout<Shape<Int<2>, Int<2>, Int<1>>, Stride<Int<1>, Int<2>, Int<0>>>;
  using MmaPermutation = Tile<Int<32>, Int<32>, Int<16>>;
  // K-major: Swizzle<2,3,3> o (8,32):(32,1), tiled to (128,32,3)
  using SmemLayoutA_K = ComposedLayout<Swizzle<2, 3, 3>, C<0>,
      Layout<Shape<Shape<Int<8>, Int<16>>, Shape<Int<32>, Int<1>>, Shape<Int<1>, Int<3>>>,
             Stride<Stride<Int<32>, Int<256>>, Stride<Int<1>, Int<0>>, Stride<Int<0>, Int<4096>>>>>;
  // M-major: Swizzle<3,3,3> o (64,8):(1,64), tiled to (128,32,3)
  using SmemLayoutA_M = ComposedLayout<Swizzle<3, 3, 3>, C<0>,
      Layout<Shape<Shape<Int<64>, Int<2>>, Shape<Int<8>, Int<4>>, Shape<Int<1>, Int<3>>>,
             Stride<Stride<Int<1>, Int<512>>, Stride<Int<64>, Int<1024>>, Stride<Int<0>, Int<4096>>>>>;
  using SmemLayoutB_K = SmemLayoutA_K;
  using SmemLayoutB_N = SmemLayoutA_M;
  using GmemCopyThrLayoutA_K = Layout<Shape<Int<32>, Int<4>>, Stride<Int<4>, Int<1>>>;
  using GmemCopyValLayoutA_K = Layout<Shape<Int<1>, Int<8>>, Stride<Int<0>, Int<1>>>;
  using GmemCopyThrLayoutA_M = Layout<Shape<Int<16>, Int<8>>, Stride<Int<1>, Int<16>>>;
  using GmemCopyValLayoutA_M = Layout<Shape<Int<8>, Int<1>>, Stride<Int<1>, Int<0>>>;
  using GmemCopyThrLayoutB_K = GmemCopyThrLayoutA_K;
  using GmemCopyValLayoutB_K = GmemCopyValLayoutA_K;
  using GmemCopyThrLayoutB_N = GmemCopyThrLayoutA_M;
  using GmemCopyValLayoutB_N = GmemCopyValLayoutA_M;
};

// ---------------------------------------------------------------------------------------
// 64x64x32, 3 stages, 4 warps (2x2), each warp 32x32. smem = (64+64)*32*3*2 = 24 KiB.
// ---------------------------------------------------------------------------------------
struct Sm80_64x64x32_s3 {
  using TileShape = Shape<Int<64>, Int<64>, Int<32>>;
  static constexpr int Stages = 3;
  static constexpr int GmemVec = 8;
  static constexpr int Threads = 128;
  static constexpr int RasterGroup = 8;
  using MmaAtomLayout = Layout<Shape<Int<2>, Int<2>, Int<1>>, Stride<Int<1>, Int<2>, Int<0>>>;
  using MmaPermutation = Tile<Int<32>, Int<32>, Int<16>>;
  using SmemLayoutA_K = ComposedLayout<Swizzle<2, 3, 3>, C<0>,
      Layout<Shape<Shape<Int<8>, Int<8>>, Shape<Int<32>, Int<1>>, Shape<Int<1>, Int<3>>>,
             Stride<Stride<Int<32>, Int<256>>, Stride<Int<1>, Int<0>>, Stride<Int<0>, Int<2048>>>>>;
  using SmemLayoutA_M = ComposedLayout<Swizzle<3, 3, 3>, C<0>,
      Layout<Shape<Shape<Int<64>, Int<1>>, Shape<Int<8>, Int<4>>, Shape<Int<1>, Int<3>>>,
             Stride<Stride<Int<1>, Int<0>>, Stride<Int<64>, Int<512>>, Stride<Int<0>, Int<2048>>>>>;
  using SmemLayoutB_K = SmemLayoutA_K;
  using SmemLayoutB_N = SmemLayoutA_M;
  using GmemCopyThrLayoutA_K = Layout<Shape<Int<32>, Int<4>>, Stride<Int<4>, Int<1>>>;
  using GmemCopyValLayoutA_K = Layout<Shape<Int<1>, Int<8>>, Stride<Int<0>, Int<1>>>;
  using GmemCopyThrLayoutA_M = Layout<Shape<Int<8>, Int<16>>, Stride<Int<1>, Int<8>>>;
  using GmemCopyValLayoutA_M = Layout<Shape<Int<8>, Int<1>>, Stride<Int<1>, Int<0>>>;
  using GmemCopyThrLayoutB_K = GmemCopyThrLayoutA_K;
  using GmemCopyValLayoutB_K = GmemCopyValLayoutA_K;
  using GmemCopyThrLayoutB_N = GmemCopyThrLayoutA_M;
  using GmemCopyValLayoutB_N = GmemCopyValLayoutA_M;
};

}  // namespace ferrocute_cfg_detail

using ferrocute_cfg_detail::Sm80_128x256x32_s4;
using ferrocute_cfg_detail::Sm80_128x128x32_s3;
using ferrocute_cfg_detail::Sm80_64x64x32_s3;

// The list of configs the instantiation unit stamps: X(StructName, lowercase_name)
#define FERROCUTE_SM80_CONFIGS(X) \
  X(Sm80_128x256x32_s4, sm80_128x256x32_s4) \
  X(Sm80_128x128x32_s3, sm80_128x128x32_s3) \
  X(Sm80_64x64x32_s3, sm80_64x64x32_s3)
