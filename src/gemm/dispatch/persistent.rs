//! The persistent Hopper tiles' choice: the weighing of [`PERSISTENT_KERNELS`] by waves, and
//! the narrow tiles for a few rows of tiles ([`NARROW_KERNELS`]).

use std::cmp::Reverse;

use crate::gemm::geometry::{persistent_k_blocks_with, tile_count};
use crate::gemm::plan::Plan;
use crate::gemm::registry::{
    KernelConfig, Weighed, FAST_KERNELS, NARROW_KERNELS, PERSISTENT_KERNELS,
};

/// The entry of [`PERSISTENT_KERNELS`] that the weighing picks for `plan`, among those
/// `eligible`, when the smallest tile gives every SM one; `None` otherwise.
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::best_persistent;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let pick = |m: usize, n: usize, k: usize| {
///     let desc = GemmDesc { a: d(m, k, Order::RowMajor, 1 << 36), b: d(k, n, Order::ColMajor, 2 << 36),
///         c: d(m, n, Order::ColMajor, 3 << 36), in_bytes: 2, out_bytes: 2 };
///     best_persistent(&plan(&desc).unwrap(), |_| true, 132).map(|c| c.name)
/// };
/// // 3072³: 576 128x128 tiles are 5 per SM; 384 128x192 tiles are 3 (4.5 units).
/// assert_eq!(pick(3072, 3072, 3072), Some("sm90_128x192x64_s4_pp"));
/// // 2048³: 256 128x128 tiles are 2 per SM; 176 128x192 tiles are 2 (3 units).
/// assert_eq!(pick(2048, 2048, 2048), Some("sm90_128x128x64_s6_pp"));
/// // 4096³: 512 128x256 tiles are 4 per SM (8 units), cheaper per unit than 8 of 128x128.
/// assert_eq!(pick(4096, 4096, 4096), Some("sm90_128x256x64_s4_coop"));
/// // 256 rows of a 57344x8192 weight: 896 128x128 tiles in whole rounds, none of them
/// // loading a zero-filled row, over 448 of 128x256 and their split tail; at 224 rows
/// // (32 zero-filled rows a tile) the 128x256 tile, which loads A half as often.
/// assert_eq!(pick(256, 57344, 8192), Some("sm90_128x128x64_s6_pp"));
/// assert_eq!(pick(224, 57344, 8192), Some("sm90_128x256x64_s4_coop"));
/// // 64 tiles for 132 SMs: not this table's problem.
/// assert_eq!(pick(1024, 1024, 1024), None);
/// // 2^62 elements of C (described, never allocated): weighed without overflow.
/// let big = (1usize << 31) - 1;
/// assert_eq!(pick(big, big, 1), Some("sm90_128x192x64_s4_pp"));
/// ```
pub fn best_persistent(
    plan: &Plan,
    eligible: impl Fn(&KernelConfig) -> bool,
    sm_count: u32,
) -> Option<&'static KernelConfig> {
    best_persistent_with(plan, eligible, sm_count, None)
}

