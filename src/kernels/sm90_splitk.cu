// Instantiation unit for the sm_90a small-M split-K kernels (contract: sm90_splitk.cuh).
// Build: nvcc -gencode=arch=compute_90a,code=compute_90a --ptx -O3 -DNDEBUG --expt-relaxed-constexpr
//        -std=c++17 -I<cutlass>/include -I src/kernels
//        -DFERROCUTE_SPLITK_CONFIG_HEADER='"<generated header>"' src/kernels/sm90_splitk.cu
// The config header (rendered by ferrocute_kernels::sm90_splitk) defines
// FERROCUTE_SPLITK_CONFIGS(X) calling X(cfgname, CfgType) per config, and
// FERROCUTE_SPLITK_A_K_CONFIGS(X) likewise for those with K-major A entry points only.
// Optional narrowing for experiments (each defaults to all): FERROCUTE_SM90_ONLY_KK
// (am=k,bm=k only), FERROCUTE_SM90_ONLY_BF16 (in=bf16, out=bf16 only).
#include "sm90_splitk.cuh"

#include FERROCUTE_SPLITK_CONFIG_HEADER

#if defined(FERROCUTE_SM90_ONLY_BF16)
#define FERROCUTE_SPLITK_TYPES(name, Cfg, am, bm) \
  FERROCUTE_SPLITK_DEFINE(name, Cfg, am, bm, bf16, bf16)
#else
#define FERROCUTE_SPLITK_TYPES(name, Cfg, am, bm)        \
  FERROCUTE_SPLITK_DEFINE(name, Cfg, am, bm, bf16, bf16) \
  FERROCUTE_SPLITK_DEFINE(name, Cfg, am, bm, bf16, f16)  \
  FERROCUTE_SPLITK_DEFINE(name, Cfg, am, bm, bf16, f32)  \
  FERROCUTE_SPLITK_DEFINE(name, Cfg, am, bm, f16, bf16)  \
  FERROCUTE_SPLITK_DEFINE(name, Cfg, am, bm, f16, f16)   \
  FERROCUTE_SPLITK_DEFINE(name, Cfg, am, bm, f16, f32)
#endif

#if defined(FERROCUTE_SM90_ONLY_KK)
#define FERROCUTE_SPLITK_MAJORS(name, Cfg) FERROCUTE_SPLITK_TYPES(name, Cfg, k, k)
#else
#define FERROCUTE_SPLITK_MAJORS(name, Cfg) \
  FERROCUTE_SPLITK_TYPES(name, Cfg, k, k)  \
  FERROCUTE_SPLITK_TYPES(name, Cfg, k, n)  \
  FERROCUTE_SPLITK_TYPES(name, Cfg, m, k)  \
  FERROCUTE_SPLITK_TYPES(name, Cfg, m, n)
#endif

FERROCUTE_SPLITK_CONFIGS(FERROCUTE_SPLITK_MAJORS)

// Tiles whose TM the MN-major atom does not tile: a K-major A only.
#if defined(FERROCUTE_SM90_ONLY_KK)
#define FERROCUTE_SPLITK_A_MAJORS(name, Cfg) FERROCUTE_SPLITK_TYPES(name, Cfg, k, k)
#else
#define FERROCUTE_SPLITK_A_MAJORS(name, Cfg) \
  FERROCUTE_SPLITK_TYPES(name, Cfg, k, k)    \
  FERROCUTE_SPLITK_TYPES(name, Cfg, k, n)
#endif

FERROCUTE_SPLITK_A_K_CONFIGS(FERROCUTE_SPLITK_A_MAJORS)
