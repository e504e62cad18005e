//! Dispatch: which kernel, grid and split a problem runs with, as a pure function of the
//! problem, the device (compute capability, SM count) and explicit [`Overrides`].

use super::error::Error;
use super::geometry::{
    ctas_per_sm, grid_dims, persistent_k_blocks_with, skinny_parts, split_k, stream_k_blocks,
    tile_count, TailSplit, MAX_GRID_X, MAX_GRID_YZ, SKINNY_SPLIT_MAX_TILES,
};
use super::plan::{GemmDesc, Plan};
use super::registry::{
    kernel_name, runs_on, GridKind, KernelConfig, FAST_KERNELS, MULTICAST_N_SMALL_M_KERNELS,
    MULTICAST_SMALL_M_KERNELS, NARROW_KERNELS, PERSISTENT_KERNELS, SIMPLE_KERNEL, SKINNY_KERNELS,
    SMALL_M_KERNELS,
};

mod overrides;
mod persistent;
pub use overrides::Overrides;
use persistent::best_persistent_with;
pub use persistent::{best_persistent, narrow_pick};

/// Picks the kernel for a validated plan on a device of compute capability
/// `cc` with `sm_count` multiprocessors.
///
/// Rules: fast kernels need `k > 0`, the architecture and the alignment. For `m <= 16` with
/// a K-major B and `k % 4 == 0`, a [`SKINNY_KERNELS`] entry wins ([`skinny_pick`]). For
/// `16 < m <= 256`, a small tile in clusters that share A or B by multicast where its grid
/// fits ([`multicast_pick`]). For `m <= 64`,
/// and `m <= 128` where the preferred fast tile would fill under half the SMs, an eligible
/// [`SMALL_M_KERNELS`] entry whose tile holds all of M wins (the one 128 rows of N wide where
/// its tiles fill a quarter of the SMs, half above 64 rows, else the first); for more rows
/// where it would fill under a quarter of them (half with `k <= 2048`), the last eligible
/// one. Then, for `m > 128` and a K-major B, a narrow persistent tile whose tiles fit in one
/// wave (or, for `k >= 2048`, that holds all of 129-160 columns in one tile of N) where that
/// puts less work on each SM ([`narrow_pick`]). Where the Hopper tiles
/// fill every SM, [`best_persistent`] weighs
/// [`PERSISTENT_KERNELS`]. Otherwise
/// the first eligible kernel's family (its PTX module: the TMA kernels on Hopper, the
/// Ampere-class ones elsewhere) is used; within it the first tile in table order that
/// yields at least one block per SM wins, else the one with the most blocks. Otherwise the
/// simple kernel. ([`dispatch_plan`] first turns a problem with few columns and many rows
/// into its transpose, [`Plan::transposed`], where that reaches these small-M kernels.)
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::select;
/// use ferrocute::gemm::registry::SIMPLE_KERNEL;
/// let d = |r, c, ptr| OperandDesc { shape: MatShape::packed(r, c, Order::ColMajor), len: r * c, ptr };
/// // 7 rows: ld 7 is odd, so the Ampere-class tile that reads single elements is chosen.
/// let p = plan(&GemmDesc { a: d(7, 8, 0x1000), b: d(8, 8, 0x2000), c: d(7, 8, 0x3000),
///     in_bytes: 2, out_bytes: 4 }).unwrap();
/// assert_eq!(select(&p, (9, 0), 132).unwrap().name, "sm80_128x128x32_s3_v1");
/// // k = 0 (C = beta C): the simple kernel.
/// let p = plan(&GemmDesc { a: d(8, 0, 0x1000), b: d(0, 8, 0x2000), c: d(8, 8, 0x3000),
///     in_bytes: 2, out_bytes: 4 }).unwrap();
/// assert_eq!(select(&p, (9, 0), 132).unwrap().name, SIMPLE_KERNEL.name);
/// ```
pub fn select(plan: &Plan, cc: (i32, i32), sm_count: u32) -> Result<&'static KernelConfig, Error> {
    select_with(plan, cc, sm_count, &Overrides::default())
}