/// [`best_persistent`] with the tail split forced as
/// [`Overrides::tail_split`](super::Overrides::tail_split) says.
pub(super) fn best_persistent_with(
    plan: &Plan,
    eligible: impl Fn(&KernelConfig) -> bool,
    sm_count: u32,
    tail_split: Option<bool>,
) -> Option<&'static KernelConfig> {
    let sms = sm_count.max(1) as u64;
    let tiles = |c: &KernelConfig| tile_count(plan, c);
    let candidates = PERSISTENT_KERNELS
        .iter()
        .filter(|w| plan.k >= w.min_k && eligible(&w.config));
    // Only problems whose finest tile fills every SM: fewer tiles go to the small tiles.
    if candidates.clone().map(|w| tiles(&w.config)).max()? < sms {
        return None;
    }
    // The busiest SM's k-blocks x the tile's area x its cost, with the tail split as `split`.
    let time_with = |w: &Weighed, split: Option<bool>| {
        let area = (w.config.tile_m * w.config.tile_n) as u64;
        // Saturating: a described (never allocated) problem may have 2^62 elements.
        persistent_k_blocks_with(plan, &w.config, sm_count, split)
            .0
            .saturating_mul(area)
            .saturating_mul(w.cost)
    };
    let time = |w: &Weighed| time_with(w, tail_split);
    let mut best: Option<&Weighed> = None;
    for w in candidates.clone() {
        if best.is_none_or(|b| time(w) < time(b)) {
            best = Some(w);
        }
    }
    // With up to 256 rows (or columns) the problem streams its weight, and a split tail
    // spreads the last round's k-blocks over more SMs but not the bytes they read: there a
    // tile in whole rounds measured faster than the winner by its split tail, wherever its
    // whole rounds weigh no more and it spans M and N. First, if another than the winner,
    // the least weighed in whole rounds of the tiles marked `whole_rounds` whose last tile
    // loads no zero-filled row along the few rows (TMA's zero fill costs in proportion to
    // the rows, and a narrower tile loads A, where they are, more often: the 128x128 tile
    // against the 128x256 one measured 1.01-1.11x at 192 and 256 rows, median 1.03, and
    // 0.89-1.06x at 224, median 0.96). Else, as before that rule, the largest tile, zero
    // fill or not (128x37888x3584 on the 128x192 tile: 116 -> 113 µs).
    // Spanning M and N matters more still: 160x10240x8192 row-major took 110 µs on the
    // 128x256 tile, whose one tile of N lies 96 columns past the tokens, against 88 µs.
    // Measured in BENCHMARKS.md, ledger.
    let whole = |w: &Weighed| time_with(w, Some(false));
    let split = |w: &Weighed| {
        persistent_k_blocks_with(plan, &w.config, sm_count, tail_split)
            .1
            .splits
            > 0
    };
    if let Some(b) = best.filter(|b| plan.m.min(plan.n) <= 256 && split(b)) {
        let spans =
            |l: &&Weighed| plan.m >= l.config.tile_m as i32 && plan.n >= l.config.tile_n as i32;
        let least = candidates
            .clone()
            .filter(|l| l.whole_rounds && spans(l) && no_zero_rows(plan, &l.config))
            .min_by_key(|w| (whole(w), Reverse(w.config.tile_m * w.config.tile_n)));
        let largest = candidates
            .max_by_key(|w| w.config.tile_m * w.config.tile_n)
            .filter(spans);
        let fits = |l: &&Weighed| !std::ptr::eq(*l, b) && whole(l) <= whole(b);
        if let Some(l) = least
            .filter(fits)
            .or(largest.filter(|l| whole(l) <= whole(b)))
        {
            best = Some(l);
        }
    }
    best.map(|w| &w.config)
}

/// Whether `c`'s last tile along the fewer of M and N loads no row past them: the tiles
/// reach exactly to the end, or 64 past it, which the tiles marked `whole_rounds` (128x128
/// and 128x256; not the 128x192 pingpong tile) load from 64 rows
/// (columns) earlier, inside the tensor (`row_shift`, `col_shift` in
/// `src/kernels/sm90/kernel.cuh`). For those tiles only.
fn no_zero_rows(plan: &Plan, c: &KernelConfig) -> bool {
    let (few, t) = if plan.m <= plan.n {
        (plan.m.max(0) as u32, c.tile_m)
    } else {
        (plan.n.max(0) as u32, c.tile_n)
    };
    let t = t.max(1);
    let past = few.div_ceil(t) * t - few;
    past == 0 || (past == 64 && few > t)
}

