//! Launch geometry: grids, tile counts, K splits and the split of a persistent kernel's
//! last round, as pure functions of the problem and the configuration.

use super::error::Error;
use super::plan::Plan;
use super::registry::{GridKind, KernelConfig, PERSISTENT_KERNELS};

/// Output tiles of `c` over all of `plan`'s batches.
pub(crate) fn tile_count(plan: &Plan, c: &KernelConfig) -> u64 {
    (plan.m.max(0) as u64).div_ceil(c.tile_m.max(1) as u64)
        * (plan.n.max(0) as u64).div_ceil(c.tile_n.max(1) as u64)
        * plan.batch.max(1) as u64
}

/// How a persistent kernel splits its last tiles along K: the tiles of a part-empty last
/// round in `splits` parts each, one part per CTA ([`persistent_k_blocks`]), or, with
/// `stream`, the last round and a whole one before it in one run of k-blocks per CTA
/// ([`stream_k_blocks`]); `splits == 0`: no split, every CTA runs whole tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TailSplit {
    /// Tiles split (the last in raster order).
    pub tiles: u32,
    /// Parts per tile: at least 2 when `tiles > 0`; stream-K cuts a tile once at most (2).
    pub splits: u32,
    /// Stream-K: each CTA runs an equal run of the `tiles` tiles' k-blocks, tile after tile.
    pub stream: bool,
}

/// The time a tail split costs beyond its share of k-blocks, in k-blocks: writing one
/// partial f32 tile and arriving at the tile's counter (the first term) and adding each
/// split's sums in the last part to arrive, which stores the tile (the second, per split).
/// Estimated, not fitted: the measured gains fall short of what the k-blocks predict, which
/// is why [`Weighed::split_tail`](super::registry::Weighed::split_tail) limits the split to
/// the tiles where it measured no loss (see BENCHMARKS.md, optimisation ledger).
pub const TAIL_SPLIT_COST: (u64, u64) = (2, 1);

/// The k-blocks the busiest SM runs for `plan` on the persistent kernel `cfg`, and how it
/// splits the last round's tiles, whichever is shorter.
///
/// With `t` tiles of `kt` k-blocks on `p` SMs, whole tiles take `ceil(t / p) * kt`. Where the
/// last round is part empty (`r = t % p` tiles, after `q = t / p` full rounds) its tiles can
/// be split along K into `s <= p / r` parts, one per CTA, all starting at the same k-blocks
/// (so tiles that share A or B rows still read them from L2 together): `q * kt + ceil(kt /
/// s)` plus [`TAIL_SPLIT_COST`], for the best `s`. Only the tiles whose
/// [`Weighed`](super::registry::Weighed) entry says so split: the split pays on the 128x128
/// tile but costs the 128x192 tile, whose consumers hold 192 accumulators (measured on an
/// H100: see BENCHMARKS.md, optimisation ledger).
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::geometry::{persistent_k_blocks, TailSplit};
/// use ferrocute::gemm::registry::PERSISTENT_KERNELS;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let p = |m: usize, n: usize, k: usize| plan(&GemmDesc { a: d(m, k, Order::RowMajor, 1 << 36),
///     b: d(k, n, Order::ColMajor, 2 << 36), c: d(m, n, Order::ColMajor, 3 << 36),
///     in_bytes: 2, out_bytes: 2 }).unwrap();
/// let pp128 = &PERSISTENT_KERNELS[2].config;
/// // 2560³: 400 tiles of 40 k-blocks, 3 rounds and 4 tiles: those in 5 parts of 8 k-blocks.
/// assert_eq!(persistent_k_blocks(&p(2560, 2560, 2560), pp128, 132),
///            (120 + 8 + 2 + 4, TailSplit { tiles: 4, splits: 5, stream: false }));
/// // 4096³: 1024 tiles, 7 rounds and 100 tiles, which one split would not shorten.
/// assert_eq!(persistent_k_blocks(&p(4096, 4096, 4096), pp128, 132), (512, TailSplit::default()));
/// // The 128x192 tile runs whole tiles: 2560³ is 280 of them, 3 rounds of 40 k-blocks.
/// let pp192 = &PERSISTENT_KERNELS[1].config;
/// assert_eq!(persistent_k_blocks(&p(2560, 2560, 2560), pp192, 132), (120, TailSplit::default()));
/// ```
pub fn persistent_k_blocks(plan: &Plan, cfg: &KernelConfig, sm_count: u32) -> (u64, TailSplit) {
    persistent_k_blocks_with(plan, cfg, sm_count, None)
}

