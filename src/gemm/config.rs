//! The kernel table, launch geometry and dispatch.
//!
//! **Kernel authors fill in [`FAST_KERNELS`] and [`SIMPLE_KERNEL`]** (tile
//! sizes, threads, dynamic shared memory, minimum architecture, alignment
//! needs) and, if their grid mapping differs, [`grid_dims`]. Entry points are
//! named `ferrocute_<name>_<am><bm>_<in>_<out>`, see [`kernel_name`].

use super::error::Error;
use super::plan::{GemmDesc, Plan};
use crate::kernel_config::{
    Skinny16W16, Skinny16W8, SkinnyConfig, Sm80Config, Sm80_128x128x32S3, Sm80_128x128x32S3V1,
    Sm80_128x128x32S3V4, Sm80_128x256x32S4, Sm80_64x64x32S3, Sm90Config, Sm90_128x128x64S6Pp,
    Sm90_128x192x64S4Pp, Sm90_128x256x64S3St, Sm90_128x256x64S4C2, Sm90_128x256x64S4Coop,
    Sm90_128x256x64S4St2, SplitK128x64x64S9, SplitK64x128x64S9, SplitK64x64x64S13, SplitKConfig,
};

/// How a kernel takes its arguments.
///
/// ```
/// use ferrocute::gemm::config::LaunchPath;
/// assert_ne!(LaunchPath::Params, LaunchPath::TensorMaps);
/// assert!(LaunchPath::TensorMapsAndD.tma() && !LaunchPath::Params.tma());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchPath {
    /// One `GemmParams` by value (sm_80 CuTe kernels and the simple kernel).
    Params,
    /// `GemmParams` plus `CUtensorMap`s for A and B, encoded on the host with
    /// `cuTensorMapEncodeTiled` (sm_90a split-K kernels).
    TensorMaps,
    /// As [`LaunchPath::TensorMaps`], plus one for D (the persistent sm_90a kernels, which
    /// store a 16-bit D by TMA).
    TensorMapsAndD,
}

impl LaunchPath {
    /// Whether the kernel loads A and B by TMA.
    pub const fn tma(self) -> bool {
        matches!(self, LaunchPath::TensorMaps | LaunchPath::TensorMapsAndD)
    }
}

/// Launch geometry and requirements of one kernel family.
///
/// ```
/// use ferrocute::gemm::config::SIMPLE_KERNEL;
/// assert_eq!(SIMPLE_KERNEL.name, "gemm_simple");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelConfig {
    /// The `<cfg>` part of the entry-point names.
    pub name: &'static str,
    /// PTX module (file `ptx/<module>.ptx`, embedded at build time).
    pub module: &'static str,
    /// Output rows (M) per thread block.
    pub tile_m: u32,
    /// Output columns (N) per thread block.
    pub tile_n: u32,
    /// K per main-loop step.
    pub tile_k: u32,
    /// Threads per block (1-D block).
    pub threads: u32,
    /// Dynamic shared memory per block, bytes (above 48 KiB the function
    /// attribute is raised once when the kernel is loaded).
    pub smem_bytes: u32,
    /// Minimum compute capability `(major, minor)`.
    pub min_arch: (i32, i32),
    /// Leading dimensions and batch strides of A and B must be multiples of this many
    /// elements, and their base pointers aligned to as many elements.
    pub align_elems: usize,
    /// Extent along each operand's unit-stride mode must be a multiple of
    /// this (1 = no requirement, the kernel predicates residues).
    pub extent_align_elems: usize,
    /// How arguments are passed.
    pub path: LaunchPath,
    /// How output tiles map to thread blocks.
    pub grid: GridKind,
    /// CTAs per cluster along M for [`GridKind::Persistent`] kernels (1, or 2 when
    /// M-adjacent tiles share their B tile by TMA multicast).
    pub cluster_m: u32,
    /// Whether the kernel can split the tiles of a part-empty last round along K
    /// ([`persistent_k_blocks`]): the persistent Hopper tiles without a cluster or a
    /// staged epilogue.
    pub can_split_tail: bool,
}

/// How a kernel maps its output tiles onto the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridKind {
    /// `(tiles_m, tiles_n, batch)`.
    Tiles2D,
    /// `(tiles_m * tiles_n, 1, batch)`: the kernel rasterises tiles itself (L2 grouping).
    Raster1D,
    /// `(min(tiles_m * tiles_n * batch, SMs), 1, 1)`: persistent blocks walk all tiles. With
    /// clusters of `c = cluster_m`: `(c * min(ceil(tiles_m / c) * tiles_n * batch, SMs / c), 1, 1)`.
    Persistent,
    /// `(splits, tiles_n * tiles_m, batch)` in clusters of `(splits, 1, 1)`: the CTAs of a
    /// cluster split K and sum their partial tiles in distributed shared memory.
    SplitK,
    /// `(tiles_n, 1, batch)` for `m <= tile_m`: one CTA per 16 rows of N, its warps split K.
    Skinny,
}

