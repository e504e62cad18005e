//! GEMM kernel configurations as Rust types, checked by rustc and rendered to CuTe C++.
//!
//! A configuration names its CTA tile, pipeline depth, warp layout and shared-memory
//! swizzle atoms as types; everything the kernel needs beyond that (the `(BM,BK,Stages)`
//! shared-memory layouts from `tile_to_shape`, the copy partitions) is derived here with the
//! layout algebra, in `const`, so an inconsistent configuration is a compile error. `build.rs`
//! compiles this same file and renders each configuration into the C++ `struct` the kernel
//! templates in `src/kernels/` take — no layout is written twice by hand.

use crate::algebra::{make_layout, make_layout_right, tile_to_shape};
use crate::operand::Operand;
use crate::render::{cpp_tuple, cpp_type};
use crate::tup::Tup;
use crate::value::{SwizzleFn, Value};

/// Bytes of one bf16/f16 element.
const ELEM_BYTES: usize = 2;
/// Shared memory an H100 CTA may use (227 KiB).
pub const SMEM_LIMIT: usize = 227 * 1024;

/// An Ampere-class (cp.async + ldmatrix + mma.sync) GEMM configuration.
///
/// ```
/// use ferrocute::kernel_config::{Sm80Config, Sm80_128x128x32S3};
/// let l = Sm80_128x128x32S3::LAYOUTS;
/// assert_eq!(l.smem_a_k.to_string(),
///     "Sw<2,3,3> o 0 o ((8,16),(32,1),(1,3)):((32,256),(1,0),(0,4096))");
/// assert_eq!(Sm80_128x128x32S3::SMEM_BYTES, 49152);
/// ```
pub trait Sm80Config {
    /// The kernel's name stem: entry points are `ferrocute_<NAME>_<am><bm>_<in>_<out>`.
    const NAME: &'static str;
    /// The C++ struct name.
    const STRUCT: &'static str;
    /// CTA tile `(BM, BN, BK)`.
    const TILE: [usize; 3];
    /// Shared-memory pipeline depth (>= 3).
    const STAGES: usize;
    /// Warps over `(M, N)`.
    const WARPS: [usize; 2];
    /// Grouped rasterisation: M-tiles per group.
    const RASTER_GROUP: usize;
    /// Swizzled atom for K-major operands, e.g. `Sw<2,3,3> o (8,32):(32,1)`.
    type SmemAtomK: Operand;
    /// Swizzled atom for M/N-major operands, e.g. `Sw<3,3,3> o (64,8):(1,64)`.
    type SmemAtomMN: Operand;
    /// Elements per global read (8, 4, 2 or 1): A and B need leading dimensions (and batch
    /// strides) that are multiples of it and `2 * GMEM_VEC`-byte aligned pointers. 8 is
    /// 16-byte cp.async; 1 takes any operand.
    const GMEM_VEC: usize = 8;

    /// Threads per CTA.
    const THREADS: usize = 32 * Self::WARPS[0] * Self::WARPS[1];
    /// Dynamic shared memory per CTA, in bytes.
    const SMEM_BYTES: usize =
        (Self::TILE[0] + Self::TILE[1]) * Self::TILE[2] * Self::STAGES * ELEM_BYTES;
    /// Every derived layout, computed and checked at compile time.
    const LAYOUTS: Sm80Layouts = sm80_layouts(
        Self::TILE,
        Self::STAGES,
        Self::WARPS,
        Self::GMEM_VEC,
        &Self::SmemAtomK::VALUE,
        &Self::SmemAtomMN::VALUE,
    );
}

/// The layouts an [`Sm80Config`] derives (see [`sm80_layouts`]).
#[derive(Clone, Copy, Debug)]
pub struct Sm80Layouts {
    /// `(BM,BK,Stages)` shared memory of a K-major A.
    pub smem_a_k: Value,
    /// `(BM,BK,Stages)` shared memory of an M-major A.
    pub smem_a_m: Value,
    /// `(BN,BK,Stages)` shared memory of a K-major B.
    pub smem_b_k: Value,
    /// `(BN,BK,Stages)` shared memory of an N-major B.
    pub smem_b_n: Value,
    /// Copy threads over a K-major `(BM,BK)` tile and their 8-element vectors.
    pub copy_a_k: (Value, Value),
    /// Copy threads over an M-major `(BM,BK)` tile and their vectors.
    pub copy_a_m: (Value, Value),
    /// Copy threads over a K-major `(BN,BK)` tile.
    pub copy_b_k: (Value, Value),
    /// Copy threads over an N-major `(BN,BK)` tile.
    pub copy_b_n: (Value, Value),
    /// Warps over `(M,N,K)`.
    pub mma_atoms: Value,
}

const fn unwrap(r: Result<Value, crate::LayoutError>) -> Value {
    match r {
        Ok(v) => v,
        Err(e) => e.raise(),
    }
}

/// Vector width of one 128-bit copy, in elements.
const VEC: usize = 16 / ELEM_BYTES;

