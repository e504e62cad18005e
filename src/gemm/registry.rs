//! The kernel registry at run time: every kernel configuration the dispatcher can choose,
//! with its launch geometry and requirements, built from the configuration types of
//! `ferrocute_kernels` (so tile sizes, threads and shared memory are the ones the C++ was
//! rendered from), and the embedded artifacts of each kernel module.
//!
//! Entry points are named `ferrocute_<name>_<am><bm>_<in>_<out>`, see [`kernel_name`].

use ferrocute_kernels::registry::{SM80_GEMM, SM90_GEMM, SM90_SKINNY, SM90_SPLITK};
use ferrocute_kernels::sm80::{
    Sm80Config, Sm80_128x128x32S3, Sm80_128x128x32S3V1, Sm80_128x128x32S3V4, Sm80_128x256x32S4,
    Sm80_64x64x32S3,
};
use ferrocute_kernels::sm90_gemm::{
    Sm90Config, Sm90_128x128x64S6Pp, Sm90_128x160x64S5Coop, Sm90_128x192x64S4Pp,
    Sm90_128x256x64S4Coop, Sm90_128x80x64S8Coop, Sm90_128x96x64S7Coop,
};
use ferrocute_kernels::sm90_skinny::{Skinny16W4, Skinny16W8, SkinnyConfig};
use ferrocute_kernels::sm90_splitk::{
    SplitK128x64x64S9, SplitK128x64x64S9Mc2, SplitK64x128x64S9, SplitK64x128x64S9Mc2,
    SplitK64x128x64S9Mc4, SplitK64x64x64S13, SplitK64x64x64S13Mc2, SplitK64x64x64S13Nc4,
    SplitK96x128x64S8Mc2, SplitK96x64x64S11Mc2, SplitKConfig,
};
use ferrocute_kernels::ModuleArtifacts;

include!(concat!(env!("OUT_DIR"), "/kernel_registry.rs"));

/// The embedded artifacts of `module`.
pub fn module_artifacts(module: &str) -> Option<&'static ModuleArtifacts> {
    MODULE_ARTIFACTS.iter().find(|m| m.module == module)
}

/// How a kernel takes its arguments.
///
/// ```
/// use ferrocute::gemm::registry::LaunchPath;
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
/// use ferrocute::gemm::registry::SIMPLE_KERNEL;
/// assert_eq!(SIMPLE_KERNEL.name, "gemm_simple");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelConfig {
    /// The `<cfg>` part of the entry-point names.
    pub name: &'static str,
    /// Kernel module ([`ferrocute_kernels::registry::MODULES`]), whose artifacts are
    /// embedded at build time.
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
    /// CTAs per cluster along M (1, or 2 or 4 when M-adjacent tiles share their B tile by
    /// TMA multicast): [`GridKind::SplitK`] kernels, whose clusters then do not split K.
    pub cluster_m: u32,
    /// CTAs per cluster along N of a [`GridKind::SplitK`] kernel (1, or 2 or 4 when
    /// N-adjacent tiles share their A tile by TMA multicast; such clusters split no K).
    pub cluster_n: u32,
    /// Whether the kernel can split the tiles of a part-empty last round along K
    /// ([`persistent_k_blocks`](super::geometry::persistent_k_blocks)): the persistent
    /// Hopper tiles.
    pub can_split_tail: bool,
    /// Whether the kernel has entry points for an M-major A (all but the split-K tiles of 96
    /// rows of M, whose A tile the MN-major swizzle atom does not tile).
    pub m_major_a: bool,
    /// Whether the kernel has entry points for an N-major B (all but the narrow persistent
    /// tiles, [`NARROW_KERNELS`], whose B tile the MN-major swizzle atom does not tile).
    pub n_major_b: bool,
    /// Whether the kernel writes an N-major D, so that the dispatcher may run a problem as
    /// its transpose on it ([`Plan::transposed`](super::plan::Plan::transposed)); on the
    /// persistent Hopper tiles with the operands [`KernelConfig::takes_n_major_d`] names.
    pub n_major_d: bool,
    /// Which launches with a fused epilogue ([`Plan::fused`](super::plan::Plan::fused))
    /// take entry points of their own, `ferrocute_<name>_epi_...` ([`kernel_name`]), whose
    /// epilogue code stays out of the plain ones (in them it cost the plain launches 4–25%).
    pub fused_entries: FusedEntries,
    /// Whether a gated epilogue's gate/up pairs, staged a chunk of columns at a time, keep
    /// every thread of a warpgroup busy: not on a tile whose chunks are under 32 columns
    /// (the 128x80 tile's 16: 64 pairs a chunk for 128 threads), where fused SwiGLU cost
    /// twice what it costs the 96-wide tile ([`narrow_pick`](super::dispatch::narrow_pick)).
    pub gated_fills_warpgroup: bool,
}