/// [`persistent_k_blocks`] with the tail split forced off (`Some(false)`) or on with the
/// most parts a tile can take (`Some(true)`: as many as there are CTAs per tile, one
/// k-block each at least), as
/// [`Overrides::tail_split`](super::dispatch::Overrides::tail_split) asks.
pub fn persistent_k_blocks_with(
    plan: &Plan,
    cfg: &KernelConfig,
    sm_count: u32,
    forced: Option<bool>,
) -> (u64, TailSplit) {
    let p = sm_count.max(1) as u64;
    let t = tile_count(plan, cfg);
    let kt = (plan.k.max(0) as u64).div_ceil(cfg.tile_k.max(1) as u64);
    let whole = t.div_ceil(p).saturating_mul(kt);
    let (q, r) = (t / p, t % p);
    let weighed = PERSISTENT_KERNELS
        .iter()
        .any(|w| w.config == *cfg && w.split_tail);
    let allowed = cfg.can_split_tail && (weighed || forced == Some(true));
    if !allowed || kt == 0 || r == 0 || forced == Some(false) {
        return (whole, TailSplit::default());
    }
    let (fixed, per_split) = TAIL_SPLIT_COST;
    let time = |s: u64| q.saturating_mul(kt) + kt.div_ceil(s) + fixed + per_split * (s - 1);
    let most = (p / r).min(kt);
    let best = if forced == Some(true) {
        most
    } else {
        (2..=most).min_by_key(|&s| time(s)).unwrap_or(1)
    };
    if best >= 2 && (time(best) < whole || forced == Some(true)) {
        let split = TailSplit {
            tiles: r as u32,
            splits: best as u32,
            stream: false,
        };
        (time(best), split)
    } else {
        (whole, TailSplit::default())
    }
}

/// The k-blocks the busiest SM runs for `plan` on the persistent kernel `cfg` with its last
/// tiles stream-K, and that split; `None` where stream-K does not apply.
///
/// With `t` tiles of `kt` k-blocks on `p` SMs in `q = t / p` full rounds and `r = t % p`
/// more, whole tiles take `(q + 1) * kt`; stream-K runs `q - 1` rounds of whole tiles, then
/// the last `p + r` tiles' k-blocks in `p` equal runs, one per CTA: `(q - 1) * kt +
/// ceil((p + r) * kt / p)`, plus [`TAIL_SPLIT_COST`]'s first term twice and its second once
/// (a run at least a tile long cuts at most one tile at each end: a CTA stores two partial
/// tiles, and adds one where it arrives last). It applies where the problem streams a
/// weight through one tile of the few tokens (`m <= tile_m` or `n <= tile_n`; the TMA tiles
/// take no operand broadcast over batches), so that no two tiles read the same weight rows
/// and cutting them at any k-block reads nothing twice (across tiles that share rows it
/// tripled the DRAM reads at 4096³, BENCHMARKS.md), past one round (`q >= 1`, `r > 0`), on
/// the tiles that split along K (`can_split_tail`).
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::geometry::{stream_k_blocks, TailSplit};
/// use ferrocute::gemm::registry::NARROW_KERNELS;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let p = |m: usize, n: usize, k: usize| plan(&GemmDesc { a: d(m, k, Order::RowMajor, 1 << 36),
///     b: d(k, n, Order::ColMajor, 2 << 36), c: d(m, n, Order::ColMajor, 3 << 36),
///     in_bytes: 2, out_bytes: 2 }).unwrap();
/// let t160 = NARROW_KERNELS.iter().find(|c| c.tile_n == 160).unwrap();
/// // 160 tokens of a 28672-row weight: 224 tiles of 64 k-blocks, 1.7 rounds on 132 SMs.
/// assert_eq!(stream_k_blocks(&p(28672, 160, 4096), t160, 132),
///            Some((109 + 5, TailSplit { tiles: 224, splits: 2, stream: true })));
/// assert_eq!(stream_k_blocks(&p(8192, 160, 4096), t160, 132), None); // 64 tiles
/// assert_eq!(stream_k_blocks(&p(28672, 320, 4096), t160, 132), None); // two tiles of N
/// ```
pub fn stream_k_blocks(plan: &Plan, cfg: &KernelConfig, sm_count: u32) -> Option<(u64, TailSplit)> {
    let p = sm_count.max(1) as u64;
    let t = tile_count(plan, cfg);
    let kt = (plan.k.max(0) as u64).div_ceil(cfg.tile_k.max(1) as u64);
    let (q, r) = (t / p, t % p);
    let one_tile_of_tokens =
        plan.m.max(0) as u32 <= cfg.tile_m || plan.n.max(0) as u32 <= cfg.tile_n;
    let tiles = p + r;
    if !cfg.can_split_tail || !one_tile_of_tokens || kt == 0 || q == 0 || r == 0 {
        return None;
    }
    // The kernel counts the run's k-blocks in 32 bits.
    if tiles.saturating_mul(kt) > i32::MAX as u64 {
        return None;
    }
    let (fixed, per_split) = TAIL_SPLIT_COST;
    let blocks = (q - 1) * kt + (tiles * kt).div_ceil(p) + 2 * fixed + per_split;
    let split = TailSplit {
        tiles: tiles as u32,
        splits: 2,
        stream: true,
    };
    Some((blocks, split))
}