/// The table entry of an Ampere-class configuration type: geometry straight from the
/// type's compile-time-checked constants.
const fn sm80<C: Sm80Config>() -> KernelConfig {
    KernelConfig {
        name: C::NAME,
        module: "sm80_gemm",
        tile_m: C::TILE[0] as u32,
        tile_n: C::TILE[1] as u32,
        tile_k: C::TILE[2] as u32,
        threads: C::THREADS as u32,
        smem_bytes: C::SMEM_BYTES as u32,
        min_arch: (8, 0),
        align_elems: C::GMEM_VEC,
        extent_align_elems: 1,
        path: LaunchPath::Params,
        grid: GridKind::Raster1D,
        cluster_m: 1,
        can_split_tail: false,
    }
}

/// A Hopper table entry (sm_90a only: TMA + WGMMA, 16-byte aligned operands), launched
/// with tensor maps for A and B.
const fn hopper(
    name: &'static str,
    module: &'static str,
    tile: [usize; 3],
    threads: usize,
    smem_bytes: usize,
    grid: GridKind,
    cluster_m: usize,
) -> KernelConfig {
    KernelConfig {
        name,
        module,
        tile_m: tile[0] as u32,
        tile_n: tile[1] as u32,
        tile_k: tile[2] as u32,
        threads: threads as u32,
        smem_bytes: smem_bytes as u32,
        min_arch: (9, 0),
        align_elems: 8,
        extent_align_elems: 1,
        path: LaunchPath::TensorMaps,
        grid,
        cluster_m: cluster_m as u32,
        can_split_tail: false,
    }
}

/// The table entry of a Hopper configuration type (persistent TMA + WGMMA kernel).
const fn sm90<C: Sm90Config>() -> KernelConfig {
    KernelConfig {
        path: LaunchPath::TensorMapsAndD,
        can_split_tail: C::SCHEDULE <= 1 && C::CLUSTER_M == 1,
        ..hopper(
            C::NAME,
            "sm90_gemm",
            C::TILE,
            C::THREADS,
            C::SMEM_BYTES,
            GridKind::Persistent,
            C::CLUSTER_M,
        )
    }
}

/// The table entry of a Hopper small-tile configuration (K split over a cluster).
const fn splitk<C: SplitKConfig>() -> KernelConfig {
    hopper(
        C::NAME,
        "sm90_splitk",
        C::TILE,
        C::THREADS,
        C::SMEM_BYTES,
        GridKind::SplitK,
        1,
    )
}

/// The table entry of a small-M configuration that streams B through registers: a Hopper
/// entry (16x16 output tiles, 32 k per step) that takes `GemmParams` only, and reads rows
/// that start on 8 bytes in place (in 8-byte halves where they do not start on 16).
const fn skinny<C: SkinnyConfig>() -> KernelConfig {
    KernelConfig {
        path: LaunchPath::Params,
        align_elems: 4,
        ..hopper(
            C::NAME,
            "sm90_skinny",
            [16, 16, 32],
            C::THREADS,
            C::SMEM_BYTES,
            GridKind::Skinny,
            1,
        )
    }
}

/// Kernels for `m <= 16` with a K-major B, `k % 4 == 0` and at most [`SKINNY_MAX_B`]
/// elements of B (any number where rows start on 8 bytes only), which stream B through
/// registers (A K- or M-major): the 8-warp CTA where there is a CTA
/// per SM, else the 16-warp one (twice the loads in flight per CTA).
pub static SKINNY_KERNELS: &[KernelConfig] = &[skinny::<Skinny16W8>(), skinny::<Skinny16W16>()];

/// Kernels for small problems: `m <= 128`, or under half a wave of the 128x128 Hopper tile.
/// First the 64-row tiles, smallest M first: for `m <= 128` the first that holds all of M
/// wins, so each N tile reads B once. Last the 128-row tile, for problems with more M.
pub static SMALL_M_KERNELS: &[KernelConfig] = &[
    splitk::<SplitK64x64x64S13>(),
    splitk::<SplitK128x64x64S9>(),
    splitk::<SplitK64x128x64S9>(),
];

/// A persistent Hopper tile as the dispatcher weighs it: the time of a problem is taken as
/// the tiles each SM runs (`ceil(tiles / SMs)`) times the tile's area times `cost`, the
/// measured time per 128x128 tile's worth of work relative to the pingpong 128x128 tile, in
/// thousandths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weighed {
    /// The kernel.
    pub config: KernelConfig,
    /// Relative time per unit of tile area, in thousandths.
    pub cost: u64,
    /// The kernel is weighed only from this K on.
    pub min_k: i32,
    /// Whether the weighing splits a part-empty last round along K on this tile
    /// ([`persistent_k_blocks`]; `FERROCUTE_TAIL_SPLIT=1` splits on every tile that can).
    pub split_tail: bool,
}