/// [`select`] under `ov`.
pub fn select_with(
    plan: &Plan,
    cc: (i32, i32),
    sm_count: u32,
    ov: &Overrides,
) -> Result<&'static KernelConfig, Error> {
    if plan.k > 0 {
        let eligible = |c: &&KernelConfig| {
            runs_on(c, cc)
                && plan.fast_aligned(c.align_elems, c.extent_align_elems)
                && (!c.path.tma() || tma_ok(plan))
                && (c.grid != GridKind::Skinny || skinny_ok(plan, c))
                && (plan.a.k_major || c.m_major_a)
                && (plan.b.k_major || c.n_major_b)
        };
        if let Some(cfg) = ov.kernel.filter(eligible) {
            return Ok(cfg);
        }
        let tiles = |c: &KernelConfig| tile_count(plan, c);
        if let Some(skinny) = skinny_pick(plan, sm_count, |c| eligible(&c)) {
            return Ok(skinny);
        }
        if let Some(multicast) = multicast_pick(plan, sm_count, |c| eligible(&c)) {
            return Ok(multicast);
        }
        let first = FAST_KERNELS.iter().find(eligible);
        // Small M, or few tiles of the 128x128 tile: small tiles (and, for long K, a K split)
        // instead of idle SMs. Up to 64 rows always; up to 128 while the large tiles would
        // fill under half the SMs; beyond that under a quarter, or half with K up to 2048
        // (with longer K the persistent tiles, splitting their only round along K, measured
        // faster: BENCHMARKS.md, decode sweep).
        let mut small_m = SMALL_M_KERNELS.iter().filter(eligible);
        let small = if plan.m <= 128 {
            // Of the tiles that hold all of M, the one 128 rows of N wide where its tiles
            // still fill half the SMs (fewer CTAs, each streaming more of B), else the first.
            // Up to 64 rows where they fill a quarter: there it ran as fast as the 64-wide
            // tile with K in half the parts, or faster (1x6144x4096 TT 27.2 → 23.9 µs,
            // 32x8192x28672 TN 166.5 → 160.7, TT 172.8 → 158.8; BENCHMARKS.md), but slower
            // on weights of 32 such tiles or fewer.
            let fill = if plan.m <= 64 { 4 } else { 2 };
            let holds_m = small_m.filter(|c| plan.m as u32 <= c.tile_m);
            holds_m
                .clone()
                .find(|c| c.tile_n > 64 && fill * tiles(c) >= sm_count as u64)
                .or_else(|| holds_m.clone().next())
        } else {
            small_m.next_back()
        };
        if let Some(small) = small {
            let big_tiles = first.map_or(0, tiles);
            let sms = sm_count as u64;
            let small_wins = if plan.m <= 64 {
                true
            } else if plan.m <= 128 {
                2 * big_tiles < sms
            } else {
                4 * big_tiles <= sms || (2 * big_tiles <= sms && plan.k <= 2048)
            };
            // Its grid puts the tiles of one batch on y and the batches on z.
            let fits = tiles(small) / plan.batch.max(1) as u64 <= MAX_GRID_YZ
                && plan.batch as u64 <= MAX_GRID_YZ;
            if small_wins && fits {
                return Ok(small);
            }
        }
        if let Some(narrow) = narrow_pick(plan, sm_count, |c| eligible(&c)) {
            return Ok(narrow);
        }
        if let Some(cfg) = best_persistent_with(plan, |c| eligible(&c), sm_count, ov.tail_split) {
            return Ok(cfg);
        }
        // The best kernel family for this GPU (the table lists the fastest first), then
        // within it the first tile (largest first) that still gives every SM a block.
        if let Some(first) = first {
            let mut best: Option<(&'static KernelConfig, u64)> = None;
            for cfg in FAST_KERNELS
                .iter()
                .filter(eligible)
                .filter(|c| c.module == first.module)
            {
                let tiles = tiles(cfg);
                if tiles >= sm_count as u64 {
                    return Ok(cfg);
                }
                if best.is_none_or(|(_, t)| tiles > t) {
                    best = Some((cfg, tiles));
                }
            }
            if let Some((cfg, _)) = best {
                return Ok(cfg);
            }
        }
    }
    if runs_on(&SIMPLE_KERNEL, cc) {
        Ok(&SIMPLE_KERNEL)
    } else {
        Err(Error::UnsupportedArch {
            kernel: SIMPLE_KERNEL.name.to_string(),
            needed: SIMPLE_KERNEL.min_arch,
            found: cc,
        })
    }
}

