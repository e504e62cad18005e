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
//     distributed shared memory, with no global workspace and no atomics. Each CTA of the
//     cluster reduces and stores TN/splits rows of N.
//
// =====================================================================================
// CONFIG SCHEMA
// =====================================================================================
//   struct Cfg {
//     using TileShape = cute::Shape<cute::Int<TM>, cute::Int<TN>, cute::Int<BK>>;
//                       // TM: M per CTA (WGMMA N), multiple of 64, <= 256;
//                       // TN = 64 or 128: N per CTA (see above);
//                       // BK: multiple of 64
//     static constexpr int Stages = 7;
//     using SmemLayoutAtomK  = GMMA::Layout_K_SW128_Atom<16-bit> as in sm90_gemm.cuh;
//     using SmemLayoutAtomMN = GMMA::Layout_MN_SW128_Atom<16-bit>;
//   };
//
// ENTRY POINTS: ferrocute_sm90_splitk_<TM>x<TN>x<BK>_s<S>_<am><bm>_<in>_<out>, same parameters
// and tensor-map contract as sm90_gemm.cuh with BM := TM and BN := TN (box {64,TM} for a K-major
// A, {64,BK} for an M-major A, {64,TN} / {64,BK} for B).
//
// LAUNCH FORMULA
//   grid    = (splits, ceil(N/TN) * ceil(M/TM), batch), splits in {1,2,4,8}
//   cluster = (splits, 1, 1)         (cuLaunchKernelEx attribute; none needed for splits = 1)
//   programmatic stream serialization may be allowed (PDL): the kernel waits on
//   griddepcontrol.wait before its first global memory access
//   block   = (384, 1, 1)            warpgroup 0: producer (one TMA thread); 1,2: consumers
//   dynamic smem = 1024 + roundup(Stages*(TM+TN)*BK*2 + Stages*16, 1024)
//                  (the (TN, TM+8) f32 partial tile reuses the pipeline and must fit in it)
//   CTA x of a cluster owns k-tiles [x*per, (x+1)*per), per = ceil(ceil(K/BK)/splits).
//   The kernel traps on blockDim != 384, too little dynamic smem, or splits not dividing TN.
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
  static constexpr int kWBytes = TN * BK * 2;
  static constexpr int kXBytes = TM * BK * 2;
  static constexpr int kStageBytes = kWBytes + kXBytes;
  // Row stride (floats) of the partial tile: = 8 (mod 32), so the float2 stores of a
  // half-warp (4 rows x 8 columns) hit 32 distinct banks.
  static constexpr int kRedLd = TM + 8;
  static_assert(TN * kRedLd * 4 <= S * kStageBytes, "the partial tile must fit the pipeline");
};

