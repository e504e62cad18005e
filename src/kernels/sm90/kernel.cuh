// ferrocute sm90 GEMM, part of sm90_gemm.cuh: the kernel body gemm_kernel<Cfg, ...> with its
// roles (producer warpgroup, cooperative consumers, pingpong consumers)
// and the FERROCUTE_SM90_DEFINE entry-point macro. Separate because it composes the other
// parts; the contract it implements is documented at the top of ../sm90_gemm.cuh.
#pragma once

#include <cuda.h>   // CUtensorMap
#include <stdint.h>

#include <cute/tensor.hpp>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>

#include "../gemm_params.h"
#include "arch.cuh"
#include "config.cuh"
#include "epilogue.cuh"
#include "epilogue_fused.cuh"
#include "mainloop.cuh"
#include "split_tail.cuh"
#include "tile_scheduler.cuh"

namespace ferrocute {
namespace sm90 {

using namespace cute;

// ---------------------------------------------------------------------------------
// The kernel body.
// ---------------------------------------------------------------------------------
// Epi: the `_epi` entry points, which fused launches of K-major A and B with a 16-bit D take
// (KernelConfig::fused_entries): the fused epilogue's unrolled and gated TMA forms, and no
// plain store path. The plain entry points keep only the rolled form: the unrolled code in
// them cost their plain launches 4-26% (2048^3 0.99 -> 0.75 of cuBLAS).
// ND: the `_nd` entry points of a tile of whole boxes, which write an N-major D
// (GemmParams::d_n_major): by TMA where the plain TMA epilogue applies, else through the
// general epilogue one value a thread. Apart from the plain ones, in whose 128x192 tile the
// code spilled 2.4-4 KB more a thread and cost 3-9% at 3072x3072x4096.
template <class Cfg, bool AKMajor, bool BKMajor, class In, class Out, bool Epi, bool ND>
__device__ __forceinline__ void gemm_kernel(GemmParams const& p, CUtensorMap const* tma_a,
                                            CUtensorMap const* tma_b, CUtensorMap const* tma_d) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using D = Derived<Cfg>;
  constexpr int BM = D::BM, BN = D::BN, BK = D::BK, S = D::S, EpiN = D::EpiN;
  static_assert(sizeof(In) == 2, "16-bit inputs only");
  constexpr bool kPingpong = (Cfg::Schedule == 1);
  static_assert(Cfg::Schedule == 0 || Cfg::Schedule == 1, "Schedule: 0 cooperative, 1 pingpong");
  static_assert(kPingpong || BM == 128, "cooperative schedule: BM must be 128 (2 consumer WGs x 64)");
  static_assert(!kPingpong || BM == 64 || BM == 128, "pingpong schedule: BM must be 64 or 128");
  static_assert(!kPingpong || BM * BN <= 128 * 192 || (BM == 64 && BN <= 256),
                "pingpong: one warpgroup holds the whole BMxBN accumulator (<= 192 regs/thread)");
  // BN a multiple of 64: D goes out in 64-column boxes (TMA, 16-bit fast epilogue). A
  // narrower multiple of 16 (tiles sized so that a problem's tiles fill one wave) takes the
  // general epilogue, which also writes an N-major D; its B must be K-major (the MN-major
  // atom spans 64 rows).
  constexpr bool kBoxes = D::kBoxes;
  static_assert(BN % 16 == 0 && BN >= 16 && BN <= 256, "BN must be 16..256, multiple of 16");
  static_assert(kBoxes || (BKMajor && !Epi && !kPingpong),
                "a BN of no whole 64-column boxes: K-major B, cooperative, no _epi entries");
  static_assert(BK % 64 == 0, "BK must be a multiple of 64");
  static_assert(EpiN % 16 == 0 && BN % EpiN == 0,
                "EpiN must divide BN in multiples of 16 (a chunk's 8 runs of 8 rows by EpiN "
                "columns are whole passes of a warpgroup's 128 threads)");
  check_gmma_atoms<Cfg, In>();
  static_assert(!kBoxes || (D::kEpiFloats * 4 >= 4 * kWarpSliceBytes && (D::kEpiFloats * 4) % 16 == 0),
                "the epilogue staging must hold the fast epilogue's 4 warp slices");
  static_assert((!kBoxes || D::kEpiFloats * 4 >= kTmaRingBoxes * kTmaBoxBytes) &&
                    (D::kEpiFloats * 4) % 1024 == 0,
                "the TMA epilogue's staging: whole 1024-byte aligned boxes");