/// Bytes of the workspace a launch of `cfg` on `ctas` CTAs with the tail split `split`
/// takes (`sm90_gemm.cuh`): a zeroed u32 arrival counter per CTA, rounded up to 1 KiB, then
/// one f32 tile of partial sums per part (stream-K: two per CTA, the pieces of the tile its
/// run begins in and of the one it ends in).
///
/// ```
/// use ferrocute::gemm::geometry::{tail_split_workspace_bytes, TailSplit};
/// use ferrocute::gemm::registry::PERSISTENT_KERNELS;
/// // 4 tiles of 128x128 in 6 parts on 132 CTAs: 1 KiB of counters and 24 x 64 KiB.
/// let split = TailSplit { tiles: 4, splits: 6, stream: false };
/// assert_eq!(tail_split_workspace_bytes(&PERSISTENT_KERNELS[2].config, 132, split),
///            1024 + 24 * 65536);
/// // 200 tiles stream-K on 132 CTAs: 264 parts.
/// let stream = TailSplit { tiles: 200, splits: 2, stream: true };
/// assert_eq!(tail_split_workspace_bytes(&PERSISTENT_KERNELS[2].config, 132, stream),
///            1024 + 264 * 65536);
/// ```
///
/// The register-streaming kernel ([`GridKind::Skinny`]) splits every tile
/// ([`skinny_parts`]): its counters are one per tile.
pub fn tail_split_workspace_bytes(cfg: &KernelConfig, ctas: u32, split: TailSplit) -> u64 {
    let parts = if split.stream {
        2 * ctas as u64
    } else {
        split.tiles as u64 * split.splits as u64
    };
    split_counter_bytes(cfg, ctas, split) + parts * cfg.tile_m as u64 * cfg.tile_n as u64 * 4
}

/// The counters at the start of [`tail_split_workspace_bytes`]: one u32 per CTA (per tile
/// for the register-streaming kernel), rounded up to 1 KiB; zero before the launch.
fn split_counter_bytes(cfg: &KernelConfig, ctas: u32, split: TailSplit) -> u64 {
    let counters = if cfg.grid == GridKind::Skinny {
        split.tiles
    } else {
        ctas
    };
    (counters as u64 * 4).div_ceil(1024) * 1024
}

/// The bytes every split launch's counters fit in: a launch writes its partial sums after
/// its counters, so counters that reached past this could meet an earlier launch's sums.
/// The persistent tiles' counters (one per CTA) fit on every sm_90 part (at most 144 SMs);
/// the register-streaming kernel splits K only for up to 256 tiles
/// ([`SKINNY_SPLIT_MAX_TILES`]).
pub const SPLIT_COUNTER_BYTES: u64 = 1024;

/// The most tiles (16 rows of N, in every batch) the register-streaming kernel splits along
/// K: their counters fit in [`SPLIT_COUNTER_BYTES`]. Splits pay only for a few long tiles.
pub const SKINNY_SPLIT_MAX_TILES: u64 = SPLIT_COUNTER_BYTES / 4;