/// Threads over a `(rows, BK)` K-major tile: each copies `VEC` contiguous K elements;
/// consecutive threads walk K first (row-major thread layout).
const fn copy_k(rows: usize, bk: usize, threads: usize) -> (Value, Value) {
    let per_row = bk / VEC;
    assert!(
        bk % VEC == 0,
        "kernel config: BK must be a multiple of the 8-element copy vector"
    );
    assert!(
        threads % per_row == 0,
        "kernel config: threads must cover whole K rows of the tile"
    );
    assert!(
        rows % (threads / per_row) == 0,
        "kernel config: the copy thread layout does not tile the K-major operand"
    );
    (
        make_layout_right(&Tup::flat(&[threads / per_row, per_row])),
        Value::layout(Tup::flat(&[1, VEC]), Tup::flat(&[0, 1])),
    )
}

/// Threads over a `(rows, BK)` MN-major tile: each copies `VEC` contiguous M/N elements.
const fn copy_mn(rows: usize, bk: usize, threads: usize) -> (Value, Value) {
    let per_col = rows / VEC;
    assert!(
        rows % VEC == 0,
        "kernel config: BM/BN must be a multiple of the copy vector"
    );
    assert!(
        threads % per_col == 0,
        "kernel config: threads must cover whole M/N columns"
    );
    assert!(
        bk % (threads / per_col) == 0,
        "kernel config: the copy thread layout does not tile the MN-major operand"
    );
    (
        make_layout(&Tup::flat(&[per_col, threads / per_col])),
        Value::layout(Tup::flat(&[VEC, 1]), Tup::flat(&[1, 0])),
    )
}

/// Derives and checks every layout of an Ampere-class configuration.
///
/// @pre the atoms tile `(BM,BK)`/`(BN,BK)` (checked by `tile_to_shape`), BK is a multiple of
///      16 (one mma.sync k-block), the warps tile the CTA with 32x32 warp tiles, and the
///      shared memory fits in [`SMEM_LIMIT`].
pub const fn sm80_layouts(
    tile: [usize; 3],
    stages: usize,
    warps: [usize; 2],
    gmem_vec: usize,
    atom_k: &Value,
    atom_mn: &Value,
) -> Sm80Layouts {
    let [bm, bn, bk] = tile;
    let threads = 32 * warps[0] * warps[1];
    assert!(
        matches!(gmem_vec, 1 | 2 | 4 | 8),
        "kernel config: GmemVec (elements per global read) must be 8, 4, 2 or 1"
    );
    assert!(
        stages >= 3,
        "kernel config: the multistage pipeline needs at least 3 stages"
    );
    assert!(
        bk % 16 == 0,
        "kernel config: BK must be a multiple of the MMA k-block (16)"
    );
    assert!(
        bm % (32 * warps[0]) == 0 && bn % (32 * warps[1]) == 0,
        "kernel config: the warp layout does not tile the CTA tile"
    );
    assert!(
        (bm + bn) * bk * stages * ELEM_BYTES <= SMEM_LIMIT,
        "kernel config: the pipeline's shared memory exceeds the 227 KiB a CTA may use"
    );
    Sm80Layouts {
        smem_a_k: unwrap(tile_to_shape(atom_k, &Tup::flat(&[bm, bk, stages]))),
        smem_a_m: unwrap(tile_to_shape(atom_mn, &Tup::flat(&[bm, bk, stages]))),
        smem_b_k: unwrap(tile_to_shape(atom_k, &Tup::flat(&[bn, bk, stages]))),
        smem_b_n: unwrap(tile_to_shape(atom_mn, &Tup::flat(&[bn, bk, stages]))),
        copy_a_k: copy_k(bm, bk, threads),
        copy_a_m: copy_mn(bm, bk, threads),
        copy_b_k: copy_k(bn, bk, threads),
        copy_b_n: copy_mn(bn, bk, threads),
        mma_atoms: make_layout(&Tup::flat(&[warps[0], warps[1], 1])),
    }
}

/// The C++ `struct` of an [`Sm80Config`], as `src/kernels/sm80_gemm.cuh` documents it.
pub fn render_sm80<C: Sm80Config>() -> String {
    let l = C::LAYOUTS;
    let [bm, bn, bk] = C::TILE;
    let mut s = format!("struct {} {{\n", C::STRUCT);
    s += &format!(
        "  using TileShape = {};\n",
        cpp_tuple(&Tup::flat(&[bm, bn, bk]))
    );
    s += &format!("  static constexpr int Stages = {};\n", C::STAGES);
    s += &format!("  static constexpr int GmemVec = {};\n", C::GMEM_VEC);
    s += &format!("  static constexpr int Threads = {};\n", C::THREADS);
    s += &format!(
        "  static constexpr int RasterGroup = {};\n",
        C::RASTER_GROUP
    );
    s += &format!("  using MmaAtomLayout = {};\n", cpp_type(&l.mma_atoms));
    s += &format!(
        "  using MmaPermutation = {};\n",
        cpp_tuple(&Tup::flat(&[16 * C::WARPS[0], 16 * C::WARPS[1], 16]))
    );
    for (name, v) in [
        ("SmemLayoutA_K", l.smem_a_k),
        ("SmemLayoutA_M", l.smem_a_m),
        ("SmemLayoutB_K", l.smem_b_k),
        ("SmemLayoutB_N", l.smem_b_n),
    ] {
        s += &format!("  using {name} = {};\n", cpp_type(&v));
    }
    for (name, (thr, val)) in [
        ("A_K", l.copy_a_k),
        ("A_M", l.copy_a_m),
        ("B_K", l.copy_b_k),
        ("B_N", l.copy_b_n),
    ] {
        s += &format!("  using GmemCopyThrLayout{name} = {};\n", cpp_type(&thr));
        s += &format!("  using GmemCopyValLayout{name} = {};\n", cpp_type(&val));
    }
    s + "};\n"
}

