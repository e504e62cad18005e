// ferrocute: Hopper (sm_90a) bf16/f16 GEMM, TMA + WGMMA, warp-specialized, persistent.
//
// Schedules: Schedule = 0 cooperative (both consumer warpgroups on one 128-row tile);
// Schedule = 1 pingpong (each consumer warpgroup owns whole tiles, alternate tiles, one WG's
// epilogue overlapping the other's mainloop).
// For beta = 0, a 16-bit D and M % 8 == 0 both schedules store D by TMA (tma_d) from
// 128-byte-swizzled shared memory, with a fused epilogue too (applied in registers).
// Entry points ferrocute_sm90_<cfg>_epi_kk_<t>_<t>
// (FERROCUTE_SM90_DEFINE_EPI) serve fused launches of K-major A and B with D of the inputs'
// 16-bit type: the epilogue unrolled, SwiGLU by TMA; the plain ones apply it in a rolled
// loop and SwiGLU by the general epilogue.
//
// Computes (gemm_params.h convention)  D(m,n,l) = alpha * sum_k A(m,k,l) B(n,k,l) + beta * C(m,n,l)
// with f32 accumulation.  C has the same element type as D.  beta == 0 never reads C.
//
// =====================================================================================
// CONFIG SCHEMA (a plain struct, rendered from the Rust configuration types by
// ferrocute-kernels into the generated header sm90_gemm_configs.h)
// =====================================================================================
//   struct Cfg {
//     using TileShape    = cute::Shape<cute::Int<BM>, cute::Int<BN>, cute::Int<BK>>;
//                          // CTA tile.  Cooperative: BM = 128 (2 consumer warpgroups x 64 rows),
//                          // BN in {64,...,256} multiple of 64 (one WGMMA m64nBNk16 per WG per k16);
//                          // or a narrow tile: BN in {16,...,240} multiple of 16, Schedule 0,
//                          // B K-major only (the MN atom spans 64 rows), D by the general
//                          // epilogue in either order (GemmParams::d_n_major), no _epi entries,
//                          // BK multiple of 64 (64 16-bit elements = one 128-byte swizzle row).
//     static constexpr int Stages = 4;        // smem pipeline depth (A+B tile per stage)
//     using SmemLayoutAtomK  = cute::ComposedLayout<cute::Swizzle<3,4,3>, cute::smem_ptr_flag_bits<16>,
//                                cute::Layout<cute::Shape<cute::Int<8>,cute::Int<64>>,
//                                             cute::Stride<cute::Int<64>,cute::Int<1>>>>;
//                          // smem atom for a K-major operand (== GMMA::Layout_K_SW128_Atom<16-bit>)
//     using SmemLayoutAtomMN = cute::ComposedLayout<cute::Swizzle<3,4,3>, cute::smem_ptr_flag_bits<16>,
//                                cute::Layout<cute::Shape<cute::Int<64>,cute::Int<8>>,
//                                             cute::Stride<cute::Int<1>,cute::Int<64>>>>;
//                          // smem atom for an M/N-major operand (== GMMA::Layout_MN_SW128_Atom<16-bit>)
//                          // Only the 128B-swizzle atoms are accepted (static_assert): the tensor-map
//                          // contract below fixes CU_TENSOR_MAP_SWIZZLE_128B.
//     static constexpr int RasterGroup = 8;   // grouped raster: tiles are walked M-first inside
//                                             // groups of RasterGroup M-tiles (L2 reuse of B)
//     static constexpr int EpiN = 32;         // epilogue staging chunk width (columns of D),
//                                             // a multiple of 16 dividing BN
//     static constexpr int Schedule = 0;      // 0 = cooperative: BM = 128, the 2 consumer WGs
//                                             //     split each tile (64 rows each)
//                                             // 1 = pingpong: BM in {64,128}; each consumer WG
//                                             //     owns whole tiles (alternate tiles), BM*BN <=
//                                             //     24576 or BM=64,BN=256; epilogue of one WG
//                                             //     overlaps the mainloop of the other
//   };
//
// =====================================================================================
// ENTRY POINTS
// =====================================================================================
//   extern "C" __global__ void ferrocute_sm90_<cfg>_<am><bm>_<in>_<out>(
//       GemmParams params,                               // param 0, by value (gemm_params.h)
//       const __grid_constant__ CUtensorMap tma_a,       // param 1, 128 B, 64-B aligned
//       const __grid_constant__ CUtensorMap tma_b,       // param 2
//       const __grid_constant__ CUtensorMap tma_d);      // param 3 (D; see below)
//   am in {k,m}: A K-major / M-major;  bm in {k,n}: B K-major / N-major;
//   in in {bf16,f16} (A and B); out in {bf16,f16,f32} (D and C).
//   e.g. ferrocute_sm90_128x256x64_s4_coop_kk_bf16_bf16; narrow tiles: bm = k only.
//
// =====================================================================================
// TENSOR-MAP CONTRACT (host side: cuTensorMapEncodeTiled, rank 3)
// =====================================================================================
//   common: dataType   = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 (in=bf16) / _FLOAT16 (in=f16)
//           rank       = 3, elementStrides = {1,1,1}
//           interleave = CU_TENSOR_MAP_INTERLEAVE_NONE
//           swizzle    = CU_TENSOR_MAP_SWIZZLE_128B
//           l2Promotion= CU_TENSOR_MAP_L2_PROMOTION_L2_256B
//           oobFill    = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE   (zero fill: required for M/N/K residues)
//           globalAddress = params.a / params.b (must be 16-byte aligned)
//   globalStrides (bytes, dims 1 and 2 only): {ld*2, batch_stride*2}; each must be a multiple
//           of 16 (=> lda, ldb, batch strides multiples of 8 elements).  If batch == 1 (or the batch
//           stride is 0) pass batch_stride*2 := ld*2*globalDim[1] instead (any legal value works,
//           coordinate 2 is always 0).  Broadcast batches (stride 0, batch > 1) are not supported.
//   A K-major (am=k): globalDim = {K, M, batch}, globalStrides = {lda*2, batch_stride_a*2},
//                     boxDim = {64, BM, 1}
//   A M-major (am=m): globalDim = {M, K, batch}, globalStrides = {lda*2, batch_stride_a*2},
//                     boxDim = {64, BK, 1}
//   B K-major (bm=k): globalDim = {K, N, batch}, globalStrides = {ldb*2, batch_stride_b*2},
//                     boxDim = {64, BN, 1}
//   B N-major (bm=n): globalDim = {N, K, batch}, globalStrides = {ldb*2, batch_stride_b*2},
//                     boxDim = {64, BK, 1}
//   D (tma_d; encoded where D is 16-bit, its base 16-byte aligned, ldd % 8 == 0, batch == 1
//             or batch_stride_d % 8 == 0, and D's rows a multiple of 8; else any value, e.g.
//             zeroes: the kernel reads it only when beta == 0 as well):
//                     globalDim = {M, N, batch}, globalStrides = {ldd*2, batch_stride_d*2},
//                     boxDim = {64, 64, 1}, 128-byte swizzle; gated (SwiGLU) along M
//                     {M/2, N, batch} in boxes {32, 64, 1}, 64-byte swizzle; along N
//                     {M, N/2, batch} in boxes {64, 32, 1}
//   (64 = 128 bytes of 16-bit elements = the SW128 row; the kernel issues BK/64 (K-major) or
//    BM/64 resp. BN/64 (MN-major) boxes per operand per stage.)
//   Shapes whose ld/batch stride/base are not 16-byte aligned cannot use this kernel (TMA rule);
//   route them elsewhere.  D and C have no such restriction (the epilogue falls back to scalar
//   accesses when ldd/ldc/pointers are not 16-byte aligned).
//
// =====================================================================================
// LAUNCH FORMULA
// =====================================================================================
//   tiles     = ceil(M/BM) * ceil(N/BN) * batch
//   grid      = (min(tiles, numSMs), 1, 1)      persistent; any grid.x >= 1 is correct
//   split tail (params.tail_splits >= 2): the last
//               params.tail_tiles tiles (at most grid.x) are split along K into tail_splits
//               parts (clamped to grid.x / tail_tiles and to the k-blocks), one per CTA
//               (WorkList); grid = (numSMs, 1, 1) makes the other tiles whole rounds.
//               params.workspace: 1024-byte aligned, roundup(grid.x*4, 1024) bytes of u32
//               counters that are zero before the launch (the kernel leaves them zero),
//               then tail_tiles*tail_splits f32 tiles of BM*BN.
//   stream-K  (params.tail_splits < 0): the last params.tail_tiles
//               tiles (grid.x to all of them) run as grid.x equal runs of their k-blocks,
//               one per CTA (WorkList); the workspace as above with 2*grid.x f32 tiles.
//               tail_splits 0 or 1: no split, no workspace.
//   block     = (384, 1, 1)                      warpgroup 0 = producer (1 TMA thread),
//                                                warpgroups 1,2 = consumers (WGMMA + epilogue)
//                                                (both schedules)
//   dynamic smem bytes = smem_bytes<Cfg>() =
//       1024 (alignment slack) + roundup(Stages*(BM+BN)*BK*2 + staging + Stages*16 + 16, 1024)
//       staging = 2*roundup(max(EpiN*(64+4)*4, 2*8192), 1024) (f32 columns, or a ring of two
//                 TMA boxes; a narrow tile: 2*roundup(EpiN*(64+4)*4, 1024))
//       e.g. 128x256x64_s4 : 1024 + roundup(196608 + 32768 + 64 + 16, 1024) = 231424 bytes (any out type)
//            128x128x64_s6 : 1024 + roundup(196608 + 32768 + 96 + 16, 1024) = 231424 bytes (coop and pp)
//   kernel params in PTX: param_0 GemmParams (136 B, align 8, offset 0), param_1 CUtensorMap
//   (128 B, align 128, offset 128), param_2 CUtensorMap (offset 256), param_3 CUtensorMap
//   (offset 384); cuLaunchKernel's kernelParams = {&params, &tma_a, &tma_b, &tma_d}.
//   needs cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem) before launch.
//   The kernel traps if launched with less dynamic smem than it needs, with blockDim != 384,
//   or with an N-major D (d_n_major) on an entry point that does not write one (a tile of
//   whole 64-column boxes, but for its `_nd` entry points).
//   tiles == 0 (M, N or batch == 0): do not launch.  K == 0 is allowed (D = beta*C).
//
// Built by ferrocute-kernels (crates/kernels/src/build): see the module registry for flags.
#pragma once

// WGMMA's N in every multiple of 8 (CuTe's ss_op_selector otherwise takes the largest of
// 256, 192, 128, 96, 64, 32, 16, 8 dividing the tile: five m64n32k16 instructions a k-step
// for a 160-wide tile, which ran its tensor pipe at 53% of its active cycles).
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED

#include <cuda.h>   // CUtensorMap
#include <stdint.h>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/numeric_types.h>

#include "gemm_params.h"

// The parts, in dependency order (src/kernels/sm90/).
#include "sm90/config.cuh"
#include "sm90/tile_scheduler.cuh"
#include "sm90/arch.cuh"
#include "sm90/pipeline.cuh"
#include "sm90/mainloop.cuh"
#include "sm90/epilogue_16bit.cuh"
#include "sm90/epilogue.cuh"
#include "sm90/epilogue_fused.cuh"
#include "sm90/split_tail.cuh"
#include "sm90/kernel.cuh"