/// The persistent Hopper tiles, weighed against each other for every problem that fills
/// the GPU (first wins a tie). Measured on an H100 (BENCHMARKS.md):
/// - the cooperative 128x256 tile with 4 stages moves 0.75x the L2 bytes per flop of the
///   pingpong 128x128 tile and pays on a power-capped GPU once the main loop is long
///   (`k >= LONG_K`); its consumers hand each tile's D to the TMA and start the next tile;
/// - the pingpong 128x192 tile moves 0.83x the bytes, 3-9% faster than the 128x128 tile at
///   8192x8192x1024 and 6144x6144x2048, where both put about the same tile area on each SM,
///   and its tiles quantise differently: 3072³ runs 384 of them, 2.9 per SM, against 576
///   128x128 tiles, 4.4 per SM (0.89 -> 0.96-0.99 of cuBLAS), 1536³ 96 against 144
///   (0.68-0.76 -> 0.80-0.90); it also beats the 128x256 tile at 8192³ (1.01-1.04 against
///   0.98-1.01);
/// - the pingpong 128x128 tile, with the finest grain, wins where the others would leave a
///   wave part-empty (2048³: 2 tiles per SM against 2 of 1.5 the size).
pub static PERSISTENT_KERNELS: &[Weighed] = &[
    Weighed {
        config: sm90::<Sm90_128x256x64S4Coop>(),
        cost: 960,
        min_k: LONG_K,
        split_tail: true,
    },
    Weighed {
        config: sm90::<Sm90_128x192x64S4Pp>(),
        cost: 970,
        min_k: 1,
        split_tail: false,
    },
    Weighed {
        config: sm90::<Sm90_128x128x64S6Pp>(),
        cost: 1000,
        min_k: 1,
        split_tail: true,
    },
];

/// The K from which the cooperative 128x256 tile is weighed ([`PERSISTENT_KERNELS`]).
pub const LONG_K: i32 = 4096;

/// Output tiles of `c` over all of `plan`'s batches.
fn tile_count(plan: &Plan, c: &KernelConfig) -> u64 {
    (plan.m.max(0) as u64).div_ceil(c.tile_m.max(1) as u64)
        * (plan.n.max(0) as u64).div_ceil(c.tile_n.max(1) as u64)
        * plan.batch.max(1) as u64
}

/// The entry of [`PERSISTENT_KERNELS`] that the weighing picks for `plan`, among those
/// `eligible`, when the smallest tile gives every SM one; `None` otherwise.
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Layout, MatShape, OperandDesc};
/// use ferrocute::gemm::config::best_persistent;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let pick = |m: usize, n: usize, k: usize| {
///     let desc = GemmDesc { a: d(m, k, Layout::RowMajor, 1 << 36), b: d(k, n, Layout::ColMajor, 2 << 36),
///         c: d(m, n, Layout::ColMajor, 3 << 36), in_bytes: 2, out_bytes: 2 };
///     best_persistent(&plan(&desc).unwrap(), |_| true, 132).map(|c| c.name)
/// };
/// // 3072³: 576 128x128 tiles are 5 per SM; 384 128x192 tiles are 3 (4.5 units).
/// assert_eq!(pick(3072, 3072, 3072), Some("sm90_128x192x64_s4_pp"));
/// // 2048³: 256 128x128 tiles are 2 per SM; 176 128x192 tiles are 2 (3 units).
/// assert_eq!(pick(2048, 2048, 2048), Some("sm90_128x128x64_s6_pp"));
/// // 4096³: 512 128x256 tiles are 4 per SM (8 units), cheaper per unit than 8 of 128x128.
/// assert_eq!(pick(4096, 4096, 4096), Some("sm90_128x256x64_s4_coop"));
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
    let sms = sm_count.max(1) as u64;
    let tiles = |c: &KernelConfig| tile_count(plan, c);
    let candidates = PERSISTENT_KERNELS
        .iter()
        .filter(|w| plan.k >= w.min_k && eligible(&w.config));
    // Only problems whose finest tile fills every SM: fewer tiles go to the small tiles.
    if candidates.clone().map(|w| tiles(&w.config)).max()? < sms {
        return None;
    }
    let time = |w: &Weighed| {
        let area = (w.config.tile_m * w.config.tile_n) as u64;
        // Saturating: a described (never allocated) problem may have 2^62 elements.
        persistent_k_blocks(plan, &w.config, sm_count)
            .0
            .saturating_mul(area)
            .saturating_mul(w.cost)
    };
    let mut best: Option<&Weighed> = None;
    for w in candidates {
        if best.is_none_or(|b| time(w) < time(b)) {
            best = Some(w);
        }
    }
    best.map(|w| &w.config)
}

/// How a persistent kernel splits the tiles of a part-empty last round along K
/// ([`persistent_k_blocks`]): the last `tiles` tiles in `splits` parts each, one part per
/// CTA; `splits == 0`: no split, every CTA runs whole tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TailSplit {
    /// Tiles of the last round (the last in raster order).
    pub tiles: u32,
    /// Parts per tile (at least 2 when `tiles > 0`).
    pub splits: u32,
}