impl KernelConfig {
    /// Whether the kernel writes an N-major D with operands of these orders:
    /// [`Self::n_major_d`], and on the persistent Hopper tiles a K-major B (the narrow tiles
    /// read no other), on a tile of whole boxes a K-major A too (its `_nd` entry points,
    /// [`kernel_name`], which also take a 16-bit D only).
    ///
    /// ```
    /// use ferrocute::gemm::registry::{NARROW_KERNELS, PERSISTENT_KERNELS, SKINNY_KERNELS};
    /// let pp192 = PERSISTENT_KERNELS[1].config;
    /// assert!(pp192.takes_n_major_d(true, true) && !pp192.takes_n_major_d(false, true));
    /// assert!(NARROW_KERNELS[0].takes_n_major_d(false, true));
    /// assert!(!PERSISTENT_KERNELS[2].config.takes_n_major_d(true, true));
    /// assert!(SKINNY_KERNELS[0].takes_n_major_d(false, false));
    /// ```
    pub const fn takes_n_major_d(&self, a_k_major: bool, b_k_major: bool) -> bool {
        self.n_major_d
            && match self.grid {
                GridKind::Persistent if self.may_store_d_by_tma() => a_k_major && b_k_major,
                GridKind::Persistent => b_k_major,
                _ => true,
            }
    }

    /// Whether the kernel may store D by TMA (in 64-column boxes of its tensor map for D):
    /// the persistent Hopper tiles but the narrow ones (`Sm90Config::BOXES`), which take the
    /// general epilogue. The host encodes D's map only for these.
    ///
    /// ```
    /// use ferrocute::gemm::registry::{FAST_KERNELS, NARROW_KERNELS, SIMPLE_KERNEL};
    /// assert!(FAST_KERNELS[0].may_store_d_by_tma());
    /// assert!(!NARROW_KERNELS[0].may_store_d_by_tma() && !SIMPLE_KERNEL.may_store_d_by_tma());
    /// ```
    pub const fn may_store_d_by_tma(&self) -> bool {
        matches!(self.path, LaunchPath::TensorMapsAndD) && self.tile_n.is_multiple_of(64)
    }
}

/// The `_epi` entry points a kernel has ([`KernelConfig::fused_entries`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FusedEntries {
    /// None: the plain entry points apply every epilogue.
    None,
    /// For every launch with a fused epilogue (the register-streaming kernel, whose plain
    /// entry points trap on one).
    Every,
    /// For K-major A and B with D of the input's 16-bit type, the layouts and types of
    /// inference's linear layers (the persistent tiles of whole 64-column boxes: their
    /// epilogue unrolled in registers into the TMA store). Other fused launches take the
    /// plain entry points, which apply the epilogue in a rolled loop.
    KMajor16,
}

