//! Hopper small-M configurations that split K over a cluster: `src/kernels/sm90_splitk.cuh`.

use crate::common::{hopper_entry, launch_checks, render_header, unwrap, ELEM_BYTES, SMEM_LIMIT};
use crate::sm90_gemm::{cpp_gmma_atom, GMMA_INCLUDES};
use ferrocute_layout::algebra::tile_to_shape;
use ferrocute_layout::render::cpp_tuple;
use ferrocute_layout::{Operand, Tup, Value};

/// A Hopper small-M configuration (`src/kernels/sm90_splitk.cuh`): the CTA tile puts N on
/// WGMMA's M (128 rows: two consumer warpgroups x 64; 64 rows: both warpgroups on the same
/// rows, each taking half of every stage's k-blocks) and the small M on WGMMA's N, and splits
/// K over a thread-block cluster whose partial tiles are summed in distributed shared memory.
///
/// ```
/// use ferrocute_kernels::sm90_splitk::{SplitKConfig, SplitK64x128x64S9};
/// assert_eq!(SplitK64x128x64S9::SMEM_BYTES, 223232);
/// assert_eq!(SplitK64x128x64S9::SMEM_B.to_string(),
///     "Sw<3,4,3> o 0 o ((8,16),(64,1),(1,9)):((64,512),(1,0),(0,8192))");
/// ```
pub trait SplitKConfig {
    /// Name stem of the entry points: `ferrocute_<NAME>_<am><bm>_<in>_<out>`.
    const NAME: &'static str;
    /// The C++ struct name.
    const STRUCT: &'static str;
    /// CTA tile `(TM, TN, BK)`: M (WGMMA N), N (64 or 128 rows) and K per stage.
    const TILE: [usize; 3];
    /// Pipeline depth.
    const STAGES: usize;
    /// CTAs per cluster along M (1, 2 or 4): M-adjacent tiles that load one band of the B tile
    /// each and multicast it to all, so that B is read from L2 once per cluster instead of
    /// once per tile; such a kernel does not split K.
    const CLUSTER_M: usize = 1;
    /// CTAs per cluster along N (1, 2 or 4; not with `CLUSTER_M > 1`): N-adjacent tiles that
    /// load one band of the A tile each and multicast it to all; no K split either.
    const CLUSTER_N: usize = 1;
    /// Whether the kernel has entry points for an M-major A: where the 64-column MN-major
    /// atom tiles TM (a TM of 96 has K-major A entry points only).
    const M_MAJOR_A: bool = Self::TILE[0].is_multiple_of(64);
    /// 128-byte-swizzled GMMA atom for K-major operands: `Sw<3,4,3> o (8,64):(64,1)`.
    type SmemAtomK: Operand;
    /// 128-byte-swizzled GMMA atom for MN-major operands: `Sw<3,4,3> o (64,8):(1,64)`.
    type SmemAtomMN: Operand;

    /// Threads per CTA: a producer warpgroup and two consumer warpgroups.
    const THREADS: usize = 384;
    /// Dynamic shared memory: the pipeline (which later holds the `(TN, TM + 8)` f32
    /// partial tile), the barriers (full and empty per stage, and the 2-split hand-off's
    /// two) and 1 KiB alignment slack.
    const SMEM_BYTES: usize = splitk_smem_bytes(Self::TILE, Self::STAGES);
    /// The `(TN,BK,Stages)` shared memory of a K-major B, checked at compile time.
    const SMEM_B: Value = splitk_check(
        Self::TILE,
        Self::STAGES,
        Self::CLUSTER_M,
        Self::CLUSTER_N,
        &Self::SmemAtomK::VALUE,
        &Self::SmemAtomMN::VALUE,
    );
}

const fn splitk_smem_bytes(tile: [usize; 3], stages: usize) -> usize {
    let [tm, tn, bk] = tile;
    let body = stages * (tm + tn) * bk * ELEM_BYTES + stages * 16 + 16;
    1024 + body.div_ceil(1024) * 1024
}