/// The register-streaming kernel for `plan` among the `eligible` [`SKINNY_KERNELS`]: the
/// first (most warps per tile), unless its CTAs, as many as the SMs hold at once, would run
/// a second round of tiles at most half full and a later entry's CTAs hold every tile at
/// once. A few tiles left for a second round stream on a few SMs after the rest have
/// finished: Qwen2.5 7B's QKV (4608 rows, 288 tiles) took 19.3 µs on 264 CTAs of 8 warps
/// and 17.4 µs on 288 of 4 (H100, BENCHMARKS.md). A second round at least half full keeps
/// the memory busy, and the 8-warp CTAs, with twice the loads in flight per tile, were then
/// as fast or faster (512 tiles of K = 29568: 165.7 against 172 µs).
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::skinny_pick;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let pick = |n: usize| {
///     let desc = GemmDesc { a: d(1, 4096, Order::RowMajor, 1 << 36),
///         b: d(4096, n, Order::ColMajor, 2 << 36), c: d(1, n, Order::ColMajor, 3 << 36),
///         in_bytes: 2, out_bytes: 2 };
///     skinny_pick(&plan(&desc).unwrap(), 132, |_| true).map(|c| c.name)
/// };
/// // 8-warp CTAs: 264 on 132 SMs; 4-warp ones: 528.
/// assert_eq!(pick(4096), Some("sm90_skinny16_w8")); // 256 tiles: one round
/// assert_eq!(pick(4608), Some("sm90_skinny16_w4")); // 288: a second round of 24
/// assert_eq!(pick(6336), Some("sm90_skinny16_w4")); // 396: of 132
/// assert_eq!(pick(6352), Some("sm90_skinny16_w8")); // 397: of 133
/// assert_eq!(pick(8192), Some("sm90_skinny16_w8")); // 512
/// ```
pub fn skinny_pick(
    plan: &Plan,
    sm_count: u32,
    eligible: impl Fn(&KernelConfig) -> bool,
) -> Option<&'static KernelConfig> {
    let mut skinny = SKINNY_KERNELS.iter().filter(|c| eligible(c));
    let first = skinny.clone().next()?;
    // One M tile (m <= 16): the 16-row tiles of N in every batch.
    let tiles = tile_count(plan, first);
    let resident = |c: &KernelConfig| (ctas_per_sm(c) * sm_count.max(1)) as u64;
    let last = tiles % resident(first);
    if tiles <= resident(first) || last == 0 || 2 * last > resident(first) {
        return Some(first);
    }
    Some(skinny.find(|c| tiles <= resident(c)).unwrap_or(first))
}

