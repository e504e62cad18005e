// ferrocute: Hopper (sm_90a) GEMM for small M (skinny problems such as 16 x 4096 x 4096).
//
// Computes, like sm90_gemm.cuh (gemm_params.h convention),
//     D(m,n,l) = alpha * sum_k A(m,k,l) B(n,k,l) + beta * C(m,n,l)
// with f32 accumulation; beta == 0 never reads C.
//
// Why a second kernel: with M <= 128 the 128x128 tiles of the main kernel give N/128 CTAs
// (32 for N = 4096), far fewer than the 132 SMs needed to pull B from HBM at full speed.
// This kernel
//   * swaps the operands inside the CTA: the large dimension N fills WGMMA's M, the small M is
//     WGMMA's N (TM = 64 or 128 columns), so no tensor-core work is wasted on padding M up to
//     128. With TN = 128 each of the two consumer warpgroups owns 64 rows of N; with TN = 64
//     (twice the CTAs for the same N, so twice the SMs streaming B) both own the same 64
//     rows and split every stage's k-blocks, and their partial tiles are summed in smem;
//   * splits K over a thread-block cluster of `splits` CTAs (cluster (splits,1,1) spans
//     grid.x), so N/128 * splits CTAs stream B; the partial tiles are summed through
//     distributed shared memory, with no global workspace and no atomics. With 2 splits
//     rank 1 takes fewer k-tiles, finishes first and bulk-copies its partial tile into
//     rank 0's drained stages while rank 0 still streams; rank 0 adds it and stores the
//     tile. With 4 or 8, each CTA of the cluster reduces and stores TN/splits rows of N;
//   * or, with Cfg::ClusterM = MC > 1, does not split K: the cluster (MC,1,1) holds MC
//     M-adjacent tiles of the same N rows, each CTA loads TN/MC rows of every B stage and
//     multicasts them to all MC, and a stage is refilled once the consumers of every CTA
//     of the cluster have released it. B then crosses from L2 once per MC tiles of M.
//     Cfg::ClusterN = NC > 1 does the same for A across NC N-adjacent tiles of the same M.
//
// =====================================================================================
// CONFIG SCHEMA
// =====================================================================================
//   struct Cfg {
//     using TileShape = cute::Shape<cute::Int<TM>, cute::Int<TN>, cute::Int<BK>>;
//                       // TM: M per CTA (WGMMA N), multiple of 64, <= 256 (of 32 in
//                       // a cluster whose entry points take a K-major A only);
//                       // TN = 64 or 128: N per CTA (see above);
//                       // BK: multiple of 64
//     static constexpr int Stages = 7;
//     static constexpr int ClusterM = 1;   // 1, 2 or 4: CTAs along M sharing B (see above)
//     static constexpr int ClusterN = 1;   // 1, 2 or 4: CTAs along N sharing A (not both)
//     using SmemLayoutAtomK  = GMMA::Layout_K_SW128_Atom<16-bit> as in sm90_gemm.cuh;
//     using SmemLayoutAtomMN = GMMA::Layout_MN_SW128_Atom<16-bit>;
//   };
//
// ENTRY POINTS: ferrocute_sm90_splitk_<TM>x<TN>x<BK>_s<S>_<am><bm>_<in>_<out>, same parameters
// and tensor-map contract as sm90_gemm.cuh with BM := TM and BN := TN (box {64,TM} for a K-major
// A, {64,BK} for an M-major A, {64,TN} / {64,BK} for B), except that a K-major A with
// M < TM and ClusterM = 1 has a box of {64, a_rows}, a_rows = M rounded up to 8 (ClusterN =
// 1), or {64, TM/NC} as usual (ClusterN = NC > 1).
//
// LAUNCH FORMULA
//   grid    = (splits, ceil(N/TN) * ceil(M/TM), batch), splits in {1,2,4,8}
//   cluster = (splits, 1, 1)         (cuLaunchKernelEx attribute; none needed for splits = 1)
//   ClusterM = MC > 1: grid = (MC, ceil(N/TN) * ceil(ceil(M/TM)/MC), batch), cluster (MC,1,1),
//   B's box {64, TN/MC} (K-major); tile m of CTA x of cluster y is (y / tiles_n) * MC + x
//   ClusterN = NC > 1: grid = (NC, ceil(N/TN/NC) * ceil(M/TM), batch), cluster (NC,1,1), A's
//   box {64, TM/NC} (K-major); tile n of CTA x of cluster y is (y % ceil(N/TN/NC)) * NC + x
//   programmatic stream serialization may be allowed (PDL): the kernel waits on
//   griddepcontrol.wait before its first global memory access
//   block   = (384, 1, 1)            warpgroup 0: producer (one TMA thread); 1,2: consumers
//   dynamic smem = 1024 + roundup(Stages*(TM+TN)*BK*2 + Stages*16 + 16, 1024)
//                  (the (TN, TM+8) f32 partial tile reuses the pipeline and must fit in it)
//   CTA x of a cluster owns k-tiles [x*per, (x+1)*per), per = ceil(ceil(K/BK)/splits);
//   with 2 splits rank 0 owns [0, k0) and rank 1 [k0, k_tiles), k0 = lead_k_tiles().
//   The kernel traps on blockDim != 384, too little dynamic smem, splits not dividing TN,
//   or (ClusterM or ClusterN > 1) grid.x != the cluster's size.
#pragma once