template <class Cfg>
struct alignas(1024) SplitKStorage {
  using D = SplitKDerived<Cfg>;
  // B tiles (TN, BK) x S, then A tiles (TM, BK) x S, both 1024-aligned. Once the mainloop
  // is over, the same bytes hold this CTA's partial (TN, TM) tile, M contiguous.
  uint8_t pipe[D::S * D::kStageBytes];
  uint64_t full[D::S];
  uint64_t empty[D::S];
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

template <class Cfg, bool AKMajor, bool BKMajor, class In, class Out>
__device__ __forceinline__ void splitk_kernel(GemmParams const& p, CUtensorMap const* tma_a,
                                              CUtensorMap const* tma_b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using D = SplitKDerived<Cfg>;
  constexpr int TM = D::TM, TN = D::TN, BK = D::BK, S = D::S;
  static_assert(TN == 64 || TN == 128, "TN must be 64 or 128 (consumer warpgroups x 64 rows of N)");
  static_assert(TM % 64 == 0 && TM >= 64 && TM <= 256, "TM must be 64..256, multiple of 64");
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
  const int splits = gridDim.x;   // the cluster spans grid.x
  const int rank = blockIdx.x;

  if (tid == 0) {
    if (blockDim.x != kThreads || dyn_smem_size() < uint32_t(splitk_smem_bytes<Cfg>()) ||
        TN % splits != 0)
      __trap();
    for (int s = 0; s < S; ++s) {
      cutlass::arch::ClusterTransactionBarrier::init(&ss.full[s], 1);
      cutlass::arch::ClusterBarrier::init(&ss.empty[s], 8);   // one arrival per consumer warp
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  // Programmatic dependent launch (a no-op without the launch attribute): the next kernel
  // in the stream may start its CTAs on free SMs now, and this grid touches global memory
  // only once the previous grid has completed and its writes are visible.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");

  const int M = p.m, N = p.n, K = p.k;
  const int tiles_n = (N + TN - 1) / TN;
  const int n0 = (blockIdx.y % tiles_n) * TN;
  const int m0 = (blockIdx.y / tiles_n) * TM;
  const int l = blockIdx.z;
  const int k_tiles = (K + BK - 1) / BK;
  const int per = (k_tiles + splits - 1) / splits;
  const int kt_begin = min(k_tiles, rank * per);
  const int kt_end = min(k_tiles, kt_begin + per);

  if (wg == 0) {
    // ============================ PRODUCER ============================
    cutlass::arch::warpgroup_reg_dealloc<40>();
    if (warp == 0 && cute::elect_one_sync()) {
      cute::prefetch_tma_descriptor(tma_a);
      cute::prefetch_tma_descriptor(tma_b);
      int stage = 0;
      uint32_t phase = 1;   // the first wait on each empty barrier passes at once
      for (int kt = kt_begin; kt < kt_end; ++kt) {
        cutlass::arch::ClusterBarrier::wait(&ss.empty[stage], phase);
        cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&ss.full[stage],
                                                                       D::kStageBytes);
        // B streams through once; A is read by every CTA of the grid.
        tma_load_operand<BKMajor, TN, BK, 1, uint64_t(TMA::CacheHintSm90::EVICT_FIRST)>(
            tma_b, &ss.full[stage], ss.w() + stage * D::kWBytes, kt * BK, n0, l);
        tma_load_operand<AKMajor, TM, BK, 1, uint64_t(TMA::CacheHintSm90::EVICT_LAST)>(
            tma_a, &ss.full[stage], ss.x() + stage * D::kXBytes, kt * BK, m0, l);
        if (++stage == S) { stage = 0; phase ^= 1; }
      }
    }
    __syncwarp();
    // The producer warpgroup takes part in both cluster barriers of the consumers (below);
    // keeping them in separate branches lets ptxas size each path to its own setmaxnreg.
    cluster_sync_all();
    cluster_sync_all();
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

    int stage = 0;
    uint32_t phase = 0;
    auto release = [&](int st) {
      if (tid % 32 == 0) cutlass::arch::ClusterBarrier::arrive(&ss.empty[st]);
    };
    const int k_count = kt_end - kt_begin;
    if (kSplitStage && cwg == 1)
      mma_mainloop<KB / 2, KB>(tiled_mma, tCrW, tCrX, accum, ss.full, stage, phase, k_count, S,
                               release);
    else
      mma_mainloop<0, kSplitStage ? KB / 2 : KB>(tiled_mma, tCrW, tCrX, accum, ss.full, stage,
                                                 phase, k_count, S, release);
    warpgroup_wait<0>();
    warpgroup_fence_operand(accum);
    // Every WGMMA of both warpgroups has read its stages (and every TMA write they waited
    // for has landed) before the pipeline bytes are reused for the partial tile.
    named_bar_sync(1, 256);

    // Registers -> this CTA's partial tile red(n, m). Fragment of m64nTMk16 (f32): value
    // i = v0 + 2*v1 + 4*j is row 16*warp + lane/4 + 8*v1, column 8*j + 2*(lane%4) + v0.
    // With split stages warpgroup 0 writes its tile and warpgroup 1 then adds its own.
    const int row = (kSplitStage ? 0 : 64 * cwg) + 16 * (wtid / 32) + lane / 4;
    const int col = 2 * (lane % 4);
    auto to_red = [&](bool add) {
      CUTE_UNROLL
      for (int j = 0; j < TM / 8; ++j) {
        CUTE_UNROLL
        for (int v1 = 0; v1 < 2; ++v1) {
          const int i = 2 * v1 + 4 * j;
          float2* r = reinterpret_cast<float2*>(&ss.red()[(row + 8 * v1) * D::kRedLd + 8 * j + col]);
          float2 v = make_float2(accum(i), accum(i + 1));
          if (add) { v.x += r->x; v.y += r->y; }
          *r = v;
        }
      }
    };
    if (!kSplitStage || cwg == 0) to_red(false);
    if constexpr (kSplitStage) {
      named_bar_sync(1, 256);
      if (cwg == 1) to_red(true);
    }

    cluster_sync_all();   // every partial tile of the cluster is complete and visible

    // CTA `rank` sums rows [rank*TN/splits, +TN/splits) over the cluster and stores them,
    // 8 consecutive M (unit stride in D) per item.
    const int rows = TN / splits;
    const bool d_vec = vec_ok<Out>(p.d, p.ldd, p.batch_stride_d);
    const bool c_vec = vec_ok<Out>(p.c, p.ldc, p.batch_stride_c);
    const uint32_t red_base = uint32_t(__cvta_generic_to_shared(ss.red()));
    for (int item = ctid; item < rows * (TM / 8); item += 256) {
      const int r = rank * rows + item / (TM / 8);
      const int c8 = item % (TM / 8);
      const int gn = n0 + r;
      const int gm = m0 + 8 * c8;
      if (gn >= N || gm >= M) continue;
      const uint32_t addr = red_base + uint32_t((r * D::kRedLd + 8 * c8) * 4);
      float v[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
      for (int q = 0; q < splits; ++q) {
        const uint32_t a = map_to_rank(addr, uint32_t(q));
        const float4 lo = ld_cluster_f4(a);
        const float4 hi = ld_cluster_f4(a + 16);
        v[0] += lo.x; v[1] += lo.y; v[2] += lo.z; v[3] += lo.w;
        v[4] += hi.x; v[5] += hi.y; v[6] += hi.z; v[7] += hi.w;
      }
      store_rows8<Out>(v, gm, int64_t(l) * p.batch_stride_d + int64_t(gn) * p.ldd + gm,
                       int64_t(l) * p.batch_stride_c + int64_t(gn) * p.ldc + gm, p, d_vec,
                       c_vec);
    }

    cluster_sync_all();   // no CTA exits while another still reads its partial tile
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