/// The small-tile kernel whose clusters share an operand's stages by TMA multicast, for
/// `plan`, among those `eligible`; `None` outside `16 < m <= 256` or where none fits.
///
/// For `m <= 64` (one tile of M, which every tile of N reads): the 64x64 tile in clusters
/// of 4 along N sharing A ([`MULTICAST_N_SMALL_M_KERNELS`]), where its grid, the K-unsplit
/// 64x64 tile's, fills more than half the SMs in one wave of clusters (with fewer tiles the
/// K-split tile is as fast; in two waves it is faster). Above: the first of
/// [`MULTICAST_SMALL_M_KERNELS`] whose grid (`c * ceil(tiles_m / c) * tiles_n * batch` CTAs
/// in clusters of `c`, each streaming all of K) fills more than half the SMs in one wave
/// and which shares B as it should. Clusters of 2 are resident on every SM, of 4 on 10 of
/// every 11 (an H100's GPCs hold 30 of them at this shared memory); a second wave of
/// clusters runs at about half the speed.
/// - 96-row tiles in clusters of 2 (64 or 128 rows of N, K-major A and B): 128 < m <= 192,
///   all of M in one cluster with no MMA column past 192 rows, where the 128-row tiles
///   compute 256, and where the pairs fill at least three quarters of the SMs (forced against
///   the dispatch, H100: 192x4096x4096 20.7–21.3 → 19.7–19.9 µs, 160x3584x3584 18.2–18.5 →
///   17.1–17.2, 160x8192x8192 58.6–59.5 → 55.6–56.0; level on 72 and 96 CTAs, at 4608 and
///   6144 rows of weights; BENCHMARKS.md).
/// - 64-row tiles in clusters of 4: at least 3 tiles of M (one CTA past M is the price of
///   reading B once) and a K-major B (an N-major B's stage is two 64-row boxes, so two of
///   the four CTAs would issue every load, measured slower).
/// - 128-row tiles in clusters of 2: 128 < m <= 256 (one cluster holds all of M, so B is
///   read once) and a K-major B (an N-major B's 64-row stage is one box, which one CTA
///   would load alone), where the clusters of 4 would not fit in one wave: with one batch
///   on 132 SMs, weights of about 4096 rows (3840 < n <= 4224), 128 CTAs. There they beat
///   the 64-row tiles in clusters of 2, which read B twice (256x4096x4096 22.1 → 21.5 µs
///   on an H100), and, at longer K, the persistent tiles (192x4096x14336 62.6 → 55.1;
///   BENCHMARKS.md).
/// - 64-row tiles in clusters of 2 over 3 or 4 tiles of M read B twice, as the 128-row
///   persistent tiles do, whose fixed costs (a split tail's reduction) weigh less as K
///   grows: they take `k <= 8192` times the share of their CTAs inside M.
/// - 64x64 tiles in clusters of 2: 64 < m <= 128 and a K-major B, where the 64x128 tiles
///   fill under half the SMs (weights of 2112 to 4224 rows at one batch). They replace the
///   128x64 tile split over K in 2, whose second CTA hands its partial tile over at the end
///   (128x4096x4096 18.9 → 18.4 µs, 100x3584x18944 61.9 → 55.8; BENCHMARKS.md).
///
/// The measurements are in BENCHMARKS.md (ledger, decode dispatch),
/// `benches/sweeps/2026-11-26-h100-multicast/`, `benches/sweeps/2026-11-28-h100-mc2-128/` and
/// `benches/sweeps/2026-11-28-h100-pair64/`.
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::multicast_pick;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let pick_b = |m: usize, n: usize, k: usize, b_order| {
///     let desc = GemmDesc { a: d(m, k, Order::RowMajor, 1 << 36),
///         b: d(k, n, b_order, 2 << 36), c: d(m, n, Order::ColMajor, 3 << 36),
///         in_bytes: 2, out_bytes: 2 };
///     multicast_pick(&plan(&desc).unwrap(), 132, |_| true).map(|c| c.name)
/// };
/// let pick = |m, n, k| pick_b(m, n, k, Order::ColMajor); // B K-major
/// assert_eq!(pick(256, 3584, 3584), Some("sm90_splitk_64x128x64_s9_mc4")); // 28 clusters of 4
/// assert_eq!(pick_b(256, 3584, 3584, Order::RowMajor), Some("sm90_splitk_64x128x64_s9_mc2"));
/// // 4096 rows of weights: 32 clusters of 4 (128 CTAs) are more than are resident, 64 of
/// // 2 are not, and 128-row tiles read B once at any K.
/// assert_eq!(pick(256, 4096, 4096), Some("sm90_splitk_128x64x64_s9_mc2"));
/// assert_eq!(pick(256, 4096, 14336), Some("sm90_splitk_128x64x64_s9_mc2"));
/// // 129..192 rows: two 96-row tiles, where 64 (128) rows of N fill one wave of pairs.
/// assert_eq!(pick(192, 4096, 14336), Some("sm90_splitk_96x64x64_s11_mc2"));
/// assert_eq!(pick(160, 8192, 8192), Some("sm90_splitk_96x128x64_s8_mc2"));
/// assert_eq!(pick(192, 6144, 4096), None); // 96 CTAs of 96x128: the persistent tiles
/// assert_eq!(pick(192, 10240, 8192), None); // 160 CTAs
/// assert_eq!(pick_b(256, 4096, 4096, Order::RowMajor), Some("sm90_splitk_64x128x64_s9_mc2"));
/// assert_eq!(pick_b(192, 4096, 8192, Order::RowMajor), None); // 3 of 4 in M, long K
/// assert_eq!(pick_b(256, 4096, 14336, Order::RowMajor), None);
/// assert_eq!(pick(256, 4608, 14336), None); // 144 CTAs: the persistent tiles
/// assert_eq!(pick(256, 6144, 4096), None); // 192 CTAs: two waves
/// assert_eq!(pick(128, 4608, 3584), Some("sm90_splitk_64x128x64_s9_mc2")); // 72 CTAs
/// assert_eq!(pick(128, 4096, 4096), Some("sm90_splitk_64x64x64_s13_mc2")); // 128 CTAs
/// assert_eq!(pick(100, 3584, 18944), Some("sm90_splitk_64x64x64_s13_mc2")); // 112 CTAs
/// assert_eq!(pick(128, 2048, 4096), None); // 64 CTAs: under half the SMs
/// assert_eq!(pick_b(128, 4096, 4096, Order::RowMajor), None); // N-major B: split-K
/// // One tile of M: clusters of 4 along N sharing A, where 72 or 96 tiles fit in one wave.
/// assert_eq!(pick(32, 4608, 3584), Some("sm90_splitk_64x64x64_s13_nc4"));
/// assert_eq!(pick(64, 6144, 4096), Some("sm90_splitk_64x64x64_s13_nc4"));
/// assert_eq!(pick(64, 8192, 8192), None); // 32 clusters of 4: more than are resident
/// assert_eq!(pick(16, 6144, 4096), None); // the register-streaming kernel's rows
/// ```
pub fn multicast_pick(
    plan: &Plan,
    sm_count: u32,
    eligible: impl Fn(&KernelConfig) -> bool,
) -> Option<&'static KernelConfig> {
    let sms = sm_count.max(1) as u64;
    let resident = |c: u64| if c <= 2 { sms } else { sms * 10 / 11 };
    if plan.m <= 64 {
        // One tile of M, read by every tile of N: clusters along N share it, on the grid of
        // the 64x64 tile without a K split (which fills the SMs alone from 67 tiles on).
        if plan.m <= 16 {
            return None;
        }
        return MULTICAST_N_SMALL_M_KERNELS
            .iter()
            .filter(|c| eligible(c))
            .find(|cfg| {
                let c = cfg.cluster_n as u64;
                let tiles_n = (plan.n as u64).div_ceil(cfg.tile_n as u64);
                let ctas = c * tiles_n.div_ceil(c) * plan.batch.max(1) as u64;
                2 * ctas > sms && ctas <= resident(c)
            });
    }
    if plan.m > 256 {
        return None;
    }
    MULTICAST_SMALL_M_KERNELS
        .iter()
        .filter(|c| eligible(c))
        .find(|cfg| {
            let c = cfg.cluster_m as u64;
            let tiles_m = (plan.m as u64).div_ceil(cfg.tile_m as u64);
            let tiles_n = (plan.n as u64).div_ceil(cfg.tile_n as u64);
            let ctas = c * tiles_m.div_ceil(c) * tiles_n * plan.batch.max(1) as u64;
            let one_wave = 2 * ctas > sms && ctas <= resident(c);
            let shares = match (c, cfg.tile_m, cfg.tile_n) {
                (2, 96, _) => {
                    let fills = 4 * ctas >= 3 * sms;
                    plan.m > 128 && tiles_m == 2 && plan.a.k_major && plan.b.k_major && fills
                }
                (4, 64, 128) => tiles_m >= 3 && plan.b.k_major,
                (2, 128, 64) => tiles_m == 2 && plan.b.k_major,
                (2, 64, 128) => {
                    tiles_m <= 2 || plan.k as u64 * c * tiles_m.div_ceil(c) <= 8192 * tiles_m
                }
                (2, 64, 64) => tiles_m == 2 && plan.b.k_major,
                _ => false,
            };
            one_wave && shares
        })
}