  constexpr GMMA::Major MajA = AKMajor ? GMMA::Major::K : GMMA::Major::MN;
  constexpr GMMA::Major MajB = BKMajor ? GMMA::Major::K : GMMA::Major::MN;
  using SmemLayoutA = OperandSmem<Cfg, AKMajor, BM, BK, S>;   // (BM, BK, S)
  using SmemLayoutB = OperandSmem<Cfg, BKMajor, BN, BK, S>;   // (BN, BK, S)
  using MmaOp = decltype(GMMA::ss_op_selector<In, In, float, Shape<_64, Int<BN>, Int<BK>>, MajA, MajB>());
  // cooperative: 2 WGs split the 128 rows (64 each); pingpong: one WG owns the whole tile
  using TiledMma = decltype(make_tiled_mma(MmaOp{}, Layout<Shape<Int<kPingpong ? 1 : 2>, _1, _1>>{}));
  // A stage is released by one arrival per consumer warp that reads it.
  constexpr int kReaderWarps = kPingpong ? 4 : 8;
  // Which entry points write an N-major D (the others trap on it): the narrow tiles' and
  // the `_nd` ones.
  static_assert(!ND || (kBoxes && !Epi), "_nd entry points: whole boxes, plain");
  constexpr bool kNMajorD = !kBoxes || ND;
  const bool d_n_major = kNMajorD && p.d_n_major;
  const bool d_vec = vec_ok<Out>(p.d, p.ldd, p.batch_stride_d);
  const bool c_vec = vec_ok<Out>(p.c, p.ldc, p.batch_stride_c);
  const bool fast16 = kBoxes && !Epi && fast_epilogue<Out>(p, d_vec);
  const bool tma_epi = tma_epilogue(p, fast16, d_n_major);
  // The 16-bit epilogue without TMA writes an M-major D only.
  const bool fast = fast16 && !d_n_major;
  const bool tma_fused = kBoxes && !d_n_major && tma_fused_epilogue<Out, Epi>(p, d_vec);
  // A narrow tile applies the unrolled fused epilogues in registers, then stores as plain.
  const bool epi_regs = !kBoxes && epi_in_registers(p);

  SharedStorage<Cfg>& ss = shared_storage<SharedStorage<Cfg>>();

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int wg = warp / 4;