/// The time a tail split costs beyond its share of k-blocks, in k-blocks: writing one
/// partial f32 tile and arriving at the tile's counter (the first term) and adding each
/// split's sums in the last part to arrive, which stores the tile (the second, per split). Estimated, not fitted: on an
/// H100 the measured gains are smaller than the k-blocks predict (2560³: 2–4% against
/// 16%, BENCHMARKS.md), which is why [`Weighed::split_tail`] limits the split to the tiles
/// where it measured no loss.
pub const TAIL_SPLIT_COST: (u64, u64) = (2, 1);

/// Whether `FERROCUTE_TAIL_SPLIT` forces the tail split off (`0`) or on with the most
/// parts a tile can take (`1`: as many as there are CTAs per tile, one k-block each at
/// least), read once per process.
fn forced_tail_split() -> Option<bool> {
    static FORCED: std::sync::OnceLock<Option<bool>> = std::sync::OnceLock::new();
    *FORCED.get_or_init(
        || match std::env::var("FERROCUTE_TAIL_SPLIT").ok()?.as_str() {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        },
    )
}

/// The k-blocks the busiest SM runs for `plan` on the persistent kernel `cfg`, and how it
/// splits the last round's tiles, whichever is shorter.
///
/// With `t` tiles of `kt` k-blocks on `p` SMs, whole tiles take `ceil(t / p) * kt`. Where the
/// last round is part empty (`r = t % p` tiles, after `q = t / p` full rounds) its tiles can
/// be split along K into `s <= p / r` parts, one per CTA, all starting at the same k-blocks
/// (so tiles that share A or B rows still read them from L2 together): `q * kt + ceil(kt /
/// s)` plus [`TAIL_SPLIT_COST`], for the best `s`. Only the tiles whose [`Weighed`] entry
/// says so split: on an H100 the split gained 2–4% at 2560³ on the 128x128 tile and cost the
/// 128x192 tile, whose consumers hold 192 accumulators, 2–7% (BENCHMARKS.md).
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Layout, MatShape, OperandDesc};
/// use ferrocute::gemm::config::{persistent_k_blocks, TailSplit, PERSISTENT_KERNELS};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let p = |m: usize, n: usize, k: usize| plan(&GemmDesc { a: d(m, k, Layout::RowMajor, 1 << 36),
///     b: d(k, n, Layout::ColMajor, 2 << 36), c: d(m, n, Layout::ColMajor, 3 << 36),
///     in_bytes: 2, out_bytes: 2 }).unwrap();
/// let pp128 = &PERSISTENT_KERNELS[2].config;
/// # if std::env::var_os("FERROCUTE_TAIL_SPLIT").is_none() {
/// // 2560³: 400 tiles of 40 k-blocks, 3 rounds and 4 tiles: those in 5 parts of 8 k-blocks.
/// assert_eq!(persistent_k_blocks(&p(2560, 2560, 2560), pp128, 132),
///            (120 + 8 + 2 + 4, TailSplit { tiles: 4, splits: 5 }));
/// // 4096³: 1024 tiles, 7 rounds and 100 tiles, which one split would not shorten.
/// assert_eq!(persistent_k_blocks(&p(4096, 4096, 4096), pp128, 132), (512, TailSplit::default()));
/// // The 128x192 tile runs whole tiles: 2560³ is 280 of them, 3 rounds of 40 k-blocks.
/// let pp192 = &PERSISTENT_KERNELS[1].config;
/// assert_eq!(persistent_k_blocks(&p(2560, 2560, 2560), pp192, 132), (120, TailSplit::default()));
/// # }
/// ```
pub fn persistent_k_blocks(plan: &Plan, cfg: &KernelConfig, sm_count: u32) -> (u64, TailSplit) {
    let p = sm_count.max(1) as u64;
    let t = tile_count(plan, cfg);
    let kt = (plan.k.max(0) as u64).div_ceil(cfg.tile_k.max(1) as u64);
    let whole = t.div_ceil(p).saturating_mul(kt);
    let (q, r) = (t / p, t % p);
    let forced = forced_tail_split();
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
        };
        (time(best), split)
    } else {
        (whole, TailSplit::default())
    }
}

/// Bytes of the workspace a launch of `cfg` on `ctas` CTAs with the tail split `split`
/// takes (`sm90_gemm.cuh`): a zeroed u32 arrival counter per CTA, rounded up to 1 KiB, then
/// one f32 tile of partial sums per part.
///
/// ```
/// use ferrocute::gemm::config::{tail_split_workspace_bytes, TailSplit, PERSISTENT_KERNELS};
/// // 4 tiles of 128x128 in 6 parts on 132 CTAs: 1 KiB of counters and 24 x 64 KiB.
/// let split = TailSplit { tiles: 4, splits: 6 };
/// assert_eq!(tail_split_workspace_bytes(&PERSISTENT_KERNELS[2].config, 132, split),
///            1024 + 24 * 65536);
/// ```
pub fn tail_split_workspace_bytes(cfg: &KernelConfig, ctas: u32, split: TailSplit) -> u64 {
    let parts = split.tiles as u64 * split.splits as u64;
    (ctas as u64 * 4).div_ceil(1024) * 1024 + parts * cfg.tile_m as u64 * cfg.tile_n as u64 * 4
}