/// The TMA kernels read every batch through one tensor map, so they need real (non-zero)
/// batch strides for A and B when there is more than one batch, and every byte stride of a
/// tensor map must stay below 2^40.
fn tma_ok(plan: &Plan) -> bool {
    const LIMIT: i64 = 1 << 40;
    let strides_ok = |o: &super::plan::KernelOperand| {
        let e = o.elem_bytes as i64;
        o.ld.saturating_mul(e) < LIMIT && o.batch_stride.saturating_mul(e) < LIMIT
    };
    (plan.batch <= 1 || (plan.a.batch_stride > 0 && plan.b.batch_stride > 0))
        && strides_ok(&plan.a)
        && strides_ok(&plan.b)
}

/// What the register-streaming small-M kernels take: `m` within one 16-row tile, a K-major
/// B (16- or 8-byte loads along K) and A of either majorness (the `align_elems` of 4 puts
/// an M-major A's k rows on 8 bytes), `k` a multiple of 4, and its tiles (16 rows by up to
/// 8 parts of K, in every batch) counted in an `i32` (a fused epilogue runs its `_epi` entry
/// points, [`KernelConfig::fused_entries`]).
/// B may have any size: the kernel splits K across CTAs where its tiles would leave SMs
/// idle ([`skinny_parts`]).
fn skinny_ok(plan: &Plan, c: &KernelConfig) -> bool {
    plan.m <= c.tile_m as i32
        && plan.b.k_major
        && plan.k % 4 == 0
        && (plan.n as u64).div_ceil(16) * 8 * plan.batch as u64 <= i32::MAX as u64
}

