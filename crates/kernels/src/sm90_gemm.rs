//! Hopper persistent-tile configurations (TMA + WGMMA, warp-specialized):
//! `src/kernels/sm90_gemm.cuh`.

use crate::common::{hopper_entry, launch_checks, render_header, unwrap, ELEM_BYTES, SMEM_LIMIT};
use ferrocute_layout::algebra::tile_to_shape;
use ferrocute_layout::render::{cpp_tuple, cpp_type};
use ferrocute_layout::{Operand, Tup, Value};

/// A Hopper (TMA + WGMMA, warp-specialized, persistent) GEMM configuration.
///
/// ```
/// use ferrocute_kernels::sm90_gemm::{Sm90Config, Sm90_128x256x64S4Coop};
/// assert_eq!(Sm90_128x256x64S4Coop::SMEM_BYTES, 231424);
/// assert_eq!(Sm90_128x256x64S4Coop::SMEM_A.to_string(),
///     "Sw<3,4,3> o 0 o ((8,16),(64,1),(1,4)):((64,512),(1,0),(0,8192))");
/// ```
pub trait Sm90Config {
    /// Name stem of the entry points: `ferrocute_<NAME>_<am><bm>_<in>_<out>`.
    const NAME: &'static str;
    /// The C++ struct name.
    const STRUCT: &'static str;
    /// CTA tile `(BM, BN, BK)`.
    const TILE: [usize; 3];
    /// Pipeline depth.
    const STAGES: usize;
    /// Grouped rasterisation: M-tiles per group.
    const RASTER_GROUP: usize;
    /// Columns per epilogue chunk.
    const EPI_N: usize;
    /// 0: cooperative (both consumer warpgroups on one tile); 1: pingpong (the two
    /// warpgroups take alternate tiles, one's epilogue overlapping the other's main loop).
    const SCHEDULE: usize;
    /// Whether the tile writes an N-major D, so that `y = x·Wᵀ` with the tokens on M can run
    /// as its transpose, the weight on M and the tokens in one tile of N: always on a narrow
    /// tile (not [`Self::BOXES`]; general epilogue, K-major B), and on a tile of whole
    /// 64-column boxes that asks for it, from `_nd` entry points of their own (K-major A and
    /// B, 16-bit D; by TMA), which keep that code out of the plain ones.
    const N_MAJOR_D: bool;
    /// 128-byte-swizzled GMMA atom for K-major operands: `Sw<3,4,3> o (8,64):(64,1)`.
    type SmemAtomK: Operand;
    /// 128-byte-swizzled GMMA atom for MN-major operands: `Sw<3,4,3> o (64,8):(1,64)`.
    type SmemAtomMN: Operand;

    /// Threads per CTA: a producer warpgroup and two consumer warpgroups.
    const THREADS: usize = 384;
    /// Whether D leaves in whole 64-column boxes (by TMA, or the 16-bit fast epilogue): `BN`
    /// a multiple of 64. A narrower tile takes the general epilogue, which also writes an
    /// N-major D, and a K-major B only (the MN-major atom spans 64 rows of B).
    const BOXES: bool = Self::TILE[1] % 64 == 0;
    /// Whether the configuration has `_epi` entry points for fused launches (K-major A and
    /// B, D of the inputs' 16-bit type): the tiles of whole boxes, whose fused epilogue goes
    /// in registers to the TMA store.
    const FUSED_ENTRIES: bool = Self::BOXES;
    /// The numbers `sm90_check` and the shared-memory formula read.
    const SHAPE: Sm90Shape = Sm90Shape {
        tile: Self::TILE,
        stages: Self::STAGES,
        epi_n: Self::EPI_N,
        schedule: Self::SCHEDULE,
    };
    /// Dynamic shared memory, as `sm90_gemm.cuh` lays it out (pipeline, epilogue buffer,
    /// barriers, 1 KiB alignment slack).
    const SMEM_BYTES: usize = Self::SHAPE.smem_bytes();
    /// The `(BM,BK,Stages)` shared memory of a K-major A, checked at compile time.
    const SMEM_A: Value = sm90_check(
        &Self::SHAPE,
        &Self::SmemAtomK::VALUE,
        &Self::SmemAtomMN::VALUE,
    );
}

/// The numbers of an [`Sm90Config`], in one value for the `const` checks.
#[derive(Clone, Copy, Debug)]
pub struct Sm90Shape {
    /// CTA tile `(BM, BN, BK)`.
    pub tile: [usize; 3],
    /// Pipeline depth.
    pub stages: usize,
    /// Columns per f32 epilogue chunk.
    pub epi_n: usize,
    /// 0 cooperative, 1 pingpong.
    pub schedule: usize,
}