/// Fast kernels, in order of preference: the Hopper 128x128 tile, then three Hopper 128x256
/// tiles that never come first, as they measured no faster than the weighed cooperative
/// tile ([`PERSISTENT_KERNELS`]): with 2-CTA
/// clusters (TMA multicast of B), and with the staged epilogue (3 stages, or 4 with the
/// staging in two halves); they are there for `FERROCUTE_KERNEL` (BENCHMARKS.md).
pub static FAST_KERNELS: &[KernelConfig] = &[
    sm90::<Sm90_128x128x64S6Pp>(),
    sm90::<Sm90_128x256x64S4C2>(),
    sm90::<Sm90_128x256x64S3St>(),
    sm90::<Sm90_128x256x64S4St2>(),
    sm80::<Sm80_128x256x32S4>(),
    sm80::<Sm80_128x128x32S3>(),
    sm80::<Sm80_64x64x32S3>(),
    sm80::<Sm80_128x128x32S3V4>(),
    sm80::<Sm80_128x128x32S3V1>(),
];

/// The simple fallback kernel (`ferrocute_gemm_simple_*`): any alignment,
/// any `k` including 0; 64x64 output tiles, 256 threads.
pub static SIMPLE_KERNEL: KernelConfig = KernelConfig {
    name: "gemm_simple",
    module: "sm80_gemm",
    tile_m: 64,
    tile_n: 64,
    tile_k: 16,
    threads: 256,
    smem_bytes: 0,
    min_arch: (8, 0),
    align_elems: 1,
    extent_align_elems: 1,
    path: LaunchPath::Params,
    grid: GridKind::Tiles2D,
    cluster_m: 1,
    can_split_tail: false,
};

/// The staging copies (`src/kernels/stage_copy.cuh`, entry points [`stage_copy_entry`])
/// of operands TMA cannot read, or 16-byte stores cannot write, in place
/// ([`super::Staging`]): 256 threads per block, the blocks of one copy striding over its
/// rows, one grid row per copy. Module and launch are the simple kernel's (sm80 module,
/// 256 threads, no shared memory, no cluster, any alignment).
pub static STAGE_COPY_KERNEL: KernelConfig = KernelConfig {
    name: "stage_copy",
    tile_m: 1,
    tile_n: 1,
    tile_k: 1,
    ..SIMPLE_KERNEL
};

/// The entry point of [`STAGE_COPY_KERNEL`] for elements of `elem_bytes` bytes (2 or 4).
///
/// ```
/// assert_eq!(ferrocute::gemm::config::stage_copy_entry(4), "ferrocute_stage_copy_b32");
/// ```
pub fn stage_copy_entry(elem_bytes: u64) -> &'static str {
    if elem_bytes == 4 {
        "ferrocute_stage_copy_b32"
    } else {
        "ferrocute_stage_copy_b16"
    }
}

/// Embedded cubin of a module and the GPU it was built for (`ptxas`), so that GPU loads
/// it without JIT-compiling the PTX (measured: 40 s for the sm_90a module on an H100 with
/// an empty JIT cache).
pub fn embedded_cubin(module: &str) -> Option<(&'static [u8], (i32, i32))> {
    match module {
        "sm80_gemm" => Some((
            include_bytes!(concat!(env!("OUT_DIR"), "/sm80_gemm.sm_90.cubin")),
            (9, 0),
        )),
        "sm90_gemm" => Some((
            include_bytes!(concat!(env!("OUT_DIR"), "/sm90_gemm.sm_90a.cubin")),
            (9, 0),
        )),
        "sm90_splitk" => Some((
            include_bytes!(concat!(env!("OUT_DIR"), "/sm90_splitk.sm_90a.cubin")),
            (9, 0),
        )),
        "sm90_skinny" => Some((
            include_bytes!(concat!(env!("OUT_DIR"), "/sm90_skinny.sm_90.cubin")),
            (9, 0),
        )),
        _ => None,
    }
}

/// Embedded PTX text of a module, by name.
///
/// ```
/// assert!(ferrocute::gemm::config::embedded_ptx("sm80_gemm").is_some());
/// assert!(ferrocute::gemm::config::embedded_ptx("nope").is_none());
/// ```
pub fn embedded_ptx(module: &str) -> Option<&'static str> {
    match module {
        "sm80_gemm" => Some(include_str!(concat!(env!("OUT_DIR"), "/sm80_gemm.ptx"))),
        "sm90_gemm" => Some(include_str!(concat!(env!("OUT_DIR"), "/sm90_gemm.ptx"))),
        "sm90_splitk" => Some(include_str!(concat!(env!("OUT_DIR"), "/sm90_splitk.ptx"))),
        "sm90_skinny" => Some(include_str!(concat!(env!("OUT_DIR"), "/sm90_skinny.ptx"))),
        _ => None,
    }
}

/// Largest `gridDim.x`.
pub const MAX_GRID_X: u64 = i32::MAX as u64;
/// Largest `gridDim.y` and `gridDim.z`.
pub const MAX_GRID_YZ: u64 = 65535;

