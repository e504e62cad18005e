// Example configurations for sm90_gemm.cuh, written as concrete CuTe types (no decltype) so that
// the Rust side can render the same strings.  Schema: see the top of sm90_gemm.cuh.
//
// The configuration list macro FERROCUTE_SM90_CONFIGS(X) calls X(cfgname, CfgType) once per
// config; sm90_gemm.cu instantiates every (config, am, bm, in, out) combination from it.
#pragma once
#include <cute/layout.hpp>
#include <cute/swizzle.hpp>
#include <cute/swizzle_layout.hpp>
#include <cute/pointer_flagged.hpp>

struct Sm90Cfg_128x256x64_s4_coop {
  using TileShape = cute::Shape<cute::Int<128>, cute::Int<256>, cute::Int<64>>;
  using ClusterShape = cute::Shape<cute::Int<1>, cute::Int<1>, cute::Int<1>>;
  static constexpr int Stages = 4;
  using SmemLayoutAtomK = cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,
      cute::Layout<cute::Shape<cute::Int<8>, cute::Int<64>>, cute::Stride<cute::Int<64>, cute::Int<1>>>>;
  using SmemLayoutAtomMN = cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,
      cute::Layout<cute::Shape<cute::Int<64>, cute::Int<8>>, cute::Stride<cute::Int<1>, cute::Int<64>>>>;
  static constexpr int RasterGroup = 8;
  static constexpr int EpiN = 32;
  static constexpr int Schedule = 0;  // cooperative
};

struct Sm90Cfg_128x128x64_s6_coop {
  using TileShape = cute::Shape<cute::Int<128>, cute::Int<128>, cute::Int<64>>;
  using ClusterShape = cute::Shape<cute::Int<1>, cute::Int<1>, cute::Int<1>>;
  static constexpr int Stages = 6;
  using SmemLayoutAtomK = cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,
      cute::Layout<cute::Shape<cute::Int<8>, cute::Int<64>>, cute::Stride<cute::Int<64>, cute::Int<1>>>>;
  using SmemLayoutAtomMN = cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,
      cute::Layout<cute::Shape<cute::Int<64>, cute::Int<8>>, cute::Stride<cute::Int<1>, cute::Int<64>>>>;
  static constexpr int RasterGroup = 8;
  static constexpr int EpiN = 32;
  static constexpr int Schedule = 0;  // cooperative
};

// Pingpong: each consumer warpgroup owns a whole 128x128 tile (2 x m64n128k16 per k16).
struct Sm90Cfg_128x128x64_s6_pp {
  using TileShape = cute::Shape<cute::Int<128>, cute::Int<128>, cute::Int<64>>;
  using ClusterShape = cute::Shape<cute::Int<1>, cute::Int<1>, cute::Int<1>>;
  static constexpr int Stages = 6;
  using SmemLayoutAtomK = cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,
      cute::Layout<cute::Shape<cute::Int<8>, cute::Int<64>>, cute::Stride<cute::Int<64>, cute::Int<1>>>>;
  using SmemLayoutAtomMN = cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,
      cute::Layout<cute::Shape<cute::Int<64>, cute::Int<8>>, cute::Stride<cute::Int<1>, cute::Int<64>>>>;
  static constexpr int RasterGroup = 8;
  static constexpr int EpiN = 32;
  static constexpr int Schedule = 1;  // pingpong
};

// Pingpong: each consumer warpgroup owns a whole 64x256 tile (1 x m64n256k16 per k16).
struct Sm90Cfg_64x256x64_s5_pp {
  using TileShape = cute::Shape<cute::Int<64>, cute::Int<256>, cute::Int<64>>;
  using ClusterShape = cute::Shape<cute::Int<1>, cute::Int<1>, cute::Int<1>>;
  static constexpr int Stages = 5;
  using SmemLayoutAtomK = cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,
      cute::Layout<cute::Shape<cute::Int<8>, cute::Int<64>>, cute::Stride<cute::Int<64>, cute::Int<1>>>>;
  using SmemLayoutAtomMN = cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>,
      cute::Layout<cute::Shape<cute::Int<64>, cute::Int<8>>, cute::Stride<cute::Int<1>, cute::Int<64>>>>;
  static constexpr int RasterGroup = 8;
  static constexpr int EpiN = 32;
  static constexpr int Schedule = 1;  // pingpong
};

#define FERROCUTE_SM90_CONFIGS(X)                              \
  X(128x256x64_s4_coop, Sm90Cfg_128x256x64_s4_coop)            \
  X(128x128x64_s6_coop, Sm90Cfg_128x128x64_s6_coop)            \
  X(128x128x64_s6_pp, Sm90Cfg_128x128x64_s6_pp)                \
  X(64x256x64_s5_pp, Sm90Cfg_64x256x64_s5_pp)