#include "sm90_gemm.cuh"

namespace ferrocute {
namespace sm90 {

template <class Cfg>
struct SplitKDerived {
  static constexpr int TM = size<0>(typename Cfg::TileShape{});
  static constexpr int TN = size<1>(typename Cfg::TileShape{});
  static constexpr int BK = size<2>(typename Cfg::TileShape{});
  static constexpr int S = Cfg::Stages;
  static constexpr int MC = Cfg::ClusterM;
  static constexpr int NC = Cfg::ClusterN;
  static_assert(MC == 1 || MC == 2 || MC == 4, "ClusterM must be 1, 2 or 4");
  static_assert(NC == 1 || NC == 2 || NC == 4, "ClusterN must be 1, 2 or 4");
  static_assert(MC == 1 || NC == 1, "a cluster spans M or N, not both");
  static constexpr int C = MC * NC;   // CTAs sharing each stage (1: a K-split cluster)
  // The 2-split hand-off swizzles 32-byte pieces by r % 8 within a row of TM floats.
  static_assert(TM % 64 == 0 || C > 1, "a K-split tile's TM must be a multiple of 64");
  static constexpr int kWBytes = TN * BK * 2;
  static constexpr int kXBytes = TM * BK * 2;
  static constexpr int kStageBytes = kWBytes + kXBytes;
  // Row stride (floats) of the partial tile: = 8 (mod 32), so the float2 stores of a
  // half-warp (4 rows x 8 columns) hit 32 distinct banks.
  static constexpr int kRedLd = TM + 8;
  static_assert(TN * kRedLd * 4 <= S * kStageBytes, "the partial tile must fit the pipeline");
  // 2 splits: rank 0 keeps its padded partial tile in the B stages and receives rank 1's,
  // 32 rows per A stage, in the A stages it has drained.
  static_assert(TN * kRedLd * 4 <= S * kWBytes, "the partial tile must fit the B stages");
  static_assert(kXBytes == 32 * TM * 4, "32 rows of the partial tile fill one A stage");
  static_assert(TN / 32 < S, "the received chunks need TN/32 drained stages");
  // Rank 1's head start: fewer k-tiles, so that its partial tile has reached rank 0 when
  // rank 0's main loop ends (measured: 6 k-tiles for the 128-column tile, 4 for 64).
  static constexpr int kLeadTiles = TM >= 128 ? 6 : 4;
};

// Rank 0's k-tiles [0, k0) of a 2-split; rank 1 takes [k0, k_tiles).
__device__ __forceinline__ int lead_k_tiles(int k_tiles, int head_start) {
  return min(k_tiles, (k_tiles + 1) / 2 + min(head_start, k_tiles / 8));
}

template <class Cfg>
struct alignas(1024) SplitKStorage {
  using D = SplitKDerived<Cfg>;
  // B tiles (TN, BK) x S, then A tiles (TM, BK) x S, both 1024-aligned. Once the mainloop
  // is over, the same bytes hold this CTA's partial (TN, TM) tile, M contiguous.
  uint8_t pipe[D::S * D::kStageBytes];
  uint64_t full[D::S];
  uint64_t empty[D::S];
  uint64_t recv;   // 2 splits: rank 1's partial tile has landed in rank 0's stages
  uint64_t go;     // 2 splits, arrived by rank 0: phase 0 its stages for rank 1's tile
                   // are drained, phase 1 that tile has landed
  __device__ uint8_t* w() { return pipe; }
  __device__ uint8_t* x() { return pipe + D::S * D::kWBytes; }
  __device__ float* red() { return reinterpret_cast<float*>(pipe); }
};

template <class Cfg>
__host__ __device__ constexpr int splitk_smem_bytes() {
  return int(sizeof(SplitKStorage<Cfg>)) + 1024;
}

// The shared::cluster address of `addr` (a shared::cta address) in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t map_to_rank(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}

__device__ __forceinline__ float4 ld_cluster_f4(uint32_t addr) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}

// Bulk copy of `bytes` (multiple of 16) from this CTA's shared memory to `dst` (a
// shared::cluster address), completing as transactions on the mbarrier at `bar` (in the
// destination CTA).
__device__ __forceinline__ void bulk_copy_to_cluster(uint32_t dst, uint32_t src, uint32_t bytes,
                                                     uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, "
      "[%3];" ::"r"(dst), "r"(src), "r"(bytes), "r"(bar)
      : "memory");
}