impl Sm90Shape {
    /// Dynamic shared memory, as `sm90_gemm.cuh` lays it out.
    pub const fn smem_bytes(&self) -> usize {
        let [bm, bn, bk] = self.tile;
        // Epilogue buffer of each consumer warpgroup: f32 columns, or the TMA epilogue's ring
        // of two 8 KiB boxes, whichever is larger, from a 1024-byte boundary.
        let f32_staging = 2 * self.epi_n * 68 * 4;
        // A tile of no whole 64-column boxes stores D from the f32 staging only.
        let tma_ring = if bn % 64 == 0 {
            2 * 64 * 64 * ELEM_BYTES
        } else {
            0
        };
        let per_wg = if f32_staging / 2 > tma_ring {
            f32_staging / 2
        } else {
            tma_ring
        };
        let staging = 2 * per_wg.div_ceil(1024) * 1024;
        // Full and empty barriers per stage, two pingpong turns.
        let body = self.stages * (bm + bn) * bk * ELEM_BYTES + staging + self.stages * 16 + 16;
        1024 + body.div_ceil(1024) * 1024
    }
}

/// Checks a Hopper configuration: the kernel's tile rules, that both atoms tile the
/// operand tiles (`tile_to_shape`), and the shared-memory budget.
pub const fn sm90_check(shape: &Sm90Shape, atom_k: &Value, atom_mn: &Value) -> Value {
    let [bm, bn, bk] = shape.tile;
    let Sm90Shape {
        stages,
        epi_n,
        schedule,
        ..
    } = *shape;
    assert!(
        schedule <= 1,
        "kernel config: Schedule is 0 (cooperative) or 1 (pingpong)"
    );
    assert!(
        schedule == 1 || bm == 128,
        "kernel config: the cooperative schedule needs BM = 128 (2 consumer warpgroups x 64 rows)"
    );
    assert!(
        schedule != 1 || ((bm == 64 || bm == 128) && (bm * bn <= 128 * 192 || (bm == 64 && bn <= 256))),
        "kernel config: a pingpong warpgroup owns a whole tile: BM = 64 or 128 and at most 128x192 or 64x256 accumulators"
    );
    assert!(
        bn % 16 == 0 && bn >= 16 && bn <= 256,
        "kernel config: BN must be 16..256 in steps of 16 (one WGMMA N)"
    );
    assert!(
        bn % 64 == 0 || schedule == 0,
        "kernel config: a BN of no whole 64-column boxes takes the cooperative schedule (the pingpong one has no register epilogue for it)"
    );
    assert!(
        bk % 64 == 0,
        "kernel config: BK must be a multiple of 64 (one 128-byte swizzle row)"
    );
    assert!(
        epi_n % 16 == 0 && bn % epi_n == 0,
        "kernel config: EpiN must divide BN in multiples of 16 (a chunk's 8 runs of 8 rows by EpiN columns are whole passes of a warpgroup's 128 threads)"
    );
    assert!(
        stages >= 2,
        "kernel config: the TMA pipeline needs at least 2 stages"
    );
    assert!(
        shape.smem_bytes() <= SMEM_LIMIT,
        "kernel config: the pipeline's shared memory exceeds the 227 KiB a CTA may use"
    );
    let a = unwrap(tile_to_shape(atom_k, &Tup::flat(&[bm, bk, stages])));
    unwrap(tile_to_shape(atom_mn, &Tup::flat(&[bm, bk, stages])));
    unwrap(tile_to_shape(atom_k, &Tup::flat(&[bn, bk, stages])));
    // An N-major B only where the MN-major atom tiles it (BOXES: BN a multiple of 64).
    if bn % 64 == 0 {
        unwrap(tile_to_shape(atom_mn, &Tup::flat(&[bn, bk, stages])));
    }
    a
}

/// What a Hopper config header needs: the layouts and swizzles of the GMMA atoms.
pub(crate) const GMMA_INCLUDES: &[&str] = &[
    "cute/layout.hpp",
    "cute/swizzle.hpp",
    "cute/swizzle_layout.hpp",
    "cute/pointer_flagged.hpp",
];

