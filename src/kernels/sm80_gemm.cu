// ferrocute SM80 GEMM instantiation unit -> PTX (compute_80; JITs on sm_80..sm_90).
//
// Build:
//   nvcc -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr \
//        -gencode=arch=compute_80,code=compute_80 --ptx \
//        -I<cutlass>/include -Isrc/kernels [-DFERROCUTE_CONFIG_HEADER='"gen_configs.h"'] \
//        src/kernels/sm80_gemm.cu -o ptx/sm80_gemm.ptx
//
// Config header: FERROCUTE_CONFIG_HEADER (generated from the Rust configuration types) must define the
// Config structs (schema: top of sm80_gemm.cuh) and the X-macro
//   #define FERROCUTE_SM80_CONFIGS(X)  X(StructName, lowercase_struct_name) ...
//
// Entry points (extern "C", one GemmParams argument by value):
//   ferrocute_<cfg>_<am><bm>_<in>_<out>      cfg = lowercase config struct name,
//   ferrocute_gemm_simple_<am><bm>_<in>_<out>
//   ferrocute_repack_b16, ferrocute_repack_b32, ferrocute_transpose_b16   (repack.cuh: their
//     own contract)
//     am  in {k, m}: A K-major / M-major;   bm in {k, n}: B K-major / N-major
//     in  in {bf16, f16} (A and B);          out in {bf16, f16, f32} (C and D)
//   e.g. ferrocute_sm80_128x256x32_s4_kn_bf16_f32, ferrocute_gemm_simple_mk_f16_bf16
//
// Launch formula, sm80 config kernels (BM,BN,BK = TileShape, S = Stages, e = 2 bytes):
//   grid  = ( ceil(M/BM) * ceil(N/BN), 1, batch )          (batch <= 65535)
//   block = ( Config::Threads, 1, 1 )
//   dynamic smem bytes = (BM + BN) * BK * S * e
//       Sm80_128x256x32_s4: 98304 (256 threads)   Sm80_128x128x32_s3: 49152 (128 threads)
//       Sm80_64x64x32_s3:   24576 (128 threads)
//   If smem > 48 KiB (49152), call once per function before launching:
//     cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem)
//   (harmless to always set it). Preconditions: lda, ldb % 8 == 0; a, b, and batch strides
//   16-byte aligned; M, N, K >= 1. C/D may have any ldc/ldd (>= M) and alignment.
//
// Launch formula, gemm_simple kernels (any strides / alignment):
//   grid = ( ceil(M/64), ceil(N/64), batch ), block = (256,1,1), dynamic smem = 0.
//
// beta == 0: C is never read (p.c may be null). C has D's element type.
#include "gemm_params.h"
#include "sm80_gemm.cuh"
// The repacking copy of operands TMA cannot read in place: in this module, which every
// GPU the crate supports loads. Before the config header, which checks its parameters.
#include "repack.cuh"

#include FERROCUTE_CONFIG_HEADER

#define FC_T_bf16 cute::bfloat16_t
#define FC_T_f16  cute::half_t
#define FC_T_f32  float
#define FC_MAJ_k  true
#define FC_MAJ_m  false
#define FC_MAJ_n  false

#define FC_SM80_ENTRY(CFG, cfg, am, bm, in, out)                                            \
  extern "C" __global__ void __launch_bounds__(CFG::Threads)                              \
  ferrocute_##cfg##_##am##bm##_##in##_##out(GemmParams p) {                                \
    if (p.d_n_major) __trap(); /* the small-M kernels' layout only */                      \
    ferrocute::sm80_gemm_device<CFG, FC_MAJ_##am, FC_MAJ_##bm, FC_T_##in, FC_T_##out>(p);  \
  }

#define FC_SM80_OUTS(CFG, cfg, am, bm, in) \
  FC_SM80_ENTRY(CFG, cfg, am, bm, in, bf16) \
  FC_SM80_ENTRY(CFG, cfg, am, bm, in, f16)  \
  FC_SM80_ENTRY(CFG, cfg, am, bm, in, f32)
#define FC_SM80_INS(CFG, cfg, am, bm) \
  FC_SM80_OUTS(CFG, cfg, am, bm, bf16) \
  FC_SM80_OUTS(CFG, cfg, am, bm, f16)
#define FC_SM80_CONFIG(CFG, cfg) \
  FC_SM80_INS(CFG, cfg, k, k) \
  FC_SM80_INS(CFG, cfg, k, n) \
  FC_SM80_INS(CFG, cfg, m, k) \
  FC_SM80_INS(CFG, cfg, m, n)

FERROCUTE_SM80_CONFIGS(FC_SM80_CONFIG)

#define FC_SIMPLE_ENTRY(am, bm, in, out)                                                   \
  extern "C" __global__ void __launch_bounds__(256)                                      \
  ferrocute_gemm_simple_##am##bm##_##in##_##out(GemmParams p) {                          \
    if (p.d_n_major) __trap();                                                           \
    ferrocute::gemm_simple_device<FC_MAJ_##am, FC_MAJ_##bm, FC_T_##in, FC_T_##out>(p);   \
  }
#define FC_SIMPLE_OUTS(am, bm, in) \
  FC_SIMPLE_ENTRY(am, bm, in, bf16) FC_SIMPLE_ENTRY(am, bm, in, f16) FC_SIMPLE_ENTRY(am, bm, in, f32)
#define FC_SIMPLE_INS(am, bm) FC_SIMPLE_OUTS(am, bm, bf16) FC_SIMPLE_OUTS(am, bm, f16)
FC_SIMPLE_INS(k, k)
FC_SIMPLE_INS(k, n)
FC_SIMPLE_INS(m, k)
FC_SIMPLE_INS(m, n)