macro_rules! sm80_config {
    ($(#[$m:meta])* $ty:ident, $name:literal, $cpp:literal, [$bm:literal, $bn:literal, $bk:literal],
     $stages:literal, [$wm:literal, $wn:literal], $atom_k:ty $(, gmem_vec = $v:literal)?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;
        impl Sm80Config for $ty {
            const NAME: &'static str = $name;
            const STRUCT: &'static str = $cpp;
            const TILE: [usize; 3] = [$bm, $bn, $bk];
            const STAGES: usize = $stages;
            const WARPS: [usize; 2] = [$wm, $wn];
            const RASTER_GROUP: usize = 8;
            type SmemAtomK = $atom_k;
            type SmemAtomMN = crate::Composition<crate::Swizzle<3, 3, 3>, crate::Layout!((64,8):(1,64))>;
            $(const GMEM_VEC: usize = $v;)?
        }
    };
}

sm80_config!(
    /// 128x256x32, 4 stages, 2x4 warps of 64x64: the large-problem Ampere-class tile (fastest
    /// of eight variants measured on an H100, see BENCHMARKS.md).
    Sm80_128x256x32S4, "sm80_128x256x32_s4", "Sm80_128x256x32_s4",
    [128, 256, 32], 4, [2, 4],
    crate::Composition<crate::Swizzle<2, 3, 3>, crate::Layout!((8,32):(32,1))>
);
sm80_config!(
    /// 128x128x32, 3 stages, 2x2 warps of 64x64: mid-size problems.
    Sm80_128x128x32S3, "sm80_128x128x32_s3", "Sm80_128x128x32_s3",
    [128, 128, 32], 3, [2, 2],
    crate::Composition<crate::Swizzle<2, 3, 3>, crate::Layout!((8,32):(32,1))>
);
sm80_config!(
    /// 64x64x32, 3 stages, 2x2 warps of 32x32: for small problems (more CTAs).
    Sm80_64x64x32S3, "sm80_64x64x32_s3", "Sm80_64x64x32_s3",
    [64, 64, 32], 3, [2, 2],
    crate::Composition<crate::Swizzle<2, 3, 3>, crate::Layout!((8,32):(32,1))>
);

sm80_config!(
    /// [`Sm80_128x128x32S3`] for operands whose leading dimensions are multiples of 4
    /// elements (8-byte reads).
    Sm80_128x128x32S3V4, "sm80_128x128x32_s3_v4", "Sm80_128x128x32_s3_v4",
    [128, 128, 32], 3, [2, 2],
    crate::Composition<crate::Swizzle<2, 3, 3>, crate::Layout!((8,32):(32,1))>, gmem_vec = 4
);
sm80_config!(
    /// [`Sm80_128x128x32S3`] for any leading dimension and 2-byte aligned pointers (element
    /// reads): the fallback for other unaligned operands. (A 4-byte-read tile was left out:
    /// each read width costs as much PTX as a tile.)
    Sm80_128x128x32S3V1, "sm80_128x128x32_s3_v1", "Sm80_128x128x32_s3_v1",
    [128, 128, 32], 3, [2, 2],
    crate::Composition<crate::Swizzle<2, 3, 3>, crate::Layout!((8,32):(32,1))>, gmem_vec = 1
);

/// A generated config header: the banner, `includes`, every struct, then
/// `#define <list_macro>(X)` calling `X(<args>)` once per configuration.
fn render_header(includes: &[&str], list_macro: &str, configs: &[(String, String)]) -> String {
    let mut s = String::from(
        "// Generated by ferrocute's build.rs from src/kernel_config.rs. Do not edit.\n#pragma once\n",
    );
    for inc in includes {
        s += &format!("#include <{inc}>\n");
    }
    s += "\n";
    let mut list = format!("\n#define {list_macro}(X)");
    for (body, args) in configs {
        s += body;
        list += &format!(" \\\n  X({args})");
    }
    s + &list + "\n"
}

/// The `X(..)` arguments of a Hopper configuration: its name without `sm90_`, its struct.
fn hopper_entry(name: &str, st: &str) -> String {
    format!("{}, {st}", name.trim_start_matches("sm90_"))
}

/// Renders every configuration into the header the kernel instantiation units include.
pub fn render_sm80_header() -> String {
    fn entry<C: Sm80Config>() -> (String, String) {
        (render_sm80::<C>(), format!("{}, {}", C::STRUCT, C::NAME))
    }
    render_header(
        &["cute/tensor.hpp"],
        "FERROCUTE_SM80_CONFIGS",
        &[
            entry::<Sm80_128x256x32S4>(),
            entry::<Sm80_128x128x32S3>(),
            entry::<Sm80_64x64x32S3>(),
            entry::<Sm80_128x128x32S3V4>(),
            entry::<Sm80_128x128x32S3V1>(),
        ],
    )
}

/// A Hopper (TMA + WGMMA, warp-specialized, persistent) GEMM configuration.
///
/// ```
/// use ferrocute::kernel_config::{Sm90Config, Sm90_128x256x64S4C2};
/// assert_eq!(Sm90_128x256x64S4C2::SMEM_BYTES, 231424);
/// assert_eq!(Sm90_128x256x64S4C2::SMEM_A.to_string(),
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
    /// warpgroups take alternate tiles, one's epilogue overlapping the other's main loop);
    /// 2: cooperative with a staged epilogue (the consumers leave the 16-bit tile in shared
    /// memory and go on with the next tile while spare producer warps store it).
    const SCHEDULE: usize;
    /// Schedule 2 only: the tile goes through the shared-memory staging in this many column
    /// parts (1 or 2); 2 halves the staging, at one wait for the storers per tile.
    const STAGE_PARTS: usize;
    /// CTAs per cluster along M (1 or 2): with 2, M-adjacent tiles share their B tile, each
    /// CTA loading half of it and multicasting it to both.
    const CLUSTER_M: usize;
    /// 128-byte-swizzled GMMA atom for K-major operands: `Sw<3,4,3> o (8,64):(64,1)`.
    type SmemAtomK: Operand;
    /// 128-byte-swizzled GMMA atom for MN-major operands: `Sw<3,4,3> o (64,8):(1,64)`.
    type SmemAtomMN: Operand;

    /// Threads per CTA: a producer warpgroup and two consumer warpgroups.
    const THREADS: usize = 384;
    /// The numbers `sm90_check` and the shared-memory formula read.
    const SHAPE: Sm90Shape = Sm90Shape {
        tile: Self::TILE,
        stages: Self::STAGES,
        epi_n: Self::EPI_N,
        schedule: Self::SCHEDULE,
        stage_parts: Self::STAGE_PARTS,
        cluster_m: Self::CLUSTER_M,
    };
    /// Dynamic shared memory, as `sm90_gemm.cuh` lays it out (pipeline, epilogue staging,
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
    /// 0 cooperative, 1 pingpong, 2 cooperative with a staged epilogue.
    pub schedule: usize,
    /// Column parts of the staged epilogue.
    pub stage_parts: usize,
    /// CTAs per cluster along M.
    pub cluster_m: usize,
}