/// Checks a small-M configuration: the kernel's tile rules, that both atoms tile both
/// operand tiles, and the shared-memory budget.
pub const fn splitk_check(
    tile: [usize; 3],
    stages: usize,
    cluster_m: usize,
    cluster_n: usize,
    atom_k: &Value,
    atom_mn: &Value,
) -> Value {
    let [tm, tn, bk] = tile;
    assert!(
        tn == 64 || tn == 128,
        "kernel config: split-K TN must be 64 or 128 (consumer warpgroups x 64 rows of N)"
    );
    assert!(
        tm % 32 == 0 && tm >= 64 && tm <= 256,
        "kernel config: split-K TM is WGMMA's N: 64..256 in steps of 64 (of 32 in a cluster)"
    );
    assert!(
        tm % 64 == 0 || cluster_m * cluster_n > 1,
        "kernel config: a K-split tile's TM must be a multiple of 64 (the partial tile's hand-off swizzles 32-byte pieces of its rows)"
    );
    assert!(
        bk % 64 == 0,
        "kernel config: BK must be a multiple of 64 (one 128-byte swizzle row)"
    );
    assert!(
        stages >= 2,
        "kernel config: the TMA pipeline needs at least 2 stages"
    );
    assert!(
        cluster_m == 1 || cluster_m == 2 || cluster_m == 4,
        "kernel config: split-K clusters along M hold 1, 2 or 4 CTAs"
    );
    assert!(
        (tn / cluster_m).is_multiple_of(8),
        "kernel config: each CTA's band of the multicast B tile must hold whole 8-row swizzle atoms"
    );
    assert!(
        cluster_n == 1 || ((cluster_n == 2 || cluster_n == 4) && cluster_m == 1),
        "kernel config: split-K clusters along N hold 1, 2 or 4 CTAs, and not with clusters along M"
    );
    assert!(
        (tm / cluster_n).is_multiple_of(8),
        "kernel config: each CTA's band of the multicast A tile must hold whole 8-row swizzle atoms"
    );
    assert!(
        splitk_smem_bytes(tile, stages) <= SMEM_LIMIT,
        "kernel config: the pipeline's shared memory exceeds the 227 KiB a CTA may use"
    );
    // The (TN, TM+8) f32 partial tile: with 2 K splits the receiving CTA keeps its own in
    // the B stages and takes its partner's, 32 rows a stage, in TN/32 drained A stages.
    assert!(
        tn * (tm + 8) * 4 <= stages * tn * bk * ELEM_BYTES,
        "kernel config: the (TN, TM+8) f32 partial tile must fit in the B stages"
    );
    assert!(
        bk * ELEM_BYTES == 32 * 4 && tn / 32 < stages,
        "kernel config: an A stage must hold 32 rows of the partial tile (BK = 64), and TN/32 stages must drain first"
    );
    let b = unwrap(tile_to_shape(atom_k, &Tup::flat(&[tn, bk, stages])));
    unwrap(tile_to_shape(atom_mn, &Tup::flat(&[tn, bk, stages])));
    unwrap(tile_to_shape(atom_k, &Tup::flat(&[tm, bk, stages])));
    // An M-major A only where the MN-major atom tiles TM (`SplitKConfig::M_MAJOR_A`).
    if tm.is_multiple_of(64) {
        unwrap(tile_to_shape(atom_mn, &Tup::flat(&[tm, bk, stages])));
    }
    b
}

/// The C++ `struct` of a [`SplitKConfig`], as `src/kernels/sm90_splitk.cuh` documents it.
pub fn render_splitk<C: SplitKConfig>() -> String {
    let () = {
        let _ = C::SMEM_B;
    };
    let mut s = format!("struct {} {{\n", C::STRUCT);
    s += &format!("  using TileShape = {};\n", cpp_tuple(&Tup::flat(&C::TILE)));
    s += &format!("  static constexpr int Stages = {};\n", C::STAGES);
    s += &format!("  static constexpr int ClusterM = {};\n", C::CLUSTER_M);
    s += &format!("  static constexpr int ClusterN = {};\n", C::CLUSTER_N);
    s += &format!(
        "  using SmemLayoutAtomK = {};\n",
        cpp_gmma_atom(&C::SmemAtomK::VALUE)
    );
    s += &format!(
        "  using SmemLayoutAtomMN = {};\n",
        cpp_gmma_atom(&C::SmemAtomMN::VALUE)
    );
    s + "};\n"
}