/// Grid for a problem: `(ceil(m / tile_m), ceil(n / tile_n), batch)`, or for kernels that
/// rasterise their own tiles `(ceil(m / tile_m) * ceil(n / tile_n), 1, batch)`; see
/// [`GridKind`]. `splits` is the cluster size of [`GridKind::SplitK`] kernels (else 1).
///
/// ```
/// use ferrocute::gemm::config::{grid_dims, SIMPLE_KERNEL, SMALL_M_KERNELS};
/// assert_eq!(grid_dims(&SIMPLE_KERNEL, 130, 16, 2, 132, 1).unwrap(), (3, 1, 2));
/// assert_eq!(grid_dims(&SMALL_M_KERNELS[0], 16, 4096, 1, 132, 4).unwrap(), (4, 64, 1));
/// use ferrocute::gemm::config::SKINNY_KERNELS;
/// assert_eq!(grid_dims(&SKINNY_KERNELS[0], 16, 4096, 3, 132, 1).unwrap(), (256, 1, 3));
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
        GridKind::Persistent => {
            let c = cfg.cluster_m.max(1) as u64;
            let units = tm.div_ceil(c) * tn * b;
            (c * units.min((sm_count as u64 / c).max(1)), 1, 1)
        }
        GridKind::SplitK => (splits.max(1) as u64, tm * tn, b),
        GridKind::Skinny => (tn, 1, b),
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

/// Entry-point name: `ferrocute_<cfg>_<am><bm>_<in>_<out>`, `am` in {k,m}, `bm` in {k,n}.
///
/// ```
/// use ferrocute::gemm::config::{kernel_name, SIMPLE_KERNEL};
/// assert_eq!(kernel_name(&SIMPLE_KERNEL, true, false, "bf16", "f32"),
///            "ferrocute_gemm_simple_kn_bf16_f32");
/// ```
pub fn kernel_name(
    cfg: &KernelConfig,
    a_k_major: bool,
    b_k_major: bool,
    input: &str,
    output: &str,
) -> String {
    let am = if a_k_major { 'k' } else { 'm' };
    let bm = if b_k_major { 'k' } else { 'n' };
    format!("ferrocute_{}_{am}{bm}_{input}_{output}", cfg.name)
}

/// Compute capability check; the TMA kernels are sm_90a PTX, which runs on Hopper only.
fn arch_ok(cfg: &KernelConfig, cc: (i32, i32)) -> bool {
    cc >= cfg.min_arch && (!cfg.path.tma() || cc.0 == 9)
}