/// A GMMA shared-memory atom as CuTe spells it: the swizzle over a 16-bit
/// `smem_ptr_flag_bits` offset and the inner layout.
pub(crate) fn cpp_gmma_atom(v: &Value) -> String {
    format!(
        "cute::ComposedLayout<cute::Swizzle<{},{},{}>,cute::smem_ptr_flag_bits<16>,{}>",
        v.swizzle.b,
        v.swizzle.m,
        v.swizzle.s,
        cpp_type(&v.inner())
    )
}

/// The C++ `struct` of an [`Sm90Config`], as `src/kernels/sm90_gemm.cuh` documents it.
pub fn render_sm90<C: Sm90Config>() -> String {
    let () = {
        let _ = C::SMEM_A;
    };
    let [bm, bn, bk] = C::TILE;
    let mut s = format!("struct {} {{\n", C::STRUCT);
    s += &format!(
        "  using TileShape = {};\n",
        cpp_tuple(&Tup::flat(&[bm, bn, bk]))
    );
    s += &format!("  static constexpr int Stages = {};\n", C::STAGES);
    s += &format!(
        "  using SmemLayoutAtomK = {};\n",
        cpp_gmma_atom(&C::SmemAtomK::VALUE)
    );
    s += &format!(
        "  using SmemLayoutAtomMN = {};\n",
        cpp_gmma_atom(&C::SmemAtomMN::VALUE)
    );
    s += &format!(
        "  static constexpr int RasterGroup = {};\n",
        C::RASTER_GROUP
    );
    s += &format!("  static constexpr int EpiN = {};\n", C::EPI_N);
    s += &format!("  static constexpr int Schedule = {};\n", C::SCHEDULE);
    s + "};\n"
}