macro_rules! splitk_config {
    ($(#[$m:meta])* $ty:ident, $name:literal, $cpp:literal, [$tm:literal, $tn:literal, $bk:literal],
     $stages:literal $(, cluster_m = $cm:literal)? $(, cluster_n = $cn:literal)?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;
        impl SplitKConfig for $ty {
            const NAME: &'static str = $name;
            const STRUCT: &'static str = $cpp;
            const TILE: [usize; 3] = [$tm, $tn, $bk];
            const STAGES: usize = $stages;
            const CLUSTER_M: usize = 1 $(* $cm)?;
            const CLUSTER_N: usize = 1 $(* $cn)?;
            type SmemAtomK = ferrocute_layout::Composition<ferrocute_layout::Swizzle<3, 4, 3>, ferrocute_layout::Layout!((8,64):(64,1))>;
            type SmemAtomMN = ferrocute_layout::Composition<ferrocute_layout::Swizzle<3, 4, 3>, ferrocute_layout::Layout!((64,8):(1,64))>;
        }
    };
}

splitk_config!(
    /// 64 x 128 x 64, 9 stages of 24 KiB (216 KiB of loads in flight per SM): the fastest
    /// such tile on an H100 (measured: see BENCHMARKS.md).
    SplitK64x128x64S9, "sm90_splitk_64x128x64_s9", "SplitKCfg_64x128x64_s9",
    [64, 128, 64], 9
);

splitk_config!(
    /// 64 x 64 x 64, 13 stages of 16 KiB: twice the CTAs of the 128-row tile over the same N,
    /// for m <= 128 where 64 CTAs of 128 rows leave half the SMs idle.
    SplitK64x64x64S13, "sm90_splitk_64x64x64_s13", "SplitKCfg_64x64x64_s13",
    [64, 64, 64], 13
);

splitk_config!(
    /// 128 x 64 x 64, 9 stages of 24 KiB: all of m <= 128 in one tile, so B is read once, with
    /// a 2-way K split to fill the SMs.
    SplitK128x64x64S9, "sm90_splitk_128x64x64_s9", "SplitKCfg_128x64x64_s9",
    [128, 64, 64], 9
);

splitk_config!(
    /// 64 x 128 x 64, 9 stages, clusters of 2 along M: each CTA loads 64 of the B tile's
    /// 128 rows and multicasts them to both, halving B's reads from L2 for m > 64, where
    /// the 128-row tiles of the persistent kernel leave SMs idle and the plain 64-row tiles
    /// read B once per 64 rows.
    SplitK64x128x64S9Mc2, "sm90_splitk_64x128x64_s9_mc2", "SplitKCfg_64x128x64_s9_mc2",
    [64, 128, 64], 9, cluster_m = 2
);

splitk_config!(
    /// 64 x 128 x 64, 9 stages, clusters of 4 along M (32 rows of B each): B read from L2
    /// once per 256 rows of M.
    SplitK64x128x64S9Mc4, "sm90_splitk_64x128x64_s9_mc4", "SplitKCfg_64x128x64_s9_mc4",
    [64, 128, 64], 9, cluster_m = 4
);

splitk_config!(
    /// 64 x 64 x 64, 13 stages, clusters of 4 along N: each CTA loads 16 of the A tile's 64
    /// rows and multicasts them to all four, so that A crosses from L2 once per 4 tiles of
    /// N for m <= 64, where every tile of N reads all of A.
    SplitK64x64x64S13Nc4, "sm90_splitk_64x64x64_s13_nc4", "SplitKCfg_64x64x64_s13_nc4",
    [64, 64, 64], 13, cluster_n = 4
);

splitk_config!(
    /// 128 x 64 x 64, 9 stages, clusters of 2 along M (32 rows of B each): all of
    /// 128 < m <= 256 in one cluster, so B is read from L2 once, for weights of about 4096
    /// rows, whose 64-row tiles in clusters of 4 do not fit in one wave and in clusters of 2
    /// read B twice.
    SplitK128x64x64S9Mc2, "sm90_splitk_128x64x64_s9_mc2", "SplitKCfg_128x64x64_s9_mc2",
    [128, 64, 64], 9, cluster_m = 2
);

splitk_config!(
    /// 64 x 64 x 64, 13 stages, clusters of 2 along M (32 rows of B each): 64 < m <= 128 in
    /// one cluster, B read from L2 once, no K split and no partial tiles to exchange, for
    /// weights of up to about 4200 rows, whose 64-row tiles then fill one wave (cuBLAS's
    /// tile there too).
    SplitK64x64x64S13Mc2, "sm90_splitk_64x64x64_s13_mc2", "SplitKCfg_64x64x64_s13_mc2",
    [64, 64, 64], 13, cluster_m = 2
);

splitk_config!(
    /// 96 x 64 x 64, 11 stages, clusters of 2 along M (32 rows of B each): 128 < m <= 192 in
    /// one cluster, so B is read once and no MMA column lies past 192 rows (the 128-row tiles
    /// compute 256), for weights of about 3100 to 4200 rows (one wave). A K-major A only.
    SplitK96x64x64S11Mc2, "sm90_splitk_96x64x64_s11_mc2", "SplitKCfg_96x64x64_s11_mc2",
    [96, 64, 64], 11, cluster_m = 2
);

splitk_config!(
    /// 96 x 128 x 64, 8 stages, clusters of 2 along M (64 rows of B each): the same for
    /// weights of about 6300 to 8400 rows, whose 128-row tiles then fill one wave. A K-major
    /// A only.
    SplitK96x128x64S8Mc2, "sm90_splitk_96x128x64_s8_mc2", "SplitKCfg_96x128x64_s8_mc2",
    [96, 128, 64], 8, cluster_m = 2
);

/// Renders the small-M configurations into the header `sm90_splitk.cu` includes: those with
/// entry points for every majorness in `FERROCUTE_SPLITK_CONFIGS`, those for a K-major A only
/// ([`SplitKConfig::M_MAJOR_A`] false) in `FERROCUTE_SPLITK_A_K_CONFIGS`.
pub fn render_splitk_header() -> String {
    /// A configuration's struct, its list entry and its launch checks, and whether it has
    /// M-major A entry points.
    fn parts<C: SplitKConfig>() -> ((String, String), String, bool) {
        let st = C::STRUCT;
        let smem_need = format!("ferrocute::sm90::splitk_smem_bytes<{st}>()");
        let checks = launch_checks(
            st,
            &smem_need,
            C::SMEM_BYTES,
            "ferrocute::sm90::kThreads",
            C::THREADS,
        );
        let entry = (render_splitk::<C>(), hopper_entry(C::NAME, st));
        (entry, checks, C::M_MAJOR_A)
    }
    let all = [
        parts::<SplitK64x128x64S9>(),
        parts::<SplitK64x64x64S13>(),
        parts::<SplitK128x64x64S9>(),
        parts::<SplitK64x128x64S9Mc2>(),
        parts::<SplitK64x128x64S9Mc4>(),
        parts::<SplitK64x64x64S13Nc4>(),
        parts::<SplitK128x64x64S9Mc2>(),
        parts::<SplitK64x64x64S13Mc2>(),
        parts::<SplitK96x64x64S11Mc2>(),
        parts::<SplitK96x128x64S8Mc2>(),
    ];
    let (mut entries, mut checks, mut a_k_list) = (Vec::new(), Vec::new(), String::new());
    for ((body, args), check, m_major_a) in all {
        if m_major_a {
            entries.push((body, args));
        } else {
            entries.push((body, String::new()));
            a_k_list += &format!(" \\\n  X({args})");
        }
        checks.push(check);
    }
    render_header(GMMA_INCLUDES, "FERROCUTE_SPLITK_CONFIGS", &entries, &checks)
        + &format!("\n#define FERROCUTE_SPLITK_A_K_CONFIGS(X){a_k_list}\n")
}
