// Instantiation unit for the small-M kernels that stream B through registers (contract:
// sm90_skinny.cuh). Build: nvcc -gencode=arch=compute_90,code=compute_90 --ptx -O3 -DNDEBUG
//        --expt-relaxed-constexpr -std=c++17 -I<cutlass>/include -I src/kernels
//        -DFERROCUTE_SKINNY_CONFIG_HEADER='"<generated header>"' src/kernels/sm90_skinny.cu
// The config header (rendered by ferrocute_kernels::sm90_skinny) defines
// FERROCUTE_SKINNY_CONFIGS(X) calling X(cfgname, CfgType) per config.
#include "sm90_skinny.cuh"

#include FERROCUTE_SKINNY_CONFIG_HEADER

#define FERROCUTE_SKINNY_TYPES(name, Cfg)        \
  FERROCUTE_SKINNY_DEFINE(name, Cfg, bf16, bf16) \
  FERROCUTE_SKINNY_DEFINE(name, Cfg, bf16, f16)  \
  FERROCUTE_SKINNY_DEFINE(name, Cfg, bf16, f32)  \
  FERROCUTE_SKINNY_DEFINE(name, Cfg, f16, bf16)  \
  FERROCUTE_SKINNY_DEFINE(name, Cfg, f16, f16)   \
  FERROCUTE_SKINNY_DEFINE(name, Cfg, f16, f32)

FERROCUTE_SKINNY_CONFIGS(FERROCUTE_SKINNY_TYPES)