/// CTAs of the register-streaming `cfg` one SM holds at once: by threads (2048 per SM),
/// registers (64 Ki per SM, 128 per thread: the kernel's launch bounds), shared memory
/// (228 KiB per SM, 1 KiB of it reserved per CTA) and the 32-CTA limit of sm_90.
///
/// ```
/// use ferrocute::gemm::geometry::ctas_per_sm;
/// use ferrocute::gemm::registry::SKINNY_KERNELS;
/// assert_eq!(ctas_per_sm(&SKINNY_KERNELS[0]), 2); // 8 warps: registers
/// assert_eq!(ctas_per_sm(&SKINNY_KERNELS[1]), 4); // 4 warps: registers (shared memory: 5)
/// ```
pub fn ctas_per_sm(cfg: &KernelConfig) -> u32 {
    let by_threads = 2048 / cfg.threads.max(1);
    let by_regs = 65536 / (128 * cfg.threads.max(1));
    let by_smem = (228 * 1024) / (cfg.smem_bytes + 1024);
    by_threads.min(by_regs).min(by_smem).clamp(1, 32)
}

/// The reduction and store of one register-streaming tile, in steps of 32 k of one warp (its
/// CTA's barriers; the loads of the next tile stay in flight).
const SKINNY_TILE_STEPS: u64 = 2;

/// What each part beyond the first costs a split tile, in steps of 32 k of one warp: its
/// partial sums through the workspace, the arrival and the last part's sum (measured on an
/// H100: parts pay only where a few long tiles leave most SMs idle, BENCHMARKS.md).
const SKINNY_SPLIT_STEPS: u64 = 16;

/// The rows of the box in which a TMA kernel loads a K-major A (`{64, rows}`): its tile's M
/// rows, the 1/`cluster_n` of them each CTA of a cluster along N multicasts, or, where a
/// split-K tile with no cluster along M or N (a K split's cluster may be there) is wider
/// than all of M (`m < tile_m`), only M's rows rounded up to 8, as TMA's zero fill of the
/// rows past M costs in proportion to their number. `sm90_splitk.cuh` expects the bytes of
/// this box by the same rule (its `a_rows`): a box of other rows would hang the kernel.
///
/// ```
/// use ferrocute::gemm::geometry::a_box_rows;
/// use ferrocute::gemm::registry::{all_kernels, KernelConfig};
/// let k = |name: &str| all_kernels().find(|c| c.name == name).unwrap();
/// let s13: &KernelConfig = k("sm90_splitk_64x64x64_s13");
/// assert_eq!(a_box_rows(s13, 5), 8);
/// assert_eq!(a_box_rows(s13, 64), 64);
/// assert_eq!(a_box_rows(k("sm90_splitk_64x64x64_s13_nc4"), 20), 16); // 64 / 4, bands skipped
/// assert_eq!(a_box_rows(k("sm90_splitk_64x64x64_s13_mc2"), 5), 64); // clusters along M
/// assert_eq!(a_box_rows(k("sm90_splitk_128x64x64_s9"), 100), 104);
/// assert_eq!(a_box_rows(k("sm90_128x128x64_s6_pp"), 5), 128);
/// ```
pub fn a_box_rows(cfg: &KernelConfig, m: i32) -> u64 {
    let (tile_m, m) = (cfg.tile_m as u64, m.max(1) as u64);
    if cfg.grid == GridKind::SplitK && cfg.cluster_m <= 1 && cfg.cluster_n <= 1 && m < tile_m {
        m.div_ceil(8) * 8
    } else {
        tile_m / cfg.cluster_n.max(1) as u64
    }
}

/// The parts `Q` (1 to 8) the register-streaming kernel splits K into (`tail_splits`), so
/// that its tiles (16 rows of N and a part of K) spread evenly over its persistent CTAs: the
/// busiest CTA runs `ceil(tiles * Q / ctas)` tiles of `ceil(steps / (Q * warps))` steps per
/// warp plus `SKINNY_TILE_STEPS` (2) each, plus `SKINNY_SPLIT_STEPS` (16) per part beyond the
/// first, and the least such time wins, the fewest parts among equals. Every part keeps at
/// least 4 steps per warp.
///
/// ```
/// use ferrocute::gemm::geometry::skinny_parts;
/// use ferrocute::gemm::registry::SKINNY_KERNELS;
/// let w8 = &SKINNY_KERNELS[0]; // 2 CTAs per SM: 264 on 132 SMs
/// assert_eq!(skinny_parts(w8, 4096, 4096, 1, 132), 1); // 256 tiles: one each
/// assert_eq!(skinny_parts(w8, 1024, 4096, 1, 132), 1); // 64 short tiles
/// assert_eq!(skinny_parts(w8, 1024, 14336, 1, 132), 2); // 64 long ones: 128 halves
/// assert_eq!(skinny_parts(w8, 28672, 4096, 1, 132), 1);
/// ```
pub fn skinny_parts(cfg: &KernelConfig, n: i32, k: i32, batch: i32, sm_count: u32) -> u32 {
    let tiles = (n.max(0) as u64).div_ceil(16) * batch.max(1) as u64;
    let steps = (k.max(0) as u64).div_ceil(32);
    let warps = (cfg.threads / 32).max(1) as u64;
    let ctas = (ctas_per_sm(cfg) * sm_count.max(1)) as u64;
    let time = |q: u64| {
        let per_warp = steps.div_ceil(q * warps);
        (tiles * q).div_ceil(ctas) * (per_warp + SKINNY_TILE_STEPS) + (q - 1) * SKINNY_SPLIT_STEPS
    };
    (1..=8u64)
        .filter(|&q| q == 1 || steps >= 4 * q * warps)
        .min_by_key(|&q| time(q))
        .unwrap_or(1) as u32
}