impl Sm90Shape {
    /// Dynamic shared memory, as `sm90_gemm.cuh` lays it out.
    pub const fn smem_bytes(&self) -> usize {
        let [bm, bn, bk] = self.tile;
        // Epilogue staging: f32 columns, or one part of the 16-bit tile (staged epilogue).
        // Without the staged epilogue each consumer warpgroup's staging also holds the TMA
        // epilogue's ring of two 8 KiB boxes and starts at a 1024-byte boundary.
        let f32_staging = 2 * self.epi_n * 68 * 4;
        const TMA_RING: usize = 2 * 64 * 64 * ELEM_BYTES;
        // 8 consumer warps' slices, each followed by 32 bytes (`kSlicePad` in sm90_gemm.cuh)
        const SLICE_PAD: usize = 32;
        let part = bm * bn * ELEM_BYTES / self.stage_parts + 8 * SLICE_PAD;
        let staging = if self.schedule == 2 && part > f32_staging {
            part
        } else {
            let per_wg = if f32_staging / 2 > TMA_RING {
                f32_staging / 2
            } else {
                TMA_RING
            };
            2 * per_wg.div_ceil(1024) * 1024
        };
        // Full and empty barriers per stage, two pingpong turns, two staged-epilogue barriers.
        let body = self.stages * (bm + bn) * bk * ELEM_BYTES + staging + self.stages * 16 + 32;
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
        stage_parts,
        cluster_m,
        ..
    } = *shape;
    assert!(
        cluster_m == 1 || cluster_m == 2,
        "kernel config: the cluster is 1 or 2 CTAs along M"
    );
    assert!(
        schedule <= 2,
        "kernel config: Schedule is 0 (cooperative), 1 (pingpong) or 2 (cooperative, staged epilogue)"
    );
    assert!(
        stage_parts == 1 || (schedule == 2 && stage_parts == 2 && bn % 32 == 0),
        "kernel config: StageParts is 1, or 2 with the staged epilogue"
    );
    assert!(
        schedule == 1 || bm == 128,
        "kernel config: the cooperative schedules need BM = 128 (2 consumer warpgroups x 64 rows)"
    );
    assert!(
        schedule != 1 || ((bm == 64 || bm == 128) && (bm * bn <= 128 * 192 || (bm == 64 && bn <= 256))),
        "kernel config: a pingpong warpgroup owns a whole tile: BM = 64 or 128 and at most 128x192 or 64x256 accumulators"
    );
    assert!(
        bn % 64 == 0 && bn >= 64 && bn <= 256,
        "kernel config: BN must be 64..256 in steps of 64 (one WGMMA N)"
    );
    assert!(
        bk % 64 == 0,
        "kernel config: BK must be a multiple of 64 (one 128-byte swizzle row)"
    );
    assert!(
        epi_n % 8 == 0 && bn % epi_n == 0,
        "kernel config: EpiN must divide BN in multiples of 8"
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
    unwrap(tile_to_shape(atom_mn, &Tup::flat(&[bn, bk, stages])));
    a
}

/// What a Hopper config header needs: the layouts and swizzles of the GMMA atoms.
const GMMA_INCLUDES: &[&str] = &[
    "cute/layout.hpp",
    "cute/swizzle.hpp",
    "cute/swizzle_layout.hpp",
    "cute/pointer_flagged.hpp",
];

/// A GMMA shared-memory atom as CuTe spells it: the swizzle over a 16-bit
/// `smem_ptr_flag_bits` offset and the inner layout.
fn cpp_gmma_atom(v: &Value) -> String {
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
    s += &format!(
        "  using ClusterShape = {};\n",
        cpp_tuple(&Tup::flat(&[C::CLUSTER_M, 1, 1]))
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
    if C::STAGE_PARTS != 1 {
        s += &format!("  static constexpr int StageParts = {};\n", C::STAGE_PARTS);
    }
    s + "};\n"
}

macro_rules! sm90_config {
    (@or $default:literal) => { $default };
    (@or $default:literal $value:literal) => { $value };
    ($(#[$m:meta])* $ty:ident, $name:literal, $cpp:literal, [$bm:literal, $bn:literal, $bk:literal],
     $stages:literal, $schedule:literal, $cluster_m:literal $(, parts = $parts:literal)?
     $(, raster = $raster:literal)?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;
        impl Sm90Config for $ty {
            const NAME: &'static str = $name;
            const STRUCT: &'static str = $cpp;
            const TILE: [usize; 3] = [$bm, $bn, $bk];
            const STAGES: usize = $stages;
            const RASTER_GROUP: usize = sm90_config!(@or 8 $($raster)?);
            const EPI_N: usize = 32;
            const SCHEDULE: usize = $schedule;
            const CLUSTER_M: usize = $cluster_m;
            const STAGE_PARTS: usize = 1 $(* $parts)?;
            type SmemAtomK = crate::Composition<crate::Swizzle<3, 4, 3>, crate::Layout!((8,64):(64,1))>;
            type SmemAtomMN = crate::Composition<crate::Swizzle<3, 4, 3>, crate::Layout!((64,8):(1,64))>;
        }
    };
}

sm90_config!(
    /// 128x128x64, 6 stages, pingpong: the fastest measured Hopper configuration.
    Sm90_128x128x64S6Pp, "sm90_128x128x64_s6_pp", "Sm90Cfg_128x128x64_s6_pp",
    [128, 128, 64], 6, 1, 1
);
sm90_config!(
    /// 128x256x64, 4 stages, cooperative, clusters of 2 along M sharing B by TMA multicast:
    /// half the L2 bytes per flop of the 128x128 tile, but no faster than the same tile
    /// without a cluster on an H100 (BENCHMARKS.md); reachable with `FERROCUTE_KERNEL`.
    Sm90_128x256x64S4C2, "sm90_128x256x64_s4_coop_c2", "Sm90Cfg_128x256x64_s4_coop_c2",
    [128, 256, 64], 4, 0, 2
);

sm90_config!(
    /// 128x256x64, 4 stages, cooperative, no cluster: each consumer warpgroup hands its 64
    /// rows of D to the TMA through a ring of two 8 KiB boxes. Weighed from `k >= 4096`
    /// (`PERSISTENT_KERNELS`), where it measured 1-2% faster than the 3-stage staged tile;
    /// raster groups of 16 M-tiles read cuBLAS's DRAM bytes and gained about 1% more
    /// (BENCHMARKS.md).
    Sm90_128x256x64S4Coop, "sm90_128x256x64_s4_coop", "Sm90Cfg_128x256x64_s4_coop",
    [128, 256, 64], 4, 0, 1, raster = 16
);

sm90_config!(
    /// 128x192x64, 4 stages, pingpong: 0.83x the L2 bytes per flop of the 128x128 tile, and
    /// two thirds as many tiles, which the dispatcher weighs against the others' waves
    /// ([`crate::gemm::config::PERSISTENT_KERNELS`]). Its warpgroup holds 192 accumulators per
    /// thread within the 232 registers it is given; ptxas spills a few of the epilogue's
    /// addresses, none in the main loop.
    Sm90_128x192x64S4Pp, "sm90_128x192x64_s4_pp", "Sm90Cfg_128x192x64_s4_pp",
    [128, 192, 64], 4, 1, 1
);

sm90_config!(
    /// 128x256x64, 3 stages, cooperative with a staged epilogue (the tile's 64 KiB of 16-bit
    /// output costs the fourth stage): the long-K tile until D went out by TMA, now 1-2%
    /// slower than the 4-stage one; reachable with `FERROCUTE_KERNEL` (BENCHMARKS.md).
    Sm90_128x256x64S3St, "sm90_128x256x64_s3_st", "Sm90Cfg_128x256x64_s3_st",
    [128, 256, 64], 3, 2, 1
);

sm90_config!(
    /// 128x256x64, 4 stages, cooperative with a staged epilogue in two column halves (32 KiB
    /// of staging keeps the fourth stage; the second half waits until the TMA has read the
    /// first): no faster than the 4-stage cooperative tile; reachable with
    /// `FERROCUTE_KERNEL` (BENCHMARKS.md).
    Sm90_128x256x64S4St2, "sm90_128x256x64_s4_st2", "Sm90Cfg_128x256x64_s4_st2",
    [128, 256, 64], 4, 2, 1, parts = 2
);

/// Renders the Hopper configurations into the header `sm90_gemm.cu` includes.
pub fn render_sm90_header() -> String {
    fn entry<C: Sm90Config>() -> (String, String) {
        (render_sm90::<C>(), hopper_entry(C::NAME, C::STRUCT))
    }
    render_header(
        GMMA_INCLUDES,
        "FERROCUTE_SM90_CONFIGS",
        &[
            entry::<Sm90_128x128x64S6Pp>(),
            entry::<Sm90_128x256x64S4C2>(),
            entry::<Sm90_128x256x64S4Coop>(),
            entry::<Sm90_128x192x64S4Pp>(),
            entry::<Sm90_128x256x64S3St>(),
            entry::<Sm90_128x256x64S4St2>(),
        ],
    )
}

/// A Hopper small-M configuration (`src/kernels/sm90_splitk.cuh`): the CTA tile puts N on
/// WGMMA's M (128 rows: two consumer warpgroups x 64; 64 rows: both warpgroups on the same
/// rows, each taking half of every stage's k-blocks) and the small M on WGMMA's N, and splits
/// K over a thread-block cluster whose partial tiles are summed in distributed shared memory.
///
/// ```
/// use ferrocute::kernel_config::{SplitKConfig, SplitK64x128x64S9};
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
    atom_k: &Value,
    atom_mn: &Value,
) -> Value {
    let [tm, tn, bk] = tile;
    assert!(
        tn == 64 || tn == 128,
        "kernel config: split-K TN must be 64 or 128 (consumer warpgroups x 64 rows of N)"
    );
    assert!(
        tm % 64 == 0 && tm >= 64 && tm <= 256,
        "kernel config: split-K TM is WGMMA's N: 64..256 in steps of 64"
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
        splitk_smem_bytes(tile, stages) <= SMEM_LIMIT,
        "kernel config: the pipeline's shared memory exceeds the 227 KiB a CTA may use"
    );
    assert!(
        tn * (tm + 8) * 4 <= stages * (tm + tn) * bk * ELEM_BYTES,
        "kernel config: the (TN, TM+8) f32 partial tile must fit in the pipeline's shared memory"
    );
    let b = unwrap(tile_to_shape(atom_k, &Tup::flat(&[tn, bk, stages])));
    unwrap(tile_to_shape(atom_mn, &Tup::flat(&[tn, bk, stages])));
    unwrap(tile_to_shape(atom_k, &Tup::flat(&[tm, bk, stages])));
    unwrap(tile_to_shape(atom_mn, &Tup::flat(&[tm, bk, stages])));
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
     $stages:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;
        impl SplitKConfig for $ty {
            const NAME: &'static str = $name;
            const STRUCT: &'static str = $cpp;
            const TILE: [usize; 3] = [$tm, $tn, $bk];
            const STAGES: usize = $stages;
            type SmemAtomK = crate::Composition<crate::Swizzle<3, 4, 3>, crate::Layout!((8,64):(64,1))>;
            type SmemAtomMN = crate::Composition<crate::Swizzle<3, 4, 3>, crate::Layout!((64,8):(1,64))>;
        }
    };
}

splitk_config!(
    /// 64 x 128 x 64, 9 stages of 24 KiB (216 KiB of loads in flight per SM): the fastest of
    /// the 64/128 x 128 x 64/128 variants measured on an H100 (BENCHMARKS.md).
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

/// Renders the small-M configurations into the header `sm90_splitk.cu` includes.
pub fn render_splitk_header() -> String {
    fn entry<C: SplitKConfig>() -> (String, String) {
        (render_splitk::<C>(), hopper_entry(C::NAME, C::STRUCT))
    }
    render_header(
        GMMA_INCLUDES,
        "FERROCUTE_SPLITK_CONFIGS",
        &[
            entry::<SplitK64x128x64S9>(),
            entry::<SplitK64x64x64S13>(),
            entry::<SplitK128x64x64S9>(),
        ],
    )
}

/// A small-M configuration (`src/kernels/sm90_skinny.cuh`) for `M <= 16`: a CTA owns 16 rows
/// of N, its `WARPS` warps split K, and B streams from global memory straight into mma.sync
/// fragments, `STEPS_IN_FLIGHT` steps of 32 k ahead, while each warp stages its chunks of A
/// (K-major or M-major) in shared memory.
///
/// ```
/// use ferrocute::kernel_config::{SkinnyConfig, Skinny16W8};
/// assert_eq!(Skinny16W8::SMEM_A.to_string(), "(16,128):(160,1)");
/// // An M-major chunk keeps A's 16 m per k; bits 3-4 of k (and 5) swizzle its 16-byte units.
/// assert_eq!(Skinny16W8::SMEM_AM.to_string(),
///            "Sw<3,3,4> o 0 o (16,(4,2,2,2,2,2)):(1,(16,64,128,512,256,1024))");
/// // Per warp: two chunks of cosize 15 * 160 + 128 = 2528 bf16, a 16 x 20 f32 partial tile.
/// assert_eq!(Skinny16W8::SMEM_BYTES, 8 * (2 * 2528 * 2 + 16 * 20 * 4));
/// ```
pub trait SkinnyConfig {
    /// Name stem of the entry points: `ferrocute_<NAME>_<am>k_<in>_<out>`.
    const NAME: &'static str;
    /// The C++ struct name.
    const STRUCT: &'static str;
    /// Warps per CTA, each reducing one slice of K.
    const WARPS: usize;
    /// Steps of 32 k whose B loads each warp keeps in flight.
    const STEPS_IN_FLIGHT: usize;
    /// K per staged chunk of A.
    const K_CHUNK: usize;

    /// Threads per CTA.
    const THREADS: usize = 32 * Self::WARPS;
    /// `(16 m, K_CHUNK k)` shared memory of one chunk of a K-major A, checked at compile
    /// time.
    const SMEM_A: Value = skinny_check(Self::WARPS, Self::STEPS_IN_FLIGHT, Self::K_CHUNK);
    /// `(16 m, K_CHUNK k)` shared memory of one chunk of an M-major A, checked at compile
    /// time.
    const SMEM_AM: Value = skinny_m_major_chunk(Self::K_CHUNK);
    /// Elements of one chunk buffer: the larger chunk's cosize, rounded to 16 bytes.
    const A_BUF_ELEMS: usize = skinny_buf_elems(&Self::SMEM_A, &Self::SMEM_AM);
    /// `(16 n, 16 m, WARPS)` f32 partial tiles of the warps.
    const SMEM_RED: Value = Value::layout(
        Tup::flat(&[16, 16, Self::WARPS]),
        Tup::flat(&[SKINNY_RED_PITCH, 1, 16 * SKINNY_RED_PITCH]),
    );
    /// Dynamic shared memory: two chunk buffers per warp, then the partial tiles.
    const SMEM_BYTES: usize = skinny_smem_bytes(Self::WARPS, Self::A_BUF_ELEMS);
}

/// Row pitch (floats) of a warp's `(16 n, 16 m)` partial tile.
const SKINNY_RED_PITCH: usize = 20;

const fn skinny_buf_elems(k_major: &Value, m_major: &Value) -> usize {
    let (k, m) = (k_major.cosize(), m_major.cosize());
    (if k > m { k } else { m }).next_multiple_of(16 / ELEM_BYTES)
}

const fn skinny_smem_bytes(warps: usize, buf_elems: usize) -> usize {
    warps * (2 * buf_elems * ELEM_BYTES + 16 * SKINNY_RED_PITCH * 4)
}

/// The `(16, K_CHUNK)` chunk layout of A, after checking a small-M configuration: its row
/// pitch puts rows `g` and `g + 1` (read together by one quarter-warp's 16-byte loads) in
/// opposite halves of the 32 banks, the load ring nests with the chunk, and the shared
/// memory fits.
pub const fn skinny_check(warps: usize, steps: usize, k_chunk: usize) -> Value {
    assert!(
        warps >= 1 && warps <= 32,
        "kernel config: 1 to 32 warps per CTA"
    );
    assert!(
        matches!(k_chunk, 64 | 128 | 256),
        "kernel config: the A chunk must be 64, 128 or 256 k (multiples of 64 whose rows of 8-k pieces a warp copies whole)"
    );
    let per_chunk = k_chunk / 32;
    assert!(
        steps >= 1 && (steps % per_chunk == 0 || per_chunk % steps == 0),
        "kernel config: the steps in flight and the steps of a chunk must divide one another"
    );
    let a = Value::layout(Tup::flat(&[16, k_chunk]), Tup::flat(&[k_chunk + 32, 1]));
    let pitch_bytes = a.eval(1) * ELEM_BYTES; // offset of (m, k) = (1, 0)
    assert!(
        pitch_bytes % 128 == 64,
        "kernel config: the row pitch of the A chunk must be 64 bytes past a multiple of 128"
    );
    assert!(
        skinny_smem_bytes(warps, skinny_buf_elems(&a, &skinny_m_major_chunk(k_chunk)))
            <= SMEM_LIMIT,
        "kernel config: the A chunks and partial tiles exceed the 227 KiB a CTA may use"
    );
    a
}

/// The `(16, K_CHUNK)` chunk layout of an M-major A: A's 16 m of each k stay together (so
/// that cp.async copies 8 m at a time), and its 16-byte units are swizzled so that each
/// 8-lane phase of the kernel's `ldmatrix.trans` (rows k = c + {0, 1, 8, 9, 16, 17, 24, 25}
/// at one half of m: the k permutation of the B fragments) reads 8 distinct bank groups.
/// k's bits 0-1 go to the unit's bits 1-2, bit 3 to bit 7 and bit 4 to bit 9, so that
/// `Sw<3,3,4>` flips the m half with bit 3 and the units' k bit 1 with bit 4 (bit 5 of k,
/// at bit 8, flips bit 0 of k alike for every row of a phase). Each lane stages rows
/// `k0 + 16 j` of the chunk (`k0 < 16`), whose offsets are its own XOR a constant per `j`.
pub const fn skinny_m_major_chunk(k_chunk: usize) -> Value {
    assert!(
        k_chunk % 64 == 0,
        "kernel config: the A chunk must be a multiple of 64 k"
    );
    let layout = Value::layout(
        Tup::tuple(&[Tup::leaf(16), Tup::flat(&[4, 2, 2, 2, 2, k_chunk / 64])]),
        Tup::tuple(&[Tup::leaf(1), Tup::flat(&[16, 64, 128, 512, 256, 1024])]),
    );
    let a = Value::composed(SwizzleFn { b: 3, m: 3, s: 4 }, 0, &layout);
    let mut c = 0;
    while c < k_chunk {
        let mut half = 0;
        while half < 16 {
            let mut seen = 0u32;
            let mut row = 0;
            while row < 8 {
                let k = c + 8 * (row / 2) + row % 2;
                let mut e = 1;
                while e < 8 {
                    assert!(
                        a.eval(half + e + 16 * k) == a.eval(half + 16 * k) + e,
                        "kernel config: the 8 m of an M-major piece must be contiguous"
                    );
                    e += 1;
                }
                seen |= 1 << (a.eval(half + 16 * k) * ELEM_BYTES / 16 % 8);
                row += 1;
            }
            assert!(
                seen == 0xff,
                "kernel config: an ldmatrix phase of the M-major A chunk hits one bank group twice"
            );
            half += 8;
        }
        c += if c % 8 == 6 { 26 } else { 2 };
    }
    // The kernel stages piece (m0, k0 + 16 j) of a lane at its offset of (m0, k0) XOR that
    // of (0, 16 j), a constant per j.
    let mut j = 0;
    while j < k_chunk / 16 {
        let mut i = 0;
        while i < 32 {
            let (m0, k0) = (8 * (i % 2), i / 2);
            assert!(
                a.eval(m0 + 16 * (k0 + 16 * j)) == a.eval(m0 + 16 * k0) ^ a.eval(16 * 16 * j),
                "kernel config: the M-major A chunk must split by XOR into a lane's offset and row 16 j's"
            );
            i += 1;
        }
        j += 1;
    }
    a
}

/// The C++ `struct` of a [`SkinnyConfig`], as `src/kernels/sm90_skinny.cuh` documents it.
pub fn render_skinny<C: SkinnyConfig>() -> String {
    let mut s = format!("struct {} {{\n", C::STRUCT);
    s += &format!("  static constexpr int Warps = {};\n", C::WARPS);
    s += &format!(
        "  static constexpr int StepsInFlight = {};\n",
        C::STEPS_IN_FLIGHT
    );
    s += &format!("  static constexpr int KChunk = {};\n", C::K_CHUNK);
    s += &format!("  using SmemLayoutAK = {};\n", cpp_type(&C::SMEM_A));
    s += &format!("  using SmemLayoutAM = {};\n", cpp_type(&C::SMEM_AM));
    s += &format!("  using SmemLayoutRed = {};\n", cpp_type(&C::SMEM_RED));
    s += &format!("  static constexpr int ABufElems = {};\n", C::A_BUF_ELEMS);
    s + "};\n"
}

macro_rules! skinny_config {
    ($(#[$m:meta])* $ty:ident, $name:literal, $cpp:literal, $warps:literal, $steps:literal,
     $k_chunk:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;
        impl SkinnyConfig for $ty {
            const NAME: &'static str = $name;
            const STRUCT: &'static str = $cpp;
            const WARPS: usize = $warps;
            const STEPS_IN_FLIGHT: usize = $steps;
            const K_CHUNK: usize = $k_chunk;
        }
    };
}

skinny_config!(
    /// 8 warps (K in 8 slices), 4 steps in flight, chunks of 128 k: the fastest measured
    /// configuration once N gives a CTA per SM (16 x 4096 x 4096 on an H100, BENCHMARKS.md).
    Skinny16W8, "sm90_skinny16_w8", "SkinnyCfg_16_w8", 8, 4, 128
);
skinny_config!(
    /// 16 warps: twice the loads in flight per CTA, for N under 16 rows per SM.
    Skinny16W16, "sm90_skinny16_w16", "SkinnyCfg_16_w16", 16, 4, 128
);

/// Renders the small-M register-streaming configurations into the header
/// `sm90_skinny.cu` includes.
pub fn render_skinny_header() -> String {
    fn entry<C: SkinnyConfig>() -> (String, String) {
        let () = {
            let _ = (C::SMEM_A, C::SMEM_AM);
        };
        (render_skinny::<C>(), hopper_entry(C::NAME, C::STRUCT))
    }
    render_header(
        &["cute/layout.hpp"],
        "FERROCUTE_SKINNY_CONFIGS",
        &[entry::<Skinny16W8>(), entry::<Skinny16W16>()],
    )
}