  if (tid == 0) {
    if (blockDim.x != kThreads || dyn_smem_size() < uint32_t(smem_bytes<Cfg>()) ||
        (!kNMajorD && p.d_n_major))
      __trap();
    for (int s = 0; s < S; ++s) {
      cutlass::arch::ClusterTransactionBarrier::init(&ss.full[s], 1);
      cutlass::arch::ClusterBarrier::init(&ss.empty[s], kReaderWarps);
    }
    cutlass::arch::ClusterBarrier::init(&ss.order[0], 128);
    cutlass::arch::ClusterBarrier::init(&ss.order[1], 128);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  const int M = p.m, N = p.n, K = p.k;
  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  // Work units: the tiles of every batch, walked by the CTAs in turn (tile_of).
  const int num_units = tiles_m * tiles_n * p.batch;
  const int first = blockIdx.x;
  const int stride = gridDim.x;
  const int k_tiles = (K + BK - 1) / BK;
  // The last tail_units tiles split along K (both schedules; WorkList): a split tail (the
  // last round's tiles in `splits` parts, one per CTA) or stream-K (tail_splits < 0: at
  // least a round of tiles in a run of k-blocks a CTA). K == 0 has nothing to split.
  const bool stream = k_tiles > 0 && p.tail_splits < 0 &&
                      p.tail_tiles >= int(gridDim.x) && p.tail_tiles <= num_units &&
                      int64_t(p.tail_tiles) * k_tiles <= INT32_MAX;
  const int tail_units = stream ? p.tail_tiles
                         : (k_tiles > 0 && p.tail_splits > 1 &&
                            p.tail_tiles <= min(num_units, int(gridDim.x)))
                             ? max(0, p.tail_tiles)
                             : 0;
  const int splits =
      tail_units > 0 && !stream
          ? max(1, min(min(p.tail_splits, k_tiles), int(gridDim.x) / tail_units))
          : 1;
  uint32_t* const tail_counters = reinterpret_cast<uint32_t*>(p.workspace);
  auto tail_slot = [&](int part) {
    return reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(p.workspace) +
                                    tail_counter_bytes(gridDim.x) + int64_t(part) * (BM * BN * 4));
  };
  // A last tile of M with 64 or more rows past M loads its A box 64 rows earlier, inside M:
  // TMA's zero fill of rows past the tensor cost time in proportion to their count (ncu:
  // 192 rows on the 128x96 tile took 1.2x the time of 256). Its first 64 rows belong to the
  // tile before, so that slab is not stored (no row is written twice, so D may alias C).
  // The narrow tiles (no TMA store: their general epilogue bounds each run of 8 rows) shift
  // by every whole 8 rows past M, and store only from the tile's own first row (m_own).
  // Not on the 128x192 pingpong tile (192 accumulators a thread: the bookkeeping spilled
  // 730 more bytes).
  const bool shift_ok = BM == 128 && !(kPingpong && BN > 128);
  // past < BM <= tm * BM: a shifted tile starts at row 0 or after.
  auto row_shift = [&](int tm) {
    const int past = (tm + 1) * BM - M;
    if (!shift_ok || tm == 0 || past <= 0) return 0;
    return kBoxes ? (past >= 64 ? 64 : 0) : past / 8 * 8;
  };
  // The same along N for B (y = x·Wᵀ row-major runs with the tokens on N): the epilogues
  // leave out the first 64-column box.
  auto col_shift = [&](int tn) {
    return (shift_ok && tn > 0 && (tn + 1) * BN - N >= 64) ? 64 : 0;
  };
  auto tile_of = [&](int unit) { return tile_coord(unit, tiles_m, tiles_n, Cfg::RasterGroup); };
  auto release = [&](int stage) {
    if (tid % 32 == 0) cutlass::arch::ClusterBarrier::arrive(&ss.empty[stage]);
  };