/// Largest `gridDim.x`.
pub const MAX_GRID_X: u64 = i32::MAX as u64;
/// Largest `gridDim.y` and `gridDim.z`.
pub const MAX_GRID_YZ: u64 = 65535;

/// Grid for a problem: `(ceil(m / tile_m), ceil(n / tile_n), batch)`, or for kernels that
/// rasterise their own tiles `(ceil(m / tile_m) * ceil(n / tile_n), 1, batch)`; see
/// [`GridKind`]. `splits` is the cluster size of [`GridKind::SplitK`] kernels, the K parts
/// of [`GridKind::Skinny`] ones ([`skinny_parts`]), else 1.
///
/// ```
/// use ferrocute::gemm::geometry::grid_dims;
/// use ferrocute::gemm::registry::{SIMPLE_KERNEL, SMALL_M_KERNELS};
/// assert_eq!(grid_dims(&SIMPLE_KERNEL, 130, 16, 2, 132, 1).unwrap(), (3, 1, 2));
/// assert_eq!(grid_dims(&SMALL_M_KERNELS[0], 16, 4096, 1, 132, 4).unwrap(), (4, 64, 1));
/// use ferrocute::gemm::registry::SKINNY_KERNELS;
/// // Persistent: 768 tiles (3 batches), as many CTAs as 132 SMs hold (2 each).
/// assert_eq!(grid_dims(&SKINNY_KERNELS[0], 16, 4096, 3, 132, 1).unwrap(), (264, 1, 1));
/// assert_eq!(grid_dims(&SKINNY_KERNELS[0], 16, 1024, 1, 132, 2).unwrap(), (128, 1, 1));
/// // Clusters of 2 along M: 300 rows are 5 tiles of 64 in 3 clusters, by 32 tiles of N.
/// use ferrocute::gemm::registry::MULTICAST_SMALL_M_KERNELS;
/// let mc2 = MULTICAST_SMALL_M_KERNELS.iter().find(|c| c.name == "sm90_splitk_64x128x64_s9_mc2");
/// assert_eq!(grid_dims(mc2.unwrap(), 300, 4096, 1, 132, 1).unwrap(), (2, 96, 1));
/// ```
pub fn grid_dims(
    cfg: &KernelConfig,
    m: i32,
    n: i32,
    batch: i32,
    sm_count: u32,
    splits: u32,
) -> Result<(u32, u32, u32), Error> {
    let tm = (m.max(0) as u64).div_ceil(cfg.tile_m.max(1) as u64);
    let tn = (n.max(0) as u64).div_ceil(cfg.tile_n.max(1) as u64);
    let b = batch.max(0) as u64;
    let (gx, gy, gz) = match cfg.grid {
        GridKind::Tiles2D => (tm, tn, b),
        GridKind::Raster1D => (tm * tn, 1, b),
        GridKind::Persistent => ((tm * tn * b).min((sm_count as u64).max(1)), 1, 1),
        // Clusters along M or N (one of the two is 1): grid.x is the cluster.
        GridKind::SplitK if cfg.cluster_m * cfg.cluster_n > 1 => {
            let (cm, cn) = (cfg.cluster_m as u64, cfg.cluster_n as u64);
            (cm * cn, tm.div_ceil(cm) * tn.div_ceil(cn), b)
        }
        GridKind::SplitK => (splits.max(1) as u64, tm * tn, b),
        GridKind::Skinny => {
            let tiles = tn * splits.max(1) as u64 * b;
            (tiles.min((ctas_per_sm(cfg) * sm_count.max(1)) as u64), 1, 1)
        }
    };
    let check = |what, v: u64, limit: u64| {
        if v > limit {
            Err(Error::Overflow {
                what,
                value: v,
                limit,
            })
        } else {
            Ok(v as u32)
        }
    };
    Ok((
        check("grid.x (tiles)", gx, MAX_GRID_X)?,
        check("grid.y (tiles)", gy, MAX_GRID_YZ)?,
        check("grid.z (batch)", gz, MAX_GRID_YZ)?,
    ))
}