/// The narrow persistent tile ([`NARROW_KERNELS`]) for `plan`, among those `eligible`;
/// `None` for `m <= 128` (the small-M tiles' rows), or where none puts less work on the
/// busiest SM than the 128x128 tile.
///
/// Two tiles of 128 rows against a weight of `n` rows: the 128x128 tile makes
/// `2 * ceil(n / 128)` tiles, 96 at `n = 6144`, so a quarter of an H100's 132 SMs idle for
/// the whole (single) round, and 160 at `n = 10240`, a second round a fifth full. The
/// narrowest tile whose tiles fit in one wave gives each SM one tile instead (past one wave,
/// only a tile holding all of N: below); it is taken
/// where its k-blocks times its area, the work of the busiest SM, are below the 128x128
/// tile's in whole rounds (a split of the part-empty last round spreads its k-blocks over
/// more SMs, not the bytes they read: 128x160 tiles took 73-79 µs at 160-256 rows of a
/// 10240x8192 weight against 86-90 for 128x256 ones and the 128x128 split tail's 88).
/// The same holds for more tiles of M (264 to 2048 rows of 512 to 6144 columns: 0.66-0.92
/// of the time before on an H200, none slower), and for the weight on M with the tokens on
/// N (a swapped `y = x·Wᵀ`): 129-160 tokens of weights of 11,008-14,336 rows in one round
/// of 128x160 tiles took 0.64-0.91 of the time of the 128x128 or 128x192 tiles, whose one
/// tile of N ran past the tokens (H200).
/// A tile that holds all of N, 129-160 tokens on N against a weight of more rows than one
/// wave of 128-row tiles covers, reads the weight once in any number of rounds, where the
/// tokens on M in two tiles of M read it twice and compute a second, mostly empty tile: it
/// is taken in more than one wave too, for `k >= 2048`. Measured on an H200 against the
/// tiles it replaced (128x192, 128x256, 128x128 with a split tail): 0.62-0.94 of the time
/// at 17,408-59,136 rows (144x28672x4096 98 → 79 µs, 144x57344x8192 382 → 295), level at
/// 18,432x8192 and 20,480x4096; at K = 1024 the 128x192 pingpong tile, which overlaps a
/// tile's epilogue with the next one's loads, was faster (160x36864x1024 RM: 39 against 42.5).
/// A gated epilogue (SwiGLU) skips a tile whose gate/up pairs leave part of a warpgroup
/// idle (`KernelConfig::gated_fills_warpgroup`): the 80-wide tile, whose 8 stages leave room
/// for 16-column epilogue chunks only (64 pairs a chunk for 128 threads), where fused SwiGLU
/// cost twice what it costs the 96-wide tile (+33% against +15% over the plain GEMM at
/// 256x4608x3584 on an H200).
/// Measured in BENCHMARKS.md (ledger, decode dispatch).
///
/// ```
/// use ferrocute::gemm::{plan, plan_gated, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::narrow_pick;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let pick_b = |m: usize, n: usize, k: usize, b_order| {
///     let desc = GemmDesc { a: d(m, k, Order::RowMajor, 1 << 36),
///         b: d(k, n, b_order, 2 << 36), c: d(m, n, Order::ColMajor, 3 << 36),
///         in_bytes: 2, out_bytes: 2 };
///     narrow_pick(&plan(&desc).unwrap(), 132, |c| c.n_major_b || b_order == Order::ColMajor)
///         .map(|c| c.name)
/// };
/// let pick = |m, n, k| pick_b(m, n, k, Order::ColMajor); // B K-major
/// assert_eq!(pick(256, 6144, 4096), Some("sm90_128x96x64_s7_coop")); // 128 tiles (80 wide: 154)
/// assert_eq!(pick(192, 4608, 3584), Some("sm90_128x80x64_s8_coop")); // 116, not 96 or 72
/// assert_eq!(pick(256, 5120, 5120), Some("sm90_128x80x64_s8_coop")); // 128, not 108
/// // SwiGLU over the same weight (C has half its columns): the 96-wide tile.
/// let gated = GemmDesc { a: d(192, 3584, Order::RowMajor, 1 << 36),
///     b: d(3584, 4608, Order::ColMajor, 2 << 36), c: d(192, 2304, Order::ColMajor, 3 << 36),
///     in_bytes: 2, out_bytes: 2 };
/// let gated = narrow_pick(&plan_gated(&gated).unwrap(), 132, |_| true).map(|c| c.name);
/// assert_eq!(gated, Some("sm90_128x96x64_s7_coop"));
/// assert_eq!(pick(256, 8192, 8192), None); // 128x128: 128 tiles already
/// assert_eq!(pick(256, 10240, 8192), Some("sm90_128x160x64_s5_coop")); // 128, not 214 or 160
/// assert_eq!(pick(256, 11008, 4096), None); // 138 tiles of 128x160: two waves
/// assert_eq!(pick(128, 6144, 4096), None); // one tile of M: the small-tile kernels
/// assert_eq!(pick(384, 6144, 4096), Some("sm90_128x160x64_s5_coop")); // 117, not 144
/// assert_eq!(pick(520, 4096, 4096), Some("sm90_128x160x64_s5_coop")); // 130, not 160
/// // 160 tokens on N of a 14336-row weight: 112 tiles, not 224 of 128x128.
/// assert_eq!(pick(14336, 160, 4096), Some("sm90_128x160x64_s5_coop"));
/// // 144 of a 28672-row weight: 224 tiles in two rounds, the weight read once.
/// assert_eq!(pick(28672, 144, 4096), Some("sm90_128x160x64_s5_coop"));
/// assert_eq!(pick(28672, 144, 1024), None); // short K: the pingpong tile
/// assert_eq!(pick(448, 4096, 4096), None); // 128 tiles of 128x128: one round
/// assert_eq!(pick_b(256, 6144, 4096, Order::RowMajor), None); // an N-major B
/// ```
pub fn narrow_pick(
    plan: &Plan,
    sm_count: u32,
    eligible: impl Fn(&KernelConfig) -> bool,
) -> Option<&'static KernelConfig> {
    if plan.m <= 128 {
        return None;
    }
    let sms = sm_count.max(1) as u64;
    let work = |c: &KernelConfig| busiest_sm_work(plan, c, sm_count, Some(false));
    let base = work(&FAST_KERNELS[0]);
    NARROW_KERNELS
        .iter()
        .filter(|c| eligible(c) && (c.gated_fills_warpgroup || !plan.gated))
        .find(|c| (tile_count(plan, c) <= sms || holds_all_n(plan, c)) && work(c) < base)
}