  if (wg == 0) {
    // ============================ PRODUCER ============================
    // The `_epi` entries move 16 registers a thread from the producer (its TMA loop needs
    // no more than 24) to the consumers: with 232, the fused epilogue's temporaries on top
    // of the 128x192 tile's accumulators spilled 4.5 KB a thread.
    cutlass::arch::warpgroup_reg_dealloc<Epi ? 24 : 40>();
    if (warp == 0 && cute::elect_one_sync()) {
      cute::prefetch_tma_descriptor(tma_a);
      cute::prefetch_tma_descriptor(tma_b);
      if (tma_epi || tma_fused) cute::prefetch_tma_descriptor(tma_d);
      auto write = PipelineState<S>::producer_start();
      WorkList work(num_units, tail_units, splits, stream, k_tiles, first, stride, blockIdx.x);
      for (Work w; work.next(w);) {
        const TileCoord tc = tile_of(w.unit);
        for (int kt = w.kb; kt < w.ke; ++kt, ++write) {
          const int stage = write.index;
          cutlass::arch::ClusterBarrier::wait(&ss.empty[stage], write.phase);
          cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&ss.full[stage],
                                                                         D::kStageBytes);
          tma_load_operand<AKMajor, BM, BK>(tma_a, &ss.full[stage], ss.a + stage * D::kABytes,
                                            kt * BK, tc.m * BM - row_shift(tc.m), tc.l);
          tma_load_operand<BKMajor, BN, BK>(tma_b, &ss.full[stage], ss.b + stage * D::kBBytes,
                                            kt * BK, tc.n * BN - col_shift(tc.n), tc.l);
        }
      }
    }
    __syncwarp();
  } else if constexpr (!kPingpong) {
    // ====================== CONSUMERS (cooperative) ======================
    cutlass::arch::warpgroup_reg_alloc<Epi ? 240 : 232>();
    const int ctid = tid - 128;          // 0..255 within the consumer warpgroups
    const int cwg = ctid / 128;          // consumer warpgroup: rows [64*cwg, 64*cwg+64) of the tile
    const int wtid = ctid % 128;         // thread within its warpgroup

    TiledMma tiled_mma;
    auto thr_mma = tiled_mma.get_thread_slice(ctid);
    Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.a)), SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.b)), SmemLayoutB{});
    Tensor tCsA = thr_mma.partition_A(sA);     // (MMA, MMA_M, MMA_K, S)
    Tensor tCsB = thr_mma.partition_B(sB);     // (MMA, MMA_N, MMA_K, S)
    Tensor tCrA = thr_mma.make_fragment_A(tCsA);
    Tensor tCrB = thr_mma.make_fragment_B(tCsB);
    Tensor accum = partition_fragment_C(tiled_mma, Shape<Int<BM>, Int<BN>>{});
    static_assert(decltype(size(accum))::value == BN / 2, "unexpected accumulator fragment");

    float* stg = ss.epi[cwg];
    uint32_t epi_pass = 0;   // TMA epilogue: boxes this warpgroup has stored (its ring slot)

    PipelineState<S> read;
    WorkList work(num_units, tail_units, splits, stream, k_tiles, first, stride, blockIdx.x);
    for (Work w; work.next(w);) {
      const TileCoord tc = tile_of(w.unit);
      if constexpr (Epi)
        if (tma_fused && ctid == 0)
          epi_prefetch_bias(epi_args(p), tc.m * BM - row_shift(tc.m), tc.n * BN - col_shift(tc.n),
                            BM, BN);
      if constexpr (!kBoxes)
        if (epi_regs && ctid == 0)
          epi_prefetch_bias(epi_args(p), tc.m * BM - row_shift(tc.m), tc.n * BN - col_shift(tc.n),
                            BM, BN);
      const int last = mma_mainloop(tiled_mma, tCrA, tCrB, accum, ss.full, read, w.ke - w.kb,
                                    release);
      // The fused epilogue's bias at this warpgroup's rows, loaded while the last WGMMAs run.
      EpiSlabBias<1> sb{};
      if constexpr (Epi || !kBoxes)
        if (tma_fused || epi_regs)
          sb = epi_slab_bias<1>(epi_args(p), tc.m * BM - row_shift(tc.m) + cwg * 64, wtid);
      warpgroup_wait<0>();
      warpgroup_fence_operand(accum);
      if (last >= 0) release(last);
      if (!split_tail_fixup<256>(accum, w, tail_units, splits, stream, tail_counters, tail_slot,
                                 ctid, kTailBarrier))
        continue;
      // A shifted tile's rows before its own (row_shift) are the tile before's: a slab of
      // only those is not stored, nor the first box of columns under col_shift; m0, n0: this
      // slab's first row and column (the narrow tiles' epilogue starts at tc.m * BM).
      const int shift = row_shift(tc.m), cshift = col_shift(tc.n);
      if (cwg * 64 + 64 <= shift) continue;
      const int m0 = tc.m * BM - shift + cwg * 64, n0 = tc.n * BN - cshift;
      if constexpr (sizeof(Out) == 2 && kBoxes) {
        if (tma_fused) {
          tma_epilogue_fused<1, BN, Out, Epi>(accum, reinterpret_cast<uint8_t*>(stg), 1 + cwg,
                                              wtid, m0, n0, 0, cshift / 64, tc.l, epi_args(p),
                                              sb, tma_d, epi_pass);
          continue;
        }
      }
      if constexpr (!kBoxes)
        if (epi_regs) epi_slab_in_registers<BN>(accum, wtid, n0, sb, epi_args(p));
      epilogue_slab<BN, EpiN, kNMajorD, Out>(accum, stg, 1 + cwg, wtid, m0, tc.m * BM, n0, cshift,
                                   int64_t(tc.l), p, fast, tma_epi, d_vec, c_vec, tma_d,
                                   epi_pass, epi_regs);
    }
    // the staging outlives the TMA's reads
    if ((tma_epi || tma_fused) && wtid == 0) tma_store_wait<0>();
  } else {
    // ======================= CONSUMERS (pingpong) ========================
    // Consumer warpgroup cwg takes the CTA's work items cwg, cwg+2, cwg+4, ... (WorkList:
    // whole tiles, then a split tile's part or the pieces of a stream-K run, one item per
    // tile it touches; each item has its own k-blocks) with the whole BMxBN accumulator. The
    // producer fills the stage ring in work-item order, so each WG consumes its item's stages
    // and then skips as many as the other WG's item has. Math turns alternate through
    // order[]: a WG waits for its turn, issues its whole mainloop, hands the turn to the
    // other WG right after its last WGMMA batch is committed, then retires the batch and runs
    // its epilogue while the other WG's mainloop keeps the tensor cores busy.
    cutlass::arch::warpgroup_reg_alloc<Epi ? 240 : 232>();
    const int cwg = (tid - 128) / 128;
    const int wtid = tid % 128;

    TiledMma tiled_mma;
    auto thr_mma = tiled_mma.get_thread_slice(wtid);
    Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.a)), SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.b)), SmemLayoutB{});
    Tensor tCsA = thr_mma.partition_A(sA);     // (MMA, MMA_M, MMA_K, S)
    Tensor tCsB = thr_mma.partition_B(sB);     // (MMA, MMA_N, MMA_K, S)
    Tensor tCrA = thr_mma.make_fragment_A(tCsA);
    Tensor tCrB = thr_mma.make_fragment_B(tCsB);
    Tensor accum = partition_fragment_C(tiled_mma, Shape<Int<BM>, Int<BN>>{});  // (V, BM/64, 1)
    static_assert(decltype(size(accum))::value == BM * BN / 128, "unexpected accumulator fragment");
    static_assert(decltype(size<1>(accum))::value == BM / 64, "unexpected accumulator fragment");

    float* stg = ss.epi[cwg];
    uint32_t epi_pass = 0;   // TMA epilogue: boxes this warpgroup has stored (its ring slot)

    PipelineState<S> read;
    // WG 0 holds the first turn: waiting on the parity of the (never completed) previous phase
    // of a fresh barrier passes at once.
    uint32_t order_phase = (cwg == 0) ? 1u : 0u;

    WorkList work(num_units, tail_units, splits, stream, k_tiles, first, stride, blockIdx.x);
    int item = 0;   // the CTA's work items alternate between the warpgroups
    for (Work w; work.next(w); ++item) {
      if ((item & 1) != cwg) {
        read.advance(w.ke - w.kb);   // the other warpgroup's stages
        continue;
      }
      const TileCoord tc = tile_of(w.unit);
      if constexpr (Epi)
        if (tma_fused && wtid == 0)
          epi_prefetch_bias(epi_args(p), tc.m * BM - row_shift(tc.m), tc.n * BN - col_shift(tc.n),
                            BM, BN);

      cutlass::arch::ClusterBarrier::wait(&ss.order[cwg], order_phase);
      order_phase ^= 1u;
      const int last = mma_mainloop(tiled_mma, tCrA, tCrB, accum, ss.full, read, w.ke - w.kb,
                                    release);
      // hand the tensor cores to the other warpgroup
      cutlass::arch::ClusterBarrier::arrive(&ss.order[cwg ^ 1]);
      // The fused epilogue's bias at the tile's rows, loaded while the last WGMMAs run.
      EpiSlabBias<BM / 64> sb{};
      if constexpr (Epi)
        if (tma_fused) sb = epi_slab_bias<BM / 64>(epi_args(p), tc.m * BM - row_shift(tc.m), wtid);
      warpgroup_wait<0>();
      warpgroup_fence_operand(accum);
      if (last >= 0) release(last);
      if (!split_tail_fixup<128>(accum, w, tail_units, splits, stream, tail_counters, tail_slot,
                                 wtid, 1 + cwg))
        continue;

      // The slabs and columns before a shifted tile's own are the tile before's.
      const int shift = row_shift(tc.m), cshift = col_shift(tc.n);
      if constexpr (sizeof(Out) == 2 && kBoxes) {
        if (tma_fused) {   // both slabs from one site: the epilogue's code once in the kernel
          tma_epilogue_fused<BM / 64, BN, Out, Epi>(accum, reinterpret_cast<uint8_t*>(stg),
                                                    1 + cwg, wtid, tc.m * BM - shift,
                                                    tc.n * BN - cshift, shift / 64, cshift / 64,
                                                    tc.l, epi_args(p), sb, tma_d, epi_pass);
          continue;
        }
      }
      CUTE_UNROLL
      for (int mi = 0; mi < BM / 64; ++mi) {
        if (mi * 64 + 64 <= shift) continue;
        epilogue_slab<BN, EpiN, kNMajorD, Out>(accum(_, mi, _0{}), stg, 1 + cwg, wtid,
                                     tc.m * BM - shift + mi * 64, tc.m * BM, tc.n * BN - cshift,
                                     cshift,
                                     int64_t(tc.l), p, fast,
                                     tma_epi, d_vec, c_vec, tma_d, epi_pass, false);
      }
    }
    // the staging outlives the TMA's reads
    if ((tma_epi || tma_fused) && wtid == 0) tma_store_wait<0>();
  }