/// How a kernel maps its output tiles onto the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridKind {
    /// `(tiles_m, tiles_n, batch)`.
    Tiles2D,
    /// `(tiles_m * tiles_n, 1, batch)`: the kernel rasterises tiles itself (L2 grouping).
    Raster1D,
    /// `(min(tiles_m * tiles_n * batch, SMs), 1, 1)`: persistent blocks walk all tiles.
    Persistent,
    /// `(splits, tiles_n * tiles_m, batch)` in clusters of `(splits, 1, 1)`: the CTAs of a
    /// cluster split K and sum their partial tiles in distributed shared memory. With
    /// `c = cluster_m > 1`: `(c, tiles_n * ceil(tiles_m / c), batch)` in clusters of
    /// `(c, 1, 1)`, M-adjacent tiles sharing B; with `c = cluster_n > 1`:
    /// `(c, ceil(tiles_n / c) * tiles_m, batch)`, N-adjacent tiles sharing A.
    SplitK,
    /// `(min(tiles_n * parts * batch, resident CTAs), 1, 1)` for `m <= tile_m`: persistent
    /// CTAs over tiles of 16 rows of N and a part of K
    /// ([`skinny_parts`](super::geometry::skinny_parts)), their warps splitting the part.
    Skinny,
}

/// The table entry of an Ampere-class configuration type: geometry straight from the
/// type's compile-time-checked constants.
const fn sm80<C: Sm80Config>() -> KernelConfig {
    KernelConfig {
        name: C::NAME,
        module: SM80_GEMM,
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
        cluster_n: 1,
        can_split_tail: false,
        m_major_a: true,
        n_major_b: true,
        n_major_d: false,
        fused_entries: FusedEntries::None,
        gated_fills_warpgroup: true,
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
        cluster_m: 1,
        cluster_n: 1,
        can_split_tail: false,
        m_major_a: true,
        n_major_b: true,
        n_major_d: false,
        fused_entries: FusedEntries::None,
        gated_fills_warpgroup: true,
    }
}

/// The table entry of a Hopper configuration type (persistent TMA + WGMMA kernel).
const fn sm90<C: Sm90Config>() -> KernelConfig {
    KernelConfig {
        path: LaunchPath::TensorMapsAndD,
        can_split_tail: true,
        n_major_b: C::BOXES,
        n_major_d: C::N_MAJOR_D,
        fused_entries: if C::FUSED_ENTRIES {
            FusedEntries::KMajor16
        } else {
            FusedEntries::None
        },
        gated_fills_warpgroup: C::EPI_N >= 32,
        ..hopper(
            C::NAME,
            SM90_GEMM,
            C::TILE,
            C::THREADS,
            C::SMEM_BYTES,
            GridKind::Persistent,
        )
    }
}

/// The table entry of a Hopper small-tile configuration (K split over a cluster).
const fn splitk<C: SplitKConfig>() -> KernelConfig {
    KernelConfig {
        cluster_m: C::CLUSTER_M as u32,
        cluster_n: C::CLUSTER_N as u32,
        m_major_a: C::M_MAJOR_A,
        n_major_d: true,
        ..hopper(
            C::NAME,
            SM90_SPLITK,
            C::TILE,
            C::THREADS,
            C::SMEM_BYTES,
            GridKind::SplitK,
        )
    }
}

/// The table entry of a small-M configuration that streams B through registers: a Hopper
/// entry (16x16 output tiles, 32 k per step) that takes `GemmParams` only, and reads rows
/// that start on 8 bytes in place (in 8-byte halves where they do not start on 16).
const fn skinny<C: SkinnyConfig>() -> KernelConfig {
    KernelConfig {
        path: LaunchPath::Params,
        align_elems: 4,
        n_major_d: true,
        fused_entries: FusedEntries::Every,
        ..hopper(
            C::NAME,
            SM90_SKINNY,
            [16, 16, 32],
            C::THREADS,
            C::SMEM_BYTES,
            GridKind::Skinny,
        )
    }
}

/// Kernels for `m <= 16` with a K-major B and `k % 4 == 0`, which stream B through
/// registers (A K- or M-major, C and D M- or N-major): CTAs of 8 warps, then of 4 (twice
/// as many resident per SM), for weights whose tiles the 8-warp CTAs would run in a
/// second round at most half full but the 4-warp ones in one
/// ([`skinny_pick`](super::dispatch::skinny_pick)).
pub static SKINNY_KERNELS: &[KernelConfig] = &[skinny::<Skinny16W8>(), skinny::<Skinny16W4>()];