/// Whether the narrow tile `c` may take `plan` past one wave ([`narrow_pick`]): it holds all
/// of 129-160 columns in one tile of N, so it reads the weight on M once, and `k >= 2048`.
pub(super) fn holds_all_n(plan: &Plan, c: &KernelConfig) -> bool {
    plan.n > 128 && plan.n as u32 <= c.tile_n && plan.k >= 2048
}

/// Whether `plan` on the persistent tile `c` runs its last tiles stream-K
/// ([`stream_k_blocks`](crate::gemm::geometry::stream_k_blocks)) unless overridden
/// ([`Overrides::stream_k`](super::Overrides::stream_k)): on a narrow tile that holds all
/// of N past one wave ([`holds_all_n`]), once at least two rounds of its tiles fill the SMs,
/// so that whole rounds come first and the runs take the last round and the one before.
/// Measured on an H200 against whole rounds, alternated twice: 144x59136x8192 295-309 →
/// 287-293 µs, 160x57344x8192 295-296 → 286-293, 160x37888x3584 102-104 → 99-101. Where
/// every tile runs stream-K (fewer than two rounds) it was slower, 160x28672x4096 79-80 →
/// 84-85 (ncu: 27-29% more L2 bytes, of which the partial sums are 32 MB at most), as on
/// the other tiles: 176-192 tokens of 28672x4096 on the 128x192 tile +10-16% (past two
/// rounds there -3 to +2%), 128 tokens on the 128x128 and 128x256 tiles +6-15%.
/// Measured in BENCHMARKS.md (ledger).
pub(super) fn takes_stream_k(plan: &Plan, c: &KernelConfig, sm_count: u32) -> bool {
    NARROW_KERNELS.contains(c)
        && holds_all_n(plan, c)
        && tile_count(plan, c) >= 2 * sm_count.max(1) as u64
}

/// The work of the busiest SM when `plan` runs on the persistent tile `c`: its k-blocks
/// ([`persistent_k_blocks_with`], the tail split as `tail_split` says) times the tile's
/// area.
pub(super) fn busiest_sm_work(
    plan: &Plan,
    c: &KernelConfig,
    sm_count: u32,
    tail_split: Option<bool>,
) -> u64 {
    let area = (c.tile_m * c.tile_n) as u64;
    persistent_k_blocks_with(plan, c, sm_count, tail_split)
        .0
        .saturating_mul(area)
}