/// The K splits (cluster size) of a [`GridKind::SplitK`] kernel: doubled while the CTAs
/// stay within the SMs (64-row tiles) or half of them (128-row tiles), all the clusters fit
/// on the GPU at once, and every split keeps at least 16 k-tiles, up to 8 (the portable
/// cluster size). A cluster stays within one GPC, so clusters of 4 and 8 cannot use every
/// SM: on an H100 (132 SMs) `cudaOccupancyMaxActiveClusters` gives 30 clusters of 4 and
/// 15 of 8 at these kernels' shared memory, 120 CTAs, and a grid of more clusters runs a
/// second wave at about half speed; they are counted on 10/11 of the SMs here, and
/// [`super::Gemm`] checks the split against the driver's count for the device at hand.
/// Splitting costs a cluster launch and a reduction through distributed shared memory, so
/// the 64-row tiles, with half the B bytes per CTA, split up to a full wave of CTAs, the
/// 128-row tile only up to half a wave, but a full one at `m <= 64` (where two parts ran as
/// fast as one or faster on the `llm` weights, every layout; BENCHMARKS.md, optimisation
/// ledger).
/// [`Overrides::split_k`](super::dispatch::Overrides::split_k) replaces it, for tuning.
///
/// ```
/// use ferrocute::gemm::geometry::split_k;
/// use ferrocute::gemm::registry::SMALL_M_KERNELS;
/// let [rows64, m128, rows128] = [&SMALL_M_KERNELS[0], &SMALL_M_KERNELS[1], &SMALL_M_KERNELS[2]];
/// assert_eq!(split_k(rows64, 16, 4096, 4096, 1, 132), 2);   // 64 tiles x 2 = 128 CTAs
/// assert_eq!(split_k(rows64, 1, 64, 8192, 1, 132), 8);      // one tile, 128 k-tiles
/// assert_eq!(split_k(rows64, 16, 4096, 1024, 1, 132), 1);   // 16 k-tiles: nothing to split
/// assert_eq!(split_k(m128, 128, 8192, 8192, 1, 132), 1);    // 128 tiles
/// assert_eq!(split_k(rows128, 16, 4096, 4096, 1, 132), 2);  // 32 tiles x 2 = 64 CTAs
/// assert_eq!(split_k(rows128, 128, 4096, 4096, 1, 132), 1); // 64 tiles
/// assert_eq!(split_k(rows128, 65, 6144, 4096, 1, 132), 1);  // 48 tiles x 2 > half a wave
/// assert_eq!(split_k(rows128, 64, 6144, 4096, 1, 132), 2);  // m <= 64: a full wave
/// assert_eq!(split_k(m128, 128, 2048, 4096, 1, 132), 2);    // 32 clusters of 4 > 30
/// assert_eq!(split_k(rows64, 64, 1024, 8192, 1, 132), 4);   // 16 clusters of 8 > 15
/// ```
pub fn split_k(cfg: &KernelConfig, m: i32, n: i32, k: i32, batch: i32, sm_count: u32) -> u32 {
    if cfg.grid != GridKind::SplitK {
        return 1;
    }
    let tiles = (m.max(0) as u64).div_ceil(cfg.tile_m.max(1) as u64)
        * (n.max(0) as u64).div_ceil(cfg.tile_n.max(1) as u64)
        * batch.max(1) as u64;
    let k_tiles = (k.max(0) as u64).div_ceil(cfg.tile_k.max(1) as u64);
    let wave = if cfg.tile_n == 64 || m <= 64 { 1 } else { 2 };
    let sms = sm_count as u64;
    let resident_ctas = |cluster: u64| if cluster <= 2 { sms } else { sms * 10 / 11 };
    let mut s = 1u64;
    while s < 8
        && 2 * wave * tiles * s <= sms
        && tiles * 2 * s <= resident_ctas(2 * s)
        && k_tiles >= 16 * 2 * s
    {
        s *= 2;
    }
    s as u32
}