/// Kernels for small problems: `m <= 128`, or under half a wave of the 128x128 Hopper tile.
/// First the 64-row tiles, smallest M first: for `m <= 128` the first that holds all of M
/// wins, so each N tile reads B once. Last the 128-row tile, for problems with more M.
pub static SMALL_M_KERNELS: &[KernelConfig] = &[
    splitk::<SplitK64x64x64S13>(),
    splitk::<SplitK128x64x64S9>(),
    splitk::<SplitK64x128x64S9>(),
];

/// Small-tile kernels whose clusters span M instead of K: M-adjacent tiles share each stage
/// of their rows of B by TMA multicast, so B crosses from L2 once per cluster, for problems
/// of a few hundred rows whose 128x128 tiles leave SMs idle. In the order
/// [`multicast_pick`](super::dispatch::multicast_pick) tries them: 2 tiles of 96 rows (all of
/// 128 < m <= 192 in one cluster; 64 and 128 rows of N), 4 of 64, 2 of 128 (all of
/// 128 < m <= 256), 2 of 64 (64x128), 2 of 64 (64x64: twice the tiles of N, for weights
/// whose 64x128 tiles fill under half the SMs).
pub static MULTICAST_SMALL_M_KERNELS: &[KernelConfig] = &[
    splitk::<SplitK96x64x64S11Mc2>(),
    splitk::<SplitK96x128x64S8Mc2>(),
    splitk::<SplitK64x128x64S9Mc4>(),
    splitk::<SplitK128x64x64S9Mc2>(),
    splitk::<SplitK64x128x64S9Mc2>(),
    splitk::<SplitK64x64x64S13Mc2>(),
];

/// Small-tile kernels whose clusters span N: 4 N-adjacent 64x64 tiles share each stage of
/// their 64 rows of A by TMA multicast, for `m <= 64`, where every tile of N reads all of A.
pub static MULTICAST_N_SMALL_M_KERNELS: &[KernelConfig] = &[splitk::<SplitK64x64x64S13Nc4>()];

/// Narrow persistent tiles (128x80, 128x96 and 128x160, cooperative, K-major B only,
/// general epilogue, which also writes an N-major D), narrowest first: for more than 128
/// rows against a weight of a few thousand, whose 128x128 tiles fill under one wave or part
/// of a second, a tile whose tiles fit in one wave puts less work on the busiest SM; past
/// one wave, the 128x160 tile holding 129-160 columns reads the weight once
/// ([`narrow_pick`](super::dispatch::narrow_pick)).
pub static NARROW_KERNELS: &[KernelConfig] = &[
    sm90::<Sm90_128x80x64S8Coop>(),
    sm90::<Sm90_128x96x64S7Coop>(),
    sm90::<Sm90_128x160x64S5Coop>(),
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
    /// ([`persistent_k_blocks`](super::geometry::persistent_k_blocks);
    /// [`Overrides::tail_split`](super::dispatch::Overrides::tail_split) splits on every tile
    /// that can).
    pub split_tail: bool,
    /// Whether, up to 256 rows (or columns), the tile may replace one that wins the weighing
    /// only by its split tail where its own whole rounds weigh no more and it loads no
    /// zero-filled row ([`best_persistent`](super::dispatch::best_persistent)): a tile whose
    /// last tile of M or N starts 64 rows (columns) early where 64 or more lie past them.
    pub whole_rounds: bool,
}