/// The plan a problem runs as, and its kernel: `plan`, or where it has at most 256 columns
/// and more rows than columns (`y = x W^T` with a row-major `y` of few rows is planned as
/// `y^T`, the weight on A), its [`Plan::transposed`] when that runs on a kernel that writes
/// a D of either order ([`KernelConfig::takes_n_major_d`]) and is not one of the weighed
/// persistent tiles ([`PERSISTENT_KERNELS`]: so the small-M kernels and the narrow tiles). The
/// weight then streams through the kernels built for it, as it does with a column-major
/// `y`, except where a narrow tile over the weight does less work ([`weight_stays_on_m`]);
/// a weighed tile that writes an N-major D (128x192) holds the tokens in one tile of N as
/// planned. The other way round, a few hundred tokens on M go to the weight's side where a
/// tile there reads the weight once or does less work ([`weight_side`]). A forced kernel
/// (`ov.kernel`) that one orientation refuses runs on the other where that takes it.
fn oriented(
    plan: Plan,
    cc: (i32, i32),
    sm_count: u32,
    ov: &Overrides,
) -> Result<(Plan, &'static KernelConfig), Error> {
    let missed = |cfg: &KernelConfig| ov.kernel.is_some_and(|f| f.name != cfg.name);
    let transposed = (plan.n <= 256 && plan.n < plan.m && !plan.d_n_major)
        .then(|| plan.transposed())
        .and_then(|t| {
            let cfg = select_with(&t, cc, sm_count, ov).ok()?;
            let weighed = PERSISTENT_KERNELS.iter().any(|w| w.config == *cfg);
            (cfg.takes_n_major_d(t.a.k_major, t.b.k_major) && !weighed).then_some((t, cfg))
        });
    if let Some((t, cfg)) = transposed.filter(|(_, cfg)| !missed(cfg)) {
        let kept = ov
            .kernel
            .is_none()
            .then(|| weight_stays_on_m(&plan, &t, cfg, cc, sm_count, ov));
        return Ok(kept.flatten().unwrap_or((t, cfg)));
    }
    let cfg = select_with(&plan, cc, sm_count, ov)?;
    match transposed {
        // Forced, but taken by neither: the orientation the dispatch itself chooses.
        Some(t) if missed(cfg) => Ok(t),
        _ if ov.kernel.is_none() || missed(cfg) => {
            Ok(weight_side(&plan, cfg, cc, sm_count, ov).unwrap_or((plan, cfg)))
        }
        _ => Ok((plan, cfg)),
    }
}

/// For 129-192 rows against more columns (the tokens of `y = x·Wᵀ` on M, a column-major
/// `y`), K-major A and B, on a persistent tile `cfg`: the transposed plan (the weight on M)
/// and its tile, which writes the N-major D, where that tile puts less work on the busiest
/// SM ([`persistent::busiest_sm_work`], tile area without the weighing's per-tile cost, as
/// in [`narrow_pick`]; a tie keeps the tokens on M), or up to 160 tokens holds them all in
/// one tile of N in more than one round (it reads the weight once). Up to 160 tokens that
/// tile is a narrow one; at 161-192 the 128x192 pingpong tile, where the weighing over the
/// weight takes it and it stores D by TMA (its `_nd` entry points).
///
/// 129-160 tokens: two tiles of M
/// over a weight of 11,008-14,336 rows take the 128x256 tile in one partial round, where
/// 128x160 tiles over the weight hold up to 160 tokens in as many tiles of 0.63x the area;
/// at 6,144 rows 96 tiles of 128x80 against 128 of 128x96. Measured on an H200
/// (BENCHMARKS.md, ledger): 0.65-0.95 of the time (144x14336x14336 186 → 135 µs,
/// 160x6144x4096 24.3 → 22.2), none slower. A narrow tile that holds all the tokens in more
/// than one round reads the weight once ([`narrow_pick`]) and is taken without this
/// comparison: the 128x128 tile with a split tail, whose second tile of M is mostly empty,
/// weighs less by area, yet took 1.08-1.11x the time (H200: 136x18432x4096 79.7 against
/// 73.5 µs, 144x17408x4096 81.9 against 74.0; level at 160x18432x8192).
///
/// 161-192 tokens: on the 128x192 tile over the weight TN runs in RM's time, 0.83-0.97 of
/// its time with the tokens on M (H200: 192x28672x4096 101-107 → 89-90 µs, 192x57344x8192
/// 382-383 → 329-332, 192x14336x4096 49-53 → 47). Where the weighing ties (2.2 rounds over
/// 37,888 rows against 3 with the tokens on M) it ran 1.03-1.06x the time: no shortcut by
/// rounds here.
///
/// Bounds: the measured ones. Past 192 tokens the weight's side needs two tiles of N; the
/// transposed plan's B is this plan's A, which these tiles read K-major only, and an N-major
/// B (the weight's A there) was not measured.
fn weight_side(
    plan: &Plan,
    cfg: &'static KernelConfig,
    cc: (i32, i32),
    sm_count: u32,
    ov: &Overrides,
) -> Option<(Plan, &'static KernelConfig)> {
    let k_major = plan.a.k_major && plan.b.k_major;
    if !(plan.m > 128 && plan.m <= 192 && plan.n > plan.m && !plan.d_n_major && k_major)
        || cfg.grid != GridKind::Persistent
    {
        return None;
    }
    let t = plan.transposed();
    let side = select_with(&t, cc, sm_count, ov).ok()?;
    // The 128x192 tile writes an N-major D fast by TMA only: a plain 16-bit D on 16 bytes
    // whose rows (the tokens) are whole 16-byte pieces (with beta != 0 one value a thread).
    let by_tma = !t.fused && t.d.elem_bytes == 2 && t.d.fast_aligned(8, 8, t.batch > 1);
    let fits = if plan.m <= 160 {
        NARROW_KERNELS.contains(side)
    } else {
        side.may_store_d_by_tma() && side.takes_n_major_d(t.a.k_major, t.b.k_major) && by_tma
    };
    let work = |p: &Plan, c| persistent::busiest_sm_work(p, c, sm_count, ov.tail_split);
    let rounds = plan.m <= 160
        && tile_count(&t, side) > sm_count as u64
        && persistent::holds_all_n(&t, side);
    (fits && (rounds || work(&t, side) < work(plan, cfg))).then_some((t, side))
}