macro_rules! sm90_config {
    (@or $default:literal) => { $default };
    (@or $default:literal $value:literal) => { $value };
    ($(#[$m:meta])* $ty:ident, $name:literal, $cpp:literal, [$bm:literal, $bn:literal, $bk:literal],
     $stages:literal, $schedule:literal $(, raster = $raster:literal)? $(, epi_n = $epi_n:literal)?
     $(, n_major_d = $n_major_d:literal)?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;
        impl Sm90Config for $ty {
            const NAME: &'static str = $name;
            const STRUCT: &'static str = $cpp;
            const TILE: [usize; 3] = [$bm, $bn, $bk];
            const STAGES: usize = $stages;
            const RASTER_GROUP: usize = sm90_config!(@or 8 $($raster)?);
            const EPI_N: usize = sm90_config!(@or 32 $($epi_n)?);
            const SCHEDULE: usize = $schedule;
            const N_MAJOR_D: bool = sm90_config!(@or false $($n_major_d)?) || $bn % 64 != 0;
            type SmemAtomK = ferrocute_layout::Composition<ferrocute_layout::Swizzle<3, 4, 3>, ferrocute_layout::Layout!((8,64):(64,1))>;
            type SmemAtomMN = ferrocute_layout::Composition<ferrocute_layout::Swizzle<3, 4, 3>, ferrocute_layout::Layout!((64,8):(1,64))>;
        }
    };
}

sm90_config!(
    /// 128x128x64, 6 stages, pingpong: the fastest measured Hopper configuration.
    Sm90_128x128x64S6Pp, "sm90_128x128x64_s6_pp", "Sm90Cfg_128x128x64_s6_pp",
    [128, 128, 64], 6, 1
);
sm90_config!(
    /// 128x256x64, 4 stages, cooperative: each consumer warpgroup hands its 64 rows of D to
    /// the TMA through a ring of two 8 KiB boxes, which leaves room for the fourth stage.
    /// Weighed from `k >= 4096` (`PERSISTENT_KERNELS`); raster groups of 16
    /// M-tiles keep its DRAM reads down to cuBLAS's (measured: see BENCHMARKS.md).
    Sm90_128x256x64S4Coop, "sm90_128x256x64_s4_coop", "Sm90Cfg_128x256x64_s4_coop",
    [128, 256, 64], 4, 0, raster = 16
);

sm90_config!(
    /// 128x192x64, 4 stages, pingpong: 0.83x the L2 bytes per flop of the 128x128 tile, and
    /// two thirds as many tiles, which the dispatcher weighs against the others' waves
    /// (`ferrocute::gemm::registry::PERSISTENT_KERNELS`). Its warpgroup holds 192 accumulators per
    /// thread within the 232 registers it is given; ptxas spills a few of the epilogue's
    /// addresses, none in the main loop. Writes an N-major D ([`Sm90Config::N_MAJOR_D`]):
    /// 161-192 tokens of `y = x·Wᵀ` in one tile of N.
    Sm90_128x192x64S4Pp, "sm90_128x192x64_s4_pp", "Sm90Cfg_128x192x64_s4_pp",
    [128, 192, 64], 4, 1, n_major_d = true
);

sm90_config!(
    /// 128x96x64, 7 stages, cooperative: a narrow tile (K-major B, general epilogue, see
    /// [`Sm90Config::BOXES`]) that puts 256 rows of a weight of up to 6,336 rows in one wave
    /// of 132 SMs, where 128x128 tiles leave a quarter or more of them idle (96 tiles at
    /// 6,144 rows).
    Sm90_128x96x64S7Coop, "sm90_128x96x64_s7_coop", "Sm90Cfg_128x96x64_s7_coop",
    [128, 96, 64], 7, 0
);

sm90_config!(
    /// 128x80x64, 8 stages, cooperative: the narrowest tile (K-major B, general epilogue in
    /// chunks of 16 columns: one chunk of 80 would cost two stages), which puts 129-256 rows
    /// of a weight of up to 5,280 rows in one wave of 132 SMs (116 tiles at 4,608 rows, where
    /// the 96-wide tile makes 96 and cuBLAS runs 128x80 tiles), one m64n80k16 WGMMA a k-step.
    Sm90_128x80x64S8Coop, "sm90_128x80x64_s8_coop", "Sm90Cfg_128x80x64_s8_coop",
    [128, 80, 64], 8, 0, epi_n = 16
);

sm90_config!(
    /// 128x160x64, 5 stages, cooperative: a narrow tile (K-major B, general epilogue) that
    /// puts 129-256 rows of a weight of up to 10,560 rows in one wave of 132 SMs (128 tiles
    /// at 10,240 rows, where cuBLAS runs the same tile), one m64n160k16 WGMMA a k-step.
    Sm90_128x160x64S5Coop, "sm90_128x160x64_s5_coop", "Sm90Cfg_128x160x64_s5_coop",
    [128, 160, 64], 5, 0
);

/// Renders the Hopper configurations into the header `sm90_gemm.cu` includes.
pub fn render_sm90_header() -> String {
    /// A configuration's struct and list entry, its launch checks, and its entries in the
    /// lists of those with `_epi` and `_nd` entry points.
    type Parts = ((String, String), String, Option<String>, Option<String>);
    fn parts<C: Sm90Config>() -> Parts {
        let st = C::STRUCT;
        let smem_need = format!("ferrocute::sm90::smem_bytes<{st}>()");
        let checks = launch_checks(
            st,
            &smem_need,
            C::SMEM_BYTES,
            "ferrocute::sm90::kThreads",
            C::THREADS,
        );
        let args = hopper_entry(C::NAME, st);
        let epi = C::FUSED_ENTRIES.then(|| format!(" \\\n  X({args})"));
        let nd = (C::N_MAJOR_D && C::BOXES).then(|| format!(" \\\n  X({args})"));
        ((render_sm90::<C>(), args), checks, epi, nd)
    }
    // The tiles with entry points for both majornesses of B, then those for a K-major B only.
    let (boxed, narrow): (Vec<Parts>, Vec<Parts>) = (
        vec![
            parts::<Sm90_128x128x64S6Pp>(),
            parts::<Sm90_128x256x64S4Coop>(),
            parts::<Sm90_128x192x64S4Pp>(),
        ],
        vec![
            parts::<Sm90_128x80x64S8Coop>(),
            parts::<Sm90_128x96x64S7Coop>(),
            parts::<Sm90_128x160x64S5Coop>(),
        ],
    );
    let (mut entries, mut checks, mut epi_list, mut nd_list, mut b_k_list) = (
        Vec::new(),
        Vec::new(),
        String::new(),
        String::new(),
        String::new(),
    );
    for (entry, check, epi, nd) in boxed {
        entries.push(entry);
        checks.push(check);
        epi_list.extend(epi);
        nd_list.extend(nd);
    }
    for ((body, args), check, _, _) in narrow {
        entries.push((body, String::new()));
        b_k_list += &format!(" \\\n  X({args})");
        checks.push(check);
    }
    render_header(GMMA_INCLUDES, "FERROCUTE_SM90_CONFIGS", &entries, &checks)
        + &format!("\n#define FERROCUTE_SM90_B_K_CONFIGS(X){b_k_list}\n")
        + &format!("\n#define FERROCUTE_SM90_EPI_CONFIGS(X){epi_list}\n")
        + &format!("\n#define FERROCUTE_SM90_ND_CONFIGS(X){nd_list}\n")
}