/// The persistent Hopper tiles, weighed against each other for every problem that fills
/// the GPU (first wins a tie); the costs were measured on an H100 (see BENCHMARKS.md,
/// optimisation ledger):
/// - the cooperative 128x256 tile with 4 stages moves 0.75x the L2 bytes per flop of the
///   pingpong 128x128 tile and pays on a power-capped GPU once the main loop is long
///   (`k >= LONG_K`); its consumers hand each tile's D to the TMA and start the next tile;
/// - the pingpong 128x192 tile moves 0.83x the bytes, so it is faster where both tiles put
///   about the same area on each SM, and its tiles fill the waves differently (3072³: 2.9
///   tiles per SM against 4.4 of the 128x128 tile);
/// - the pingpong 128x128 tile, with the finest grain, wins where the others would leave a
///   wave part-empty (2048³: 2 tiles per SM against 2 of 1.5 the size).
pub static PERSISTENT_KERNELS: &[Weighed] = &[
    Weighed {
        config: sm90::<Sm90_128x256x64S4Coop>(),
        cost: 960,
        min_k: LONG_K,
        split_tail: true,
        whole_rounds: true,
    },
    Weighed {
        config: sm90::<Sm90_128x192x64S4Pp>(),
        cost: 970,
        min_k: 1,
        split_tail: false,
        whole_rounds: false,
    },
    Weighed {
        config: sm90::<Sm90_128x128x64S6Pp>(),
        cost: 1000,
        min_k: 1,
        split_tail: true,
        whole_rounds: true,
    },
];

/// The K from which the cooperative 128x256 tile is weighed ([`PERSISTENT_KERNELS`]).
pub const LONG_K: i32 = 4096;

/// Fast kernels, in order of preference: the Hopper 128x128 tile (for problems the weighing
/// of [`PERSISTENT_KERNELS`] leaves to it), then the Ampere-class tiles.
pub static FAST_KERNELS: &[KernelConfig] = &[
    sm90::<Sm90_128x128x64S6Pp>(),
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
    module: SM80_GEMM,
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
    cluster_n: 1,
    can_split_tail: false,
    m_major_a: true,
    n_major_b: true,
    n_major_d: false,
    fused_entries: FusedEntries::None,
    gated_fills_warpgroup: true,
};

/// The repacking copies (`src/kernels/repack.cuh`, entry points [`repack_entry`])
/// of operands TMA cannot read, or 16-byte stores cannot write, in place, and the
/// transposing copy ([`super::Repacking`]): 256 threads per block, the blocks of one copy
/// striding over its rows (transposed: its 64 x 64 tiles, through 8.25 KiB of static shared
/// memory), one grid row per copy. Module and launch are the simple kernel's (sm80 module,
/// 256 threads, no dynamic shared memory, no cluster, any alignment).
pub static REPACK_KERNEL: KernelConfig = KernelConfig {
    name: "repack",
    tile_m: 1,
    tile_n: 1,
    tile_k: 1,
    ..SIMPLE_KERNEL
};

/// The entry point of [`REPACK_KERNEL`] for elements of `elem_bytes` bytes (2 or 4), or,
/// with `transpose`, its transposing copy (2-byte elements).
///
/// ```
/// use ferrocute::gemm::registry::repack_entry;
/// assert_eq!(repack_entry(4, false), "ferrocute_repack_b32");
/// assert_eq!(repack_entry(2, true), "ferrocute_transpose_b16");
/// ```
pub fn repack_entry(elem_bytes: u64, transpose: bool) -> &'static str {
    debug_assert!(
        !transpose || elem_bytes == 2,
        "only 2-byte elements are transposed"
    );
    match (elem_bytes, transpose) {
        (_, true) => "ferrocute_transpose_b16",
        (4, false) => "ferrocute_repack_b32",
        _ => "ferrocute_repack_b16",
    }
}