/// Picks the kernel for a validated plan on a device of compute capability
/// `cc` with `sm_count` multiprocessors.
///
/// Rules: fast kernels need `k > 0`, the architecture and the alignment. For `m <= 16` with
/// a K-major B, `k % 4 == 0` and at most [`SKINNY_MAX_B`] elements of B (any number
/// where rows start on 8 bytes only), a [`SKINNY_KERNELS`] entry wins (the 8-warp one when its CTAs fill every SM, else the
/// 16-warp one). For `m <= 128` the first eligible [`SMALL_M_KERNELS`] entry whose tile
/// holds all of M wins; when the preferred fast tile would fill under half the SMs, the last
/// eligible one. Where the Hopper tiles fill every SM, [`best_persistent`] weighs
/// [`PERSISTENT_KERNELS`]. Otherwise the first eligible kernel's family (its PTX module: the
/// TMA kernels on Hopper, the Ampere-class ones elsewhere) is used; within it the first
/// tile in table order that yields at least one block per SM wins, else the one with the
/// most blocks. Otherwise the simple kernel.
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Layout, MatShape, OperandDesc};
/// use ferrocute::gemm::config::{select, SIMPLE_KERNEL};
/// let d = |r, c, ptr| OperandDesc { shape: MatShape::packed(r, c, Layout::ColMajor), len: r * c, ptr };
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
    if plan.k > 0 {
        let eligible = |c: &&KernelConfig| {
            arch_ok(c, cc)
                && plan.fast_aligned(c.align_elems, c.extent_align_elems)
                && (!c.path.tma() || tma_ok(plan))
                && (c.grid != GridKind::Skinny || skinny_ok(plan, c))
        };
        if let Some(cfg) = forced_kernel().filter(eligible) {
            return Ok(cfg);
        }
        let tiles = |c: &KernelConfig| tile_count(plan, c);
        let mut skinny = SKINNY_KERNELS.iter().filter(eligible);
        if let Some(first) = skinny.next() {
            return Ok(if tiles(first) >= sm_count as u64 {
                first
            } else {
                skinny.next_back().unwrap_or(first)
            });
        }
        let first = FAST_KERNELS.iter().find(eligible);
        // Small M, or under half a wave of the 128x128 tile: small tiles (and, for long K,
        // a K split) instead of idle SMs.
        let mut small_m = SMALL_M_KERNELS.iter().filter(eligible);
        let small = if plan.m <= 128 {
            small_m.find(|c| plan.m as u32 <= c.tile_m)
        } else {
            small_m.next_back()
        };
        if let Some(small) = small {
            let few_tiles = first.is_some_and(|big| 2 * tiles(big) <= sm_count as u64);
            // Its grid puts the tiles of one batch on y and the batches on z.
            let fits = tiles(small) / plan.batch.max(1) as u64 <= MAX_GRID_YZ
                && plan.batch as u64 <= MAX_GRID_YZ;
            if (plan.m <= 128 || few_tiles) && fits {
                return Ok(small);
            }
        }
        if let Some(cfg) = best_persistent(plan, |c| eligible(&c), sm_count) {
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
    if arch_ok(&SIMPLE_KERNEL, cc) {
        Ok(&SIMPLE_KERNEL)
    } else {
        Err(Error::UnsupportedArch {
            kernel: SIMPLE_KERNEL.name.to_string(),
            needed: SIMPLE_KERNEL.min_arch,
            found: cc,
        })
    }
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
/// an M-major A's k rows on 8 bytes), `k` a multiple of 4, the batches within `grid.z`,
/// and at most [`SKINNY_MAX_B`] elements of B where the split-K kernel could read B in
/// place (rows on 16 bytes); any size where it would need a staged copy of B.
fn skinny_ok(plan: &Plan, c: &KernelConfig) -> bool {
    plan.m <= c.tile_m as i32
        && plan.b.k_major
        && plan.k % 4 == 0
        && plan.batch as u64 <= MAX_GRID_YZ
        && (plan.n as u64 * plan.k as u64 * plan.batch as u64 <= SKINNY_MAX_B
            || !plan.b.fast_aligned(8, 1, plan.batch > 1))
}

/// Elements of B (all batches) up to which [`SKINNY_KERNELS`] are used where B's rows start
/// on 16 bytes: 32 Mi (64 MiB of bf16), between the sizes measured on an H100 against the
/// split-K kernel: +5% at 16x4096x4096 (32 MiB of B), +17% at 1x4096x4096, even at
/// 16x1024x4096, −3% at 16x4096x14336 (112 MiB) and 16x8192x8192 (128 MiB). Rows on 8
/// bytes only would cost the split-K kernel a copy of B (8x8192x8196: 0.40 of cuBLAS), so
/// there the register-streaming kernel takes any size.
pub const SKINNY_MAX_B: u64 = 1 << 25;

/// What [`dispatch`] decided for one problem.
///
/// ```
/// # use ferrocute::gemm::config::Dispatch;
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
    /// kernel, or [`KernelConfig::cluster_m`].
    pub cluster: u32,
    /// Whether the kernel's A and B (`plan.a`, `plan.b`: the caller's B and A when
    /// `plan.swapped`) were copied into the handle's workspace with aligned leading
    /// dimensions first, and whether D was written there and copied out to C
    /// ([`super::Staging`]); `dispatch` itself never stages.
    pub staged: [bool; 3],
    /// How the last round's tiles are split along K ([`persistent_k_blocks`]); the
    /// default: not at all.
    pub tail: TailSplit,
}

/// The kernel named by `FERROCUTE_KERNEL` (a [`KernelConfig::name`] from the tables), for
/// tuning; it is used only where it is eligible.
fn forced_kernel() -> Option<&'static KernelConfig> {
    static FORCED: std::sync::OnceLock<Option<&'static KernelConfig>> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| {
        let name = std::env::var("FERROCUTE_KERNEL").ok()?;
        SKINNY_KERNELS
            .iter()
            .chain(SMALL_M_KERNELS)
            .chain(PERSISTENT_KERNELS.iter().map(|w| &w.config))
            .chain(FAST_KERNELS)
            .find(|c| c.name == name)
    })
}

/// The K split `FERROCUTE_SPLIT_K` forces (1, 2, 4 or 8), read once per process.
pub(crate) fn forced_split_k() -> Option<u32> {
    static OVERRIDE: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *OVERRIDE.get_or_init(|| {
        std::env::var("FERROCUTE_SPLIT_K")
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|s| matches!(s, 1 | 2 | 4 | 8))
    })
}