// Arrive (release, cluster scope) on the mbarrier at shared::cluster address `bar`.
__device__ __forceinline__ void arrive_remote(uint32_t bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(bar)
               : "memory");
}

// Wait (acquire, cluster scope) for phase `parity` of this CTA's mbarrier at `bar` to
// complete: its arrival came from another CTA of the cluster.
__device__ __forceinline__ void wait_cluster_acquire(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred P; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P, [%1], %2;"
        " selp.u32 %0, 1, 0, P; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
}

template <class Cfg, bool AKMajor, bool BKMajor, class In, class Out>
__device__ __forceinline__ void splitk_kernel(GemmParams const& p, CUtensorMap const* tma_a,
                                              CUtensorMap const* tma_b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using D = SplitKDerived<Cfg>;
  constexpr int TM = D::TM, TN = D::TN, BK = D::BK, S = D::S;
  static_assert(TN == 64 || TN == 128, "TN must be 64 or 128 (consumer warpgroups x 64 rows of N)");
  // An M-major A's smem is tiled by 64-column MN-major atoms; a K-major one by 8-row atoms.
  static_assert(TM % (AKMajor ? 32 : 64) == 0 && TM >= 64 && TM <= 256,
                "TM must be 64..256, a multiple of 64 (of 32 with a K-major A)");
  static_assert(BK % 64 == 0, "BK must be a multiple of 64");
  check_gmma_atoms<Cfg, In>();

  // WGMMA's A operand is the B tile (N rows), its B operand the A tile (M columns).
  constexpr GMMA::Major MajW = BKMajor ? GMMA::Major::K : GMMA::Major::MN;
  constexpr GMMA::Major MajX = AKMajor ? GMMA::Major::K : GMMA::Major::MN;
  using SmemLayoutW = OperandSmem<Cfg, BKMajor, TN, BK, S>;   // (TN, BK, S)
  using SmemLayoutX = OperandSmem<Cfg, AKMajor, TM, BK, S>;   // (TM, BK, S)
  using MmaOp = decltype(GMMA::ss_op_selector<In, In, float, Shape<_64, Int<TM>, Int<BK>>, MajW, MajX>());
  // TN = 64: the consumer warpgroups split each stage's k-blocks instead of the rows.
  constexpr bool kSplitStage = TN == 64;
  constexpr int KB = BK / 16;
  using TiledMma = decltype(make_tiled_mma(MmaOp{}, Layout<Shape<Int<TN / 64>, _1, _1>>{}));

  SplitKStorage<Cfg>& ss = shared_storage<SplitKStorage<Cfg>>();

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int wg = warp / 4;
  constexpr int MC = D::MC, NC = D::NC, C = D::C;
  // The cluster spans grid.x: the K splits, or (C > 1) C tiles of M or of N, no K split.
  const int splits = C > 1 ? 1 : int(gridDim.x);
  const int rank = C > 1 ? 0 : int(blockIdx.x);    // K split
  const int crank = C > 1 ? int(blockIdx.x) : 0;   // tile within a cluster that shares

  if (tid == 0) {
    if (blockDim.x != kThreads || dyn_smem_size() < uint32_t(splitk_smem_bytes<Cfg>()) ||
        TN % splits != 0 || (C > 1 && gridDim.x != C))
      __trap();
    for (int s = 0; s < S; ++s) {
      cutlass::arch::ClusterTransactionBarrier::init(&ss.full[s], 1);
      // One arrival per consumer warp of every CTA that reads the stage.
      cutlass::arch::ClusterBarrier::init(&ss.empty[s], 8 * C);
    }
    cutlass::arch::ClusterTransactionBarrier::init(&ss.recv, 1);
    cutlass::arch::ClusterBarrier::init(&ss.go, 1);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  // The partner CTA signals these barriers: their initialisation must be visible cluster-
  // wide before it does (every thread waits for this phase before its tail).
  cluster_arrive_relaxed();
  // Multicast writes into, and consumers release, the stages of every CTA of the cluster:
  // those barriers must be initialised first. Otherwise the wait comes after the main loop.
  if constexpr (C > 1) cluster_wait();
  // Programmatic dependent launch (a no-op without the launch attribute): the next kernel
  // in the stream may start its CTAs on free SMs now, and this grid touches global memory
  // only once the previous grid has completed and its writes are visible.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");

  const int M = p.m, N = p.n, K = p.k;
  const int tiles_n = (N + TN - 1) / TN;
  const int groups_n = (tiles_n + NC - 1) / NC;   // clusters along N (tiles with NC = 1)
  const int n0 = ((blockIdx.y % groups_n) * NC + (NC > 1 ? crank : 0)) * TN;
  const int m0 = ((blockIdx.y / groups_n) * MC + (MC > 1 ? crank : 0)) * TM;
  // A tile reaching past M (the last of M, or one wholly past it that pads a cluster along M)
  // loads the TM rows from m_load, the first multiple of 8 at or after M - TM, and stores
  // only its own rows [m0, M): rows past M cost TMA's zero fill in proportion to their
  // number (BENCHMARKS.md), and the tile before stores the overlap. With M < TM it cannot.
  const int m_load = (m0 + TM > M && M >= TM) ? (M - TM + 7) / 8 * 8 : m0;
  // With M < TM (one tile of M, no cluster along M) a K-major A's box holds only the a_rows
  // rows M needs, rounded up to 8: the zero fill of the TM - M rows past M costs TMA in
  // proportion to their number. The MMA columns past a_rows read stale shared memory and are
  // never stored, and no step mixes columns. In a cluster along N the CTAs whose band of A
  // starts at or past a_rows skip it. The host sizes the box by the same rule
  // (geometry::a_box_rows): the bytes expected here must be the bytes the box loads.
  constexpr int kBand = TM / NC;
  const int a_rows = (AKMajor && MC == 1 && M < TM) ? (M + 7) / 8 * 8 : TM;
  const int a_bands = NC == 1 ? 1 : min(NC, (a_rows + kBand - 1) / kBand);
  const uint32_t stage_bytes =
      D::kWBytes + uint32_t(NC == 1 ? a_rows : a_bands * kBand) * BK * 2;
  const int l = blockIdx.z;
  const int k_tiles = (K + BK - 1) / BK;
  const int per = (k_tiles + splits - 1) / splits;
  const bool lead = splits == 2;
  const int k0 = lead_k_tiles(k_tiles, D::kLeadTiles);
  const int kt_begin = lead ? (rank == 0 ? 0 : k0) : min(k_tiles, rank * per);
  const int kt_end = lead ? (rank == 0 ? k0 : k_tiles) : min(k_tiles, kt_begin + per);

  if (wg == 0) {
    // ============================ PRODUCER ============================
    cutlass::arch::warpgroup_reg_dealloc<40>();
    if (warp == 0 && cute::elect_one_sync()) {
      cute::prefetch_tma_descriptor(tma_a);
      cute::prefetch_tma_descriptor(tma_b);
      auto write = PipelineState<S>::producer_start();
      for (int kt = kt_begin; kt < kt_end; ++kt, ++write) {
        const int stage = write.index;
        cutlass::arch::ClusterBarrier::wait(&ss.empty[stage], write.phase);
        cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&ss.full[stage],
                                                                       stage_bytes);
        // B streams through once; A is read by every CTA of the grid. With MC (NC) > 1
        // this CTA's band of B (A) lands in every CTA of the cluster.
        constexpr uint16_t kAll = uint16_t((1u << C) - 1);
        tma_load_operand<BKMajor, TN, BK, MC, uint64_t(TMA::CacheHintSm90::EVICT_FIRST)>(
            tma_b, &ss.full[stage], ss.w() + stage * D::kWBytes, kt * BK, n0, l,
            MC > 1 ? crank : 0, kAll);
        if (NC == 1 || crank < a_bands)
          tma_load_operand<AKMajor, TM, BK, NC, uint64_t(TMA::CacheHintSm90::EVICT_LAST)>(
              tma_a, &ss.full[stage], ss.x() + stage * D::kXBytes, kt * BK, m_load, l,
              NC > 1 ? crank : 0, kAll);
      }
    }
    __syncwarp();
    if constexpr (C == 1) cluster_wait();
    if (lead) {
      if (rank == 0 && warp == 0 && cute::elect_one_sync()) {
        // The A stages (k0 + c) % S, c < TN/32, receive rank 1's partial tile once the
        // consumers have drained them (the producer's own next waits).
        auto write = PipelineState<S>::producer_start();
        write.advance(k0);
        for (int c = 0; c < TN / 32; ++c, ++write)
          cutlass::arch::ClusterBarrier::wait(&ss.empty[write.index], write.phase);
        cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&ss.recv, TN * TM * 4);
        arrive_remote(map_to_rank(uint32_t(__cvta_generic_to_shared(&ss.go)), 1u));
      }
      __syncwarp();
    } else {
      // The producer warpgroup takes part in the consumers' cluster barriers (below);
      // keeping them in separate branches lets ptxas size each path to its own setmaxnreg.
      cluster_sync_all();
      cluster_arrive_relaxed();
      cluster_wait();
    }
  } else {
    // ============================ CONSUMERS ============================
    cutlass::arch::warpgroup_reg_alloc<232>();
    const int ctid = tid - 128;   // 0..255
    const int cwg = ctid / 128;   // rows [64*cwg, +64) of N, or (TN = 64) half of each stage
    const int wtid = ctid % 128, lane = wtid % 32;

    TiledMma tiled_mma;
    auto thr_mma = tiled_mma.get_thread_slice(kSplitStage ? wtid : ctid);
    Tensor sW = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.w())), SmemLayoutW{});
    Tensor sX = make_tensor(make_smem_ptr(reinterpret_cast<In*>(ss.x())), SmemLayoutX{});
    Tensor tCsW = thr_mma.partition_A(sW);   // (MMA, MMA_N, MMA_K, S)
    Tensor tCsX = thr_mma.partition_B(sX);   // (MMA, MMA_M, MMA_K, S)
    Tensor tCrW = thr_mma.make_fragment_A(tCsW);
    Tensor tCrX = thr_mma.make_fragment_B(tCsX);
    Tensor accum = partition_fragment_C(tiled_mma, Shape<Int<TN>, Int<TM>>{});   // (V, 1, 1)
    static_assert(decltype(size(accum))::value == TM / 2, "unexpected accumulator fragment");

    PipelineState<S> read;
    // Lane r of each warp releases the stage in CTA r of the cluster.
    auto release = [&](int st) {
      if constexpr (C == 1) {
        if (tid % 32 == 0) cutlass::arch::ClusterBarrier::arrive(&ss.empty[st]);
      } else {
        if (tid % 32 < C) cutlass::arch::ClusterBarrier::arrive(&ss.empty[st], tid % 32, 1u);
      }
    };
    const int k_count = kt_end - kt_begin;
    if (kSplitStage && cwg == 1)
      mma_mainloop<KB / 2, KB>(tiled_mma, tCrW, tCrX, accum, ss.full, read, k_count, release);
    else
      mma_mainloop<0, kSplitStage ? KB / 2 : KB>(tiled_mma, tCrW, tCrX, accum, ss.full, read,
                                                 k_count, release);
    warpgroup_wait<0>();
    warpgroup_fence_operand(accum);
    // Every WGMMA of both warpgroups has read its stages (and every TMA write they waited
    // for has landed) before the pipeline bytes are reused for the partial tile.
    named_bar_sync(1, 256);
    if constexpr (C == 1) cluster_wait();

    // Registers -> a partial tile in shared memory. Fragment of m64nTMk16 (f32): value
    // i = v0 + 2*v1 + 4*j is row 16*warp + lane/4 + 8*v1, column 8*j + 2*(lane%4) + v0.
    // With split stages warpgroup 0 writes its tile and warpgroup 1 then adds its own.
    // `at(r, c)` is the float offset of (r, c), c even.
    const int row = (kSplitStage ? 0 : 64 * cwg) + 16 * (wtid / 32) + lane / 4;
    const int col = 2 * (lane % 4);
    auto to_smem = [&](auto at) {
      auto pass = [&](bool add) {
        CUTE_UNROLL
        for (int j = 0; j < TM / 8; ++j) {
          CUTE_UNROLL
          for (int v1 = 0; v1 < 2; ++v1) {
            const int i = 2 * v1 + 4 * j;
            float2* r = reinterpret_cast<float2*>(&ss.red()[at(row + 8 * v1, 8 * j + col)]);
            float2 v = make_float2(accum(i), accum(i + 1));
            if (add) { v.x += r->x; v.y += r->y; }
            *r = v;
          }
        }
      };
      if (!kSplitStage || cwg == 0) pass(false);
      if constexpr (kSplitStage) {
        named_bar_sync(1, 256);
        if (cwg == 1) pass(true);
      }
    };
    // Rows of N padded to kRedLd floats: the float2 stores of a half-warp hit 32 banks.
    auto padded = [](int r, int c) { return r * D::kRedLd + c; };
    const uint32_t red_base = uint32_t(__cvta_generic_to_shared(ss.red()));
    const bool d_vec = vec_ok<Out>(p.d, p.ldd, p.batch_stride_d);
    const bool c_vec = vec_ok<Out>(p.c, p.ldc, p.batch_stride_c);
    const bool epi = epi_active(p);
    // Item (r, c8) of D: rows [8 c8, 8 c8 + 8) of M at row r of N. A gated epilogue along N
    // pairs row r (even) with r + 1, the item of lane ^ partner_lane (item_at below).
    constexpr int kRuns = TM / 8;
    constexpr bool kPow2Runs = (kRuns & (kRuns - 1)) == 0;
    // The fused epilogue's store of an item, from a rolled loop (fused_items) so that its
    // code is there once.
    auto store_fused = [&](float (&v)[8], int r, int c8) {
      const int gn = n0 + r;
      const int gm = m_load + 8 * c8;
      float up[8];
      if (p.gated == 1) {   // every lane, before any leaves
        const int partner_lane = (p.d_n_major || !kPow2Runs) ? 1 : TM / 8;
        CUTE_UNROLL
        for (int e = 0; e < 8; ++e) up[e] = __shfl_xor_sync(0xffffffffu, v[e], partner_lane);
      }
      if (gn < N && gm >= m0 && gm < M && (p.gated != 1 || r % 2 == 0))
        store_epi8<Out>(v, up, gm, gn, l, p, d_vec, c_vec);
    };
    auto store = [&](float (&v)[8], int r, int c8) {
      const int gn = n0 + r;
      const int gm = m_load + 8 * c8;
      if (gn >= N || gm < m0 || gm >= M) return;
      if (p.d_n_major)
        store_rows8_n_major<Out>(v, gm, gn, l, p, false, p.alpha);
      else
        store_rows8<Out>(v, gm, gn, int64_t(l) * p.batch_stride_d + int64_t(gn) * p.ldd + gm,
                         int64_t(l) * p.batch_stride_c + int64_t(gn) * p.ldc + gm, p, d_vec,
                         c_vec, false, p.alpha);
    };

    // Item i of `rows` rows of N by TM/8 runs of 8 M: (row, run). An M-major D takes the runs
    // of a row from consecutive threads (16-byte stores); an N-major one the rows of a run,
    // so that each of the 8 stores of a thread meets its neighbours' in one line. Either way
    // rows r and r + 1 (r even, `rows` even) are lanes i and i ^ 1 or i ^ TM/8 of one warp
    // (TM <= 128), and every warp's 32 items are all stored or none. Where TM/8 is not a power
    // of 2 (TM = 96: 12 runs), a gated epilogue's M-major items go by row pairs, the pair's
    // rows alternating, so that no pair straddles two warps (lanes i and i ^ 1).
    const bool n_major = p.d_n_major != 0;
    const bool pair_order = !kPow2Runs && !n_major && p.gated == 1;
    auto item_at = [&](int i, int rows) {
      if (n_major) return make_int2(i % rows, i / rows);
      if (pair_order) {
        const int j = i % (2 * kRuns);
        return make_int2(2 * (i / (2 * kRuns)) + (j & 1), j >> 1);
      }
      return make_int2(i / kRuns, i % kRuns);
    };
    // Items it < count of v (rows `rows` from row0 on), through the fused epilogue: copied
    // out of the registers the plain path keeps them in, then stored in a rolled loop.
    auto fused_items = [&](auto const& v, int count, int rows, int row0) {
      constexpr int kN = sizeof(v) / sizeof(v[0]);
      float vl[kN][8];
      CUTE_UNROLL
      for (int it = 0; it < kN; ++it)
        CUTE_UNROLL
        for (int e = 0; e < 8; ++e) vl[it][e] = v[it][e];
#pragma unroll 1
      for (int it = 0; it < kN; ++it) {
        const int item = ctid + 256 * it;
        if (item < count) store_fused(vl[it], row0 + item_at(item, rows).x, item_at(item, rows).y);
      }
    };

    if (lead && rank == 1) {
      // Unpadded rows (32 of them fill one A stage of rank 0), 32-byte pieces XOR-swizzled
      // by r % 8 so that the stores still spread over the banks.
      to_smem([](int r, int c) { return r * TM + (c ^ (8 * (r % 8))); });
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // read by the bulk copy
      named_bar_sync(1, 256);
      if (ctid == 0) {
        wait_cluster_acquire(uint32_t(__cvta_generic_to_shared(&ss.go)), 0);
        const uint32_t bar = map_to_rank(uint32_t(__cvta_generic_to_shared(&ss.recv)), 0u);
        const uint32_t x0 = uint32_t(__cvta_generic_to_shared(ss.x()));
        for (int c = 0; c < TN / 32; ++c)
          bulk_copy_to_cluster(map_to_rank(x0 + uint32_t(((k0 + c) % S) * D::kXBytes), 0u),
                               red_base + uint32_t(c * D::kXBytes), D::kXBytes, bar);
        // A copy into shared::cluster completes only on the destination's mbarrier (bulk
        // groups do not track it): this CTA's shared memory stays alive until rank 0 has
        // received everything and says so (the go barrier's second phase).
        wait_cluster_acquire(uint32_t(__cvta_generic_to_shared(&ss.go)), 1);
      }
      return;
    }

    if (lead) {
      // Rank 0: its own tile (padded, in the B stages) + rank 1's (chunk r / 32 in A stage
      // (k0 + r/32) % S), 8 consecutive M (unit stride in D) per item.
      to_smem(padded);
      named_bar_sync(1, 256);
      wait_cluster_acquire(uint32_t(__cvta_generic_to_shared(&ss.recv)), 0);
      if (ctid == 0) arrive_remote(map_to_rank(uint32_t(__cvta_generic_to_shared(&ss.go)), 1u));
      const float* other = reinterpret_cast<const float*>(ss.x());
      constexpr int kItems = TN * (TM / 8) / 256;
      float v[kItems][8];
      CUTE_UNROLL
      for (int it = 0; it < kItems; ++it) {
        const int item = ctid + 256 * it;
        const int r = item_at(item, TN).x, c8 = item_at(item, TN).y;
        const float4* a = reinterpret_cast<const float4*>(&ss.red()[padded(r, 8 * c8)]);
        const float4* b = reinterpret_cast<const float4*>(
            other + ((k0 + r / 32) % S) * (D::kXBytes / 4) + (r % 32) * TM + 8 * (c8 ^ (r % 8)));
        const float4 a0 = a[0], a1 = a[1], b0 = b[0], b1 = b[1];
        v[it][0] = a0.x + b0.x; v[it][1] = a0.y + b0.y; v[it][2] = a0.z + b0.z;
        v[it][3] = a0.w + b0.w; v[it][4] = a1.x + b1.x; v[it][5] = a1.y + b1.y;
        v[it][6] = a1.z + b1.z; v[it][7] = a1.w + b1.w;
      }
      if (epi) {
        fused_items(v, kItems * 256, TN, 0);
        return;
      }
      CUTE_UNROLL
      for (int it = 0; it < kItems; ++it) {
        const int item = ctid + 256 * it;
        store(v[it], item_at(item, TN).x, item_at(item, TN).y);
      }
      return;
    }

    // 1, 4 or 8 splits: after one cluster barrier CTA `rank` sums rows
    // [rank*TN/splits, +TN/splits) over the cluster (every load issued before the first
    // sum) and stores them.
    to_smem(padded);
    cluster_sync_all();   // every partial tile of the cluster is complete and visible
    const int rows = TN / splits;
    auto reduce = [&](auto q_const) {
      constexpr int Q = decltype(q_const)::value;
      constexpr int kItems = ((TN / Q) * (TM / 8) + 255) / 256;
      const int n_items = rows * (TM / 8);
      // Items past n_items are neither loaded nor stored; zeroed so no sum reads garbage.
      float4 lo[Q][kItems] = {}, hi[Q][kItems] = {};
      CUTE_UNROLL
      for (int q = 0; q < Q; ++q)
        CUTE_UNROLL
        for (int it = 0; it < kItems; ++it) {
          const int item = ctid + 256 * it;
          if (item < n_items) {
            const int r = rank * rows + item_at(item, rows).x;
            const uint32_t a = map_to_rank(
                red_base + uint32_t(padded(r, 8 * item_at(item, rows).y) * 4),
                uint32_t(q + crank));
            lo[q][it] = ld_cluster_f4(a);
            hi[q][it] = ld_cluster_f4(a + 16);
          }
        }
      float v[kItems][8];
      CUTE_UNROLL
      for (int it = 0; it < kItems; ++it) {
        CUTE_UNROLL
        for (int e = 0; e < 8; ++e) v[it][e] = 0.f;
        CUTE_UNROLL
        for (int q = 0; q < Q; ++q) {
          v[it][0] += lo[q][it].x; v[it][1] += lo[q][it].y;
          v[it][2] += lo[q][it].z; v[it][3] += lo[q][it].w;
          v[it][4] += hi[q][it].x; v[it][5] += hi[q][it].y;
          v[it][6] += hi[q][it].z; v[it][7] += hi[q][it].w;
        }
      }
      // Release: this CTA's remote reads have completed before the partners, once all
      // have arrived, may exit; the global stores come after, so they are not waited for.
      cluster_arrive_release();
      if (epi) {
        fused_items(v, n_items, rows, rank * rows);
        return;
      }
      CUTE_UNROLL
      for (int it = 0; it < kItems; ++it) {
        const int item = ctid + 256 * it;
        if (item < n_items)
          store(v[it], rank * rows + item_at(item, rows).x, item_at(item, rows).y);
      }
    };
    switch (splits) {
      case 1: reduce(Int<1>{}); break;
      case 4: reduce(Int<4>{}); break;
      default: reduce(Int<8>{}); break;
    }
    cluster_wait();   // no CTA exits while another still reads its partial tile
  }
#else
  if (threadIdx.x == 0) __trap();
#endif
}

}  // namespace sm90
}  // namespace ferrocute

#define FERROCUTE_SPLITK_DEFINE(cfgname, Cfg, am, bm, in, out)                                  \
  extern "C" __global__ void __launch_bounds__(384, 1)                                         \
      ferrocute_sm90_##cfgname##_##am##bm##_##in##_##out(                                      \
          const GemmParams params, const __grid_constant__ CUtensorMap tma_a,                  \
          const __grid_constant__ CUtensorMap tma_b) {                                         \
    ferrocute::sm90::splitk_kernel<Cfg, FERROCUTE_SM90_MAJ_##am, FERROCUTE_SM90_MAJ_##bm,      \
                                   FERROCUTE_SM90_TY_##in, FERROCUTE_SM90_TY_##out>(           \
        params, &tma_a, &tma_b);                                                               \
  }