/// Entry-point name: `ferrocute_<cfg>_<am><bm>_<in>_<out>`, `am` in {k,m}, `bm` in {k,n};
/// `ferrocute_<cfg>_epi_...` for a launch with a fused epilogue where
/// [`KernelConfig::fused_entries`] has one; `ferrocute_<cfg>_nd_...` for an N-major D
/// (`d_n_major`) on a tile of whole boxes ([`KernelConfig::takes_n_major_d`]).
///
/// ```
/// use ferrocute::gemm::registry::{kernel_name, PERSISTENT_KERNELS, SIMPLE_KERNEL, SKINNY_KERNELS};
/// assert_eq!(kernel_name(&SIMPLE_KERNEL, true, false, "bf16", "f32", true, false),
///            "ferrocute_gemm_simple_kn_bf16_f32");
/// assert_eq!(kernel_name(&SKINNY_KERNELS[0], true, true, "bf16", "bf16", true, true),
///            "ferrocute_sm90_skinny16_w8_epi_kk_bf16_bf16");
/// let pp = &PERSISTENT_KERNELS[0].config;
/// assert_eq!(kernel_name(pp, true, true, "bf16", "bf16", true, false),
///            format!("ferrocute_{}_epi_kk_bf16_bf16", pp.name));
/// // An M-major A, or an f32 D: the plain entry point applies the epilogue.
/// assert_eq!(kernel_name(pp, false, true, "bf16", "bf16", true, false),
///            format!("ferrocute_{}_mk_bf16_bf16", pp.name));
/// assert_eq!(kernel_name(pp, true, true, "bf16", "f32", true, false),
///            format!("ferrocute_{}_kk_bf16_f32", pp.name));
/// let pp192 = &PERSISTENT_KERNELS[1].config;
/// assert_eq!(kernel_name(pp192, true, true, "bf16", "bf16", false, true),
///            format!("ferrocute_{}_nd_kk_bf16_bf16", pp192.name));
/// ```
pub fn kernel_name(
    cfg: &KernelConfig,
    a_k_major: bool,
    b_k_major: bool,
    input: &str,
    output: &str,
    fused: bool,
    d_n_major: bool,
) -> String {
    let am = if a_k_major { 'k' } else { 'm' };
    let bm = if b_k_major { 'k' } else { 'n' };
    let has_epi = match cfg.fused_entries {
        FusedEntries::None => false,
        FusedEntries::Every => true,
        FusedEntries::KMajor16 => a_k_major && b_k_major && input == output,
    };
    // An N-major D on a tile of whole boxes always names `_nd` (K-major A and B, a 16-bit D
    // only, as the dispatch plans it): any other would fail to load, never reach the plain
    // entry point, which traps on it.
    let entry = if d_n_major && cfg.may_store_d_by_tma() {
        "_nd"
    } else if fused && has_epi {
        "_epi"
    } else {
        ""
    };
    format!("ferrocute_{}{entry}_{am}{bm}_{input}_{output}", cfg.name)
}

/// Whether a GPU of compute capability `cc` can run `cfg`: its module has a cubin for that
/// GPU or PTX it can JIT-compile, and the GPU meets the configuration's minimum.
///
/// ```
/// use ferrocute::gemm::registry::{runs_on, FAST_KERNELS, SIMPLE_KERNEL};
/// assert!(runs_on(&SIMPLE_KERNEL, (8, 6)) && runs_on(&SIMPLE_KERNEL, (12, 0)));
/// assert!(runs_on(&FAST_KERNELS[0], (9, 0)) && !runs_on(&FAST_KERNELS[0], (10, 0)));
/// assert!(!runs_on(&SIMPLE_KERNEL, (7, 5)));
/// ```
pub fn runs_on(cfg: &KernelConfig, cc: (i32, i32)) -> bool {
    cc >= cfg.min_arch && module_artifacts(cfg.module).is_some_and(|m| m.for_device(cc).is_some())
}

/// Every configuration the dispatch tables can choose (the simple and repacking kernels
/// aside), in the order the dispatcher prefers them.
pub fn all_kernels() -> impl Iterator<Item = &'static KernelConfig> {
    SKINNY_KERNELS
        .iter()
        .chain(SMALL_M_KERNELS)
        .chain(MULTICAST_SMALL_M_KERNELS)
        .chain(MULTICAST_N_SMALL_M_KERNELS)
        .chain(NARROW_KERNELS)
        .chain(PERSISTENT_KERNELS.iter().map(|w| &w.config))
        .chain(FAST_KERNELS)
}