/// [`weight_side`] the other way round: 129-160 columns of tokens against the weight
/// on M (a row-major `y`), whose transpose `t` would run on the persistent tile `cfg` with
/// the tokens on M, stay as planned where a narrow tile over the weight puts less work on the
/// busiest SM (a tie transposes). At 6,144 rows 96 tiles of 128x80 against 128 of 128x96
/// over two tiles of tokens: 0.90 of the time at 144 and 160 tokens (24.1 → 21.8 µs, H200,
/// BENCHMARKS.md, ledger), level at 129. Bounds: as [`weight_side`]'s.
fn weight_stays_on_m(
    plan: &Plan,
    t: &Plan,
    cfg: &'static KernelConfig,
    cc: (i32, i32),
    sm_count: u32,
    ov: &Overrides,
) -> Option<(Plan, &'static KernelConfig)> {
    if !(plan.n > 128 && plan.n <= 160) || cfg.grid != GridKind::Persistent {
        return None;
    }
    let narrow = select_with(plan, cc, sm_count, ov).ok()?;
    let work = |p: &Plan, c| persistent::busiest_sm_work(p, c, sm_count, ov.tail_split);
    (NARROW_KERNELS.contains(narrow) && work(plan, narrow) < work(t, cfg))
        .then_some((*plan, narrow))
}

/// What [`dispatch`] decided for one problem.
///
/// ```
/// # use ferrocute::gemm::dispatch::Dispatch;
/// fn show(d: &Dispatch) -> String { format!("{:?} grid {:?}", d.kernel, d.grid) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// The validated, kernel-convention problem.
    pub plan: Plan,
    /// Chosen configuration; `None` for a no-op (m, n or batch 0).
    pub config: Option<&'static KernelConfig>,
    /// Entry point name; empty for a no-op.
    pub kernel: String,
    /// Grid dimensions (blocks).
    pub grid: (u32, u32, u32),
    /// CTAs per cluster along x (1: no cluster): the K splits of a [`GridKind::SplitK`]
    /// kernel, or the CTAs of its clusters along M or N ([`KernelConfig::cluster_m`] x
    /// [`KernelConfig::cluster_n`]); 1 for every other kernel.
    pub cluster: u32,
    /// Whether the kernel's A and B (`plan.a`, `plan.b`: the caller's B and A when
    /// `plan.swapped`) were copied into the handle's workspace with aligned leading
    /// dimensions first, and whether D was written there and copied out to C
    /// ([`super::Repacking`]); `dispatch` itself never repacks.
    pub repacked: [bool; 3],
    /// How tiles are split along K across CTAs: a persistent kernel's last round
    /// ([`persistent_k_blocks`](super::geometry::persistent_k_blocks)) or its last two rounds
    /// stream-K ([`stream_k_blocks`]), or every tile of the register-streaming kernel
    /// ([`skinny_parts`]); the default: not at all.
    pub tail: TailSplit,
}

