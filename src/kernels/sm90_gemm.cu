// Instantiation unit for the sm_90a GEMM kernels (see sm90_gemm.cuh for the contract).
// Build: nvcc -gencode=arch=compute_90a,code=compute_90a --ptx -O3 -DNDEBUG --expt-relaxed-constexpr
//        -std=c++17 -I<cutlass>/include -I src/kernels
//        [-DFERROCUTE_SM90_CONFIG_HEADER='"my_configs.h"'] src/kernels/sm90_gemm.cu
// The config header must define FERROCUTE_SM90_CONFIGS(X) calling X(cfgname, CfgType) per config;
// it may define FERROCUTE_SM90_B_K_CONFIGS(X), the same for those that take a K-major B only
// (BN not a multiple of 64), FERROCUTE_SM90_EPI_CONFIGS(X) for those with `_epi` entry
// points and FERROCUTE_SM90_ND_CONFIGS(X) for those with `_nd` ones (each empty where it
// does not).
// Optional narrowing (each defaults to all): FERROCUTE_SM90_ONLY_KK (am=k,bm=k only),
// FERROCUTE_SM90_ONLY_BF16 (in=bf16, out=bf16 only).
#include "sm90_gemm.cuh"

#include FERROCUTE_SM90_CONFIG_HEADER

#ifndef FERROCUTE_SM90_B_K_CONFIGS
#define FERROCUTE_SM90_B_K_CONFIGS(X)
#endif
#ifndef FERROCUTE_SM90_EPI_CONFIGS
#define FERROCUTE_SM90_EPI_CONFIGS(X)
#endif
#ifndef FERROCUTE_SM90_ND_CONFIGS
#define FERROCUTE_SM90_ND_CONFIGS(X)
#endif

#if defined(FERROCUTE_SM90_ONLY_BF16)
#define FERROCUTE_SM90_TYPES(name, Cfg, am, bm) FERROCUTE_SM90_DEFINE(name, Cfg, am, bm, bf16, bf16)
#else
#define FERROCUTE_SM90_TYPES(name, Cfg, am, bm)        \
  FERROCUTE_SM90_DEFINE(name, Cfg, am, bm, bf16, bf16) \
  FERROCUTE_SM90_DEFINE(name, Cfg, am, bm, bf16, f16)  \
  FERROCUTE_SM90_DEFINE(name, Cfg, am, bm, bf16, f32)  \
  FERROCUTE_SM90_DEFINE(name, Cfg, am, bm, f16, bf16)  \
  FERROCUTE_SM90_DEFINE(name, Cfg, am, bm, f16, f16)   \
  FERROCUTE_SM90_DEFINE(name, Cfg, am, bm, f16, f32)
#endif

#if defined(FERROCUTE_SM90_ONLY_KK)
#define FERROCUTE_SM90_MAJORS(name, Cfg) FERROCUTE_SM90_TYPES(name, Cfg, k, k)
#else
#define FERROCUTE_SM90_MAJORS(name, Cfg) \
  FERROCUTE_SM90_TYPES(name, Cfg, k, k)  \
  FERROCUTE_SM90_TYPES(name, Cfg, k, n)  \
  FERROCUTE_SM90_TYPES(name, Cfg, m, k)  \
  FERROCUTE_SM90_TYPES(name, Cfg, m, n)
#endif

FERROCUTE_SM90_CONFIGS(FERROCUTE_SM90_MAJORS)

#if defined(FERROCUTE_SM90_ONLY_KK)
#define FERROCUTE_SM90_A_MAJORS(name, Cfg) FERROCUTE_SM90_TYPES(name, Cfg, k, k)
#else
#define FERROCUTE_SM90_A_MAJORS(name, Cfg) \
  FERROCUTE_SM90_TYPES(name, Cfg, k, k)    \
  FERROCUTE_SM90_TYPES(name, Cfg, m, k)
#endif

FERROCUTE_SM90_B_K_CONFIGS(FERROCUTE_SM90_A_MAJORS)

// The fused launches' entry points (KernelConfig::fused_entries): K-major A and B, D of the
// input's 16-bit type, the configurations FERROCUTE_SM90_EPI_CONFIGS lists.
#if defined(FERROCUTE_SM90_ONLY_BF16)
#define FERROCUTE_SM90_EPI(name, Cfg) FERROCUTE_SM90_DEFINE_EPI(name, Cfg, k, k, bf16, bf16)
#else
#define FERROCUTE_SM90_EPI(name, Cfg)                    \
  FERROCUTE_SM90_DEFINE_EPI(name, Cfg, k, k, bf16, bf16) \
  FERROCUTE_SM90_DEFINE_EPI(name, Cfg, k, k, f16, f16)
#endif

FERROCUTE_SM90_EPI_CONFIGS(FERROCUTE_SM90_EPI)

// The entry points of an N-major D (KernelConfig::n_major_d on a tile of whole boxes: y =
// x·Wᵀ's transpose, the weight on M): K-major A and B, a 16-bit D, the configurations
// FERROCUTE_SM90_ND_CONFIGS lists.
#if defined(FERROCUTE_SM90_ONLY_BF16)
#define FERROCUTE_SM90_ND(name, Cfg) FERROCUTE_SM90_DEFINE_ND(name, Cfg, k, k, bf16, bf16)
#else
#define FERROCUTE_SM90_ND(name, Cfg)                    \
  FERROCUTE_SM90_DEFINE_ND(name, Cfg, k, k, bf16, bf16) \
  FERROCUTE_SM90_DEFINE_ND(name, Cfg, k, k, bf16, f16)  \
  FERROCUTE_SM90_DEFINE_ND(name, Cfg, k, k, f16, bf16)  \
  FERROCUTE_SM90_DEFINE_ND(name, Cfg, k, k, f16, f16)
#endif

FERROCUTE_SM90_ND_CONFIGS(FERROCUTE_SM90_ND)