/// The K splits (cluster size) of a [`GridKind::SplitK`] kernel: doubled while the CTAs
/// stay within the SMs (64-row tiles) or half of them (128-row tiles), all the clusters fit
/// on the GPU at once, and every split keeps at least 16 k-tiles, up to 8 (the portable
/// cluster size). A cluster stays within one GPC, so clusters of 4 and 8 cannot use every
/// SM: on an H100 (132 SMs) `cudaOccupancyMaxActiveClusters` gives 30 clusters of 4 and
/// 15 of 8 at these kernels' shared memory, 120 CTAs, and a grid of more clusters runs a
/// second wave at half speed (128x2048x4096: 890 GB/s in 32 clusters of 4, 1290 in 32 of
/// 2); they are counted on 10/11 of the SMs here, and [`super::Gemm`] checks the split
/// against the driver's count for the device at hand. Measured on an H100: splitting
/// costs a cluster launch and a reduction through distributed shared memory; the 64-row
/// tiles, with half the B bytes per CTA, gain from a full wave of CTAs, the 128-row tile
/// only on long K with few tiles (BENCHMARKS.md). `FERROCUTE_SPLIT_K` (1, 2, 4 or 8)
/// overrides it, for tuning.
///
/// ```
/// use ferrocute::gemm::config::{split_k, SMALL_M_KERNELS};
/// let [rows64, m128, rows128] = [&SMALL_M_KERNELS[0], &SMALL_M_KERNELS[1], &SMALL_M_KERNELS[2]];
/// # if std::env::var_os("FERROCUTE_SPLIT_K").is_none() {
/// assert_eq!(split_k(rows64, 16, 4096, 4096, 1, 132), 2);   // 64 tiles x 2 = 128 CTAs
/// assert_eq!(split_k(rows64, 1, 64, 8192, 1, 132), 8);      // one tile, 128 k-tiles
/// assert_eq!(split_k(rows64, 16, 4096, 1024, 1, 132), 1);   // 16 k-tiles: nothing to split
/// assert_eq!(split_k(m128, 128, 8192, 8192, 1, 132), 1);    // 128 tiles
/// assert_eq!(split_k(rows128, 16, 4096, 4096, 1, 132), 2);  // 32 tiles x 2 = 64 CTAs
/// assert_eq!(split_k(rows128, 128, 4096, 4096, 1, 132), 1); // 64 tiles
/// assert_eq!(split_k(m128, 128, 2048, 4096, 1, 132), 2);    // 32 clusters of 4 > 30
/// assert_eq!(split_k(rows64, 64, 1024, 8192, 1, 132), 4);   // 16 clusters of 8 > 15
/// # }
/// ```
pub fn split_k(cfg: &KernelConfig, m: i32, n: i32, k: i32, batch: i32, sm_count: u32) -> u32 {
    if cfg.grid != GridKind::SplitK {
        return 1;
    }
    if let Some(s) = forced_split_k() {
        return s;
    }
    let tiles = (m.max(0) as u64).div_ceil(cfg.tile_m.max(1) as u64)
        * (n.max(0) as u64).div_ceil(cfg.tile_n.max(1) as u64)
        * batch.max(1) as u64;
    let k_tiles = (k.max(0) as u64).div_ceil(cfg.tile_k.max(1) as u64);
    let wave = if cfg.tile_n == 64 { 1 } else { 2 };
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

/// Validation + kernel selection + grid, without touching a device.
///
/// ```
/// use ferrocute::gemm::{GemmDesc, Layout, MatShape, OperandDesc};
/// use ferrocute::gemm::config::dispatch;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let desc = GemmDesc { a: d(256, 64, Layout::RowMajor, 0x10000), b: d(64, 256, Layout::ColMajor, 0x40000),
///     c: d(256, 256, Layout::ColMajor, 0x80000), in_bytes: 2, out_bytes: 2 };
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
    dispatch_plan(super::plan::plan(desc)?, input, output, cc, sm_count)
}

/// [`dispatch`] for a plan already validated by [`super::plan::plan`] (or derived from
/// one, as [`super::Stage::apply`] does).
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Layout, MatShape, OperandDesc};
/// use ferrocute::gemm::config::{dispatch, dispatch_plan};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let desc = GemmDesc { a: d(512, 512, Layout::RowMajor, 0x100000), b: d(512, 512, Layout::ColMajor, 0x200000),
///     c: d(512, 512, Layout::ColMajor, 0x300000), in_bytes: 2, out_bytes: 2 };
/// let p = plan(&desc).unwrap();
/// assert_eq!(dispatch_plan(p, "bf16", "bf16", (9, 0), 132).unwrap(),
///            dispatch(&desc, "bf16", "bf16", (9, 0), 132).unwrap());
/// ```
pub fn dispatch_plan(
    plan: Plan,
    input: &str,
    output: &str,
    cc: (i32, i32),
    sm_count: u32,
) -> Result<Dispatch, Error> {
    if plan.is_noop() {
        return Ok(Dispatch {
            plan,
            config: None,
            kernel: String::new(),
            grid: (0, 0, 0),
            cluster: 1,
            staged: [false; 3],
            tail: TailSplit::default(),
        });
    }
    let cfg = select(&plan, cc, sm_count)?;
    let cluster = match cfg.grid {
        GridKind::SplitK => split_k(cfg, plan.m, plan.n, plan.k, plan.batch, sm_count),
        _ => cfg.cluster_m.max(1),
    };
    let tail = match cfg.grid {
        GridKind::Persistent => persistent_k_blocks(&plan, cfg, sm_count).1,
        _ => TailSplit::default(),
    };
    let grid = if tail.splits > 0 {
        // A CTA per SM, one part each, even where there are fewer tiles than SMs.
        (sm_count.clamp(1, MAX_GRID_X as u32), 1, 1)
    } else {
        grid_dims(cfg, plan.m, plan.n, plan.batch, sm_count, cluster)?
    };
    Ok(Dispatch {
        plan,
        config: Some(cfg),
        kernel: kernel_name(cfg, plan.a.k_major, plan.b.k_major, input, output),
        grid,
        cluster,
        staged: [false; 3],
        tail,
    })
}