/// Validation + kernel selection + grid, without touching a device.
///
/// ```
/// use ferrocute::gemm::{GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::dispatch;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let desc = GemmDesc { a: d(256, 64, Order::RowMajor, 0x10000), b: d(64, 256, Order::ColMajor, 0x40000),
///     c: d(256, 256, Order::ColMajor, 0x80000), in_bytes: 2, out_bytes: 2 };
/// let ds = dispatch(&desc, "bf16", "bf16", (8, 0), 1).unwrap();
/// assert_eq!(ds.kernel, "ferrocute_sm80_128x256x32_s4_kk_bf16_bf16");
/// ```
pub fn dispatch(
    desc: &GemmDesc,
    input: &str,
    output: &str,
    cc: (i32, i32),
    sm_count: u32,
) -> Result<Dispatch, Error> {
    dispatch_plan(
        super::plan::plan(desc)?,
        input,
        output,
        cc,
        sm_count,
        &Overrides::default(),
    )
}

/// [`dispatch`] for a plan already validated by [`super::plan::plan`] (or derived from
/// one, as [`super::Repack::apply`] does).
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::{dispatch, dispatch_plan};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let desc = GemmDesc { a: d(512, 512, Order::RowMajor, 0x100000), b: d(512, 512, Order::ColMajor, 0x200000),
///     c: d(512, 512, Order::ColMajor, 0x300000), in_bytes: 2, out_bytes: 2 };
/// let p = plan(&desc).unwrap();
/// assert_eq!(dispatch_plan(p, "bf16", "bf16", (9, 0), 132, &Default::default()).unwrap(),
///            dispatch(&desc, "bf16", "bf16", (9, 0), 132).unwrap());
/// ```
pub fn dispatch_plan(
    plan: Plan,
    input: &str,
    output: &str,
    cc: (i32, i32),
    sm_count: u32,
    ov: &Overrides,
) -> Result<Dispatch, Error> {
    if plan.is_noop() {
        return Ok(Dispatch {
            plan,
            config: None,
            kernel: String::new(),
            grid: (0, 0, 0),
            cluster: 1,
            repacked: [false; 3],
            tail: TailSplit::default(),
        });
    }
    let (plan, cfg) = oriented(plan, cc, sm_count, ov)?;
    let cluster = match cfg.grid {
        GridKind::SplitK if cfg.cluster_m > 1 || cfg.cluster_n > 1 => cfg.cluster_m * cfg.cluster_n,
        GridKind::SplitK => ov
            .split_k
            .filter(|s| s.is_power_of_two())
            .unwrap_or_else(|| split_k(cfg, plan.m, plan.n, plan.k, plan.batch, sm_count)),
        _ => 1,
    };
    let tail = match cfg.grid {
        GridKind::Persistent => {
            let (blocks, split) = persistent_k_blocks_with(&plan, cfg, sm_count, ov.tail_split);
            let stream = match ov.stream_k {
                Some(false) => None,
                Some(true) => stream_k_blocks(&plan, cfg, sm_count),
                None => stream_k_blocks(&plan, cfg, sm_count).filter(|&(b, _)| {
                    b < blocks && persistent::takes_stream_k(&plan, cfg, sm_count)
                }),
            };
            stream.map_or(split, |(_, s)| s)
        }
        GridKind::Skinny => {
            let parts = ov
                .split_k
                .unwrap_or_else(|| skinny_parts(cfg, plan.n, plan.k, plan.batch, sm_count));
            let tiles = (plan.n as u64).div_ceil(16) * plan.batch as u64;
            match u32::try_from(tiles) {
                // Counters for at most 256 tiles: they stay in the workspace's first KiB.
                Ok(t) if parts > 1 && tiles <= SKINNY_SPLIT_MAX_TILES => TailSplit {
                    tiles: t,
                    splits: parts,
                    stream: false,
                },
                _ => TailSplit::default(),
            }
        }
        _ => TailSplit::default(),
    };
    let grid = match cfg.grid {
        // A CTA per SM, one part or stream-K run each, even where there are fewer tiles than
        // SMs.
        GridKind::Persistent if tail.splits > 0 => (sm_count.clamp(1, MAX_GRID_X as u32), 1, 1),
        GridKind::Skinny => grid_dims(
            cfg,
            plan.m,
            plan.n,
            plan.batch,
            sm_count,
            tail.splits.max(1),
        )?,
        _ => grid_dims(cfg, plan.m, plan.n, plan.batch, sm_count, cluster)?,
    };
    Ok(Dispatch {
        plan,
        config: Some(cfg),
        kernel: kernel_name(
            cfg,
            plan.a.k_major,
            plan.b.k_major,
            input,
            output,
            plan.fused,
            plan.d_n_major,
        ),
        grid,
        cluster,
        repacked: [false; 3],
        tail,
    })
}