#else
  // Not sm_90a: this kernel must not run.
  if (threadIdx.x == 0) __trap();
#endif
}

}  // namespace sm90
}  // namespace ferrocute

// ---------------------------------------------------------------------------------
// Entry-point definition macros.
//   FERROCUTE_SM90_DEFINE(cfgname, CfgType, am, bm, in, out), FERROCUTE_SM90_DEFINE_EPI(...)
//   e.g. FERROCUTE_SM90_DEFINE(128x256x64_s4_coop, Sm90Cfg_128x256x64_s4_coop, k, k, bf16, bf16)
// ---------------------------------------------------------------------------------
#define FERROCUTE_SM90_MAJ_k true
#define FERROCUTE_SM90_MAJ_m false
#define FERROCUTE_SM90_MAJ_n false
#define FERROCUTE_SM90_TY_bf16 cutlass::bfloat16_t
#define FERROCUTE_SM90_TY_f16 cutlass::half_t
#define FERROCUTE_SM90_TY_f32 float
#define FERROCUTE_SM90_CAT_(a, b) a##b
#define FERROCUTE_SM90_CAT(a, b) FERROCUTE_SM90_CAT_(a, b)

#define FERROCUTE_SM90_ENTRY(fname, Cfg, am, bm, in, out, epi, nd)                             \
  extern "C" __global__ void __launch_bounds__(384, 1)                                         \
      fname(const GemmParams params, const __grid_constant__ CUtensorMap tma_a,                \
            const __grid_constant__ CUtensorMap tma_b,                                         \
            const __grid_constant__ CUtensorMap tma_d) {                                       \
    ferrocute::sm90::gemm_kernel<Cfg, FERROCUTE_SM90_MAJ_##am, FERROCUTE_SM90_MAJ_##bm,        \
                                 FERROCUTE_SM90_TY_##in, FERROCUTE_SM90_TY_##out, epi, nd>(    \
        params, &tma_a, &tma_b, &tma_d);                                                       \
  }
#define FERROCUTE_SM90_DEFINE(cfgname, Cfg, am, bm, in, out)                                   \
  FERROCUTE_SM90_ENTRY(ferrocute_sm90_##cfgname##_##am##bm##_##in##_##out, Cfg, am, bm, in,    \
                       out, false, false)
// The fused launches' entry point (gemm_kernel's Epi): ferrocute_sm90_<cfg>_epi_<am><bm>_...
#define FERROCUTE_SM90_DEFINE_EPI(cfgname, Cfg, am, bm, in, out)                               \
  FERROCUTE_SM90_ENTRY(ferrocute_sm90_##cfgname##_epi_##am##bm##_##in##_##out, Cfg, am, bm,    \
                       in, out, true, false)
// An N-major D's entry point (gemm_kernel's ND): ferrocute_sm90_<cfg>_nd_<am><bm>_...
#define FERROCUTE_SM90_DEFINE_ND(cfgname, Cfg, am, bm, in, out)                                \
  FERROCUTE_SM90_ENTRY(ferrocute_sm90_##cfgname##_nd_##am##bm##_##in##_##out, Cfg, am, bm,     \
                       in, out, false, true)
