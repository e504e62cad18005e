//! Ampere-class (cp.async + ldmatrix + mma.sync) configurations: `src/kernels/sm80_gemm.cuh`.

use crate::common::{launch_checks, render_header, unwrap, ELEM_BYTES, SMEM_LIMIT};
use ferrocute_layout::algebra::{make_layout, make_layout_right, tile_to_shape};
use ferrocute_layout::render::{cpp_tuple, cpp_type};
use ferrocute_layout::{Operand, Tup, Value};

/// An Ampere-class (cp.async + ldmatrix + mma.sync) GEMM configuration.
///
/// ```
/// use ferrocute_kernels::sm80::{Sm80Config, Sm80_128x128x32S3};
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

/// Vector width of one 128-bit copy, in elements.
const VEC: usize = 16 / ELEM_BYTES;

/// Threads over a `(rows, BK)` K-major tile: each copies `VEC` contiguous K elements;
/// consecutive threads walk K first (row-major thread layout).
const fn copy_k(rows: usize, bk: usize, threads: usize) -> (Value, Value) {
    let per_row = bk / VEC;
    assert!(
        bk.is_multiple_of(VEC),
        "kernel config: BK must be a multiple of the 8-element copy vector"
    );
    assert!(
        threads.is_multiple_of(per_row),
        "kernel config: threads must cover whole K rows of the tile"
    );
    assert!(
        rows.is_multiple_of(threads / per_row),
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
        rows.is_multiple_of(VEC),
        "kernel config: BM/BN must be a multiple of the copy vector"
    );
    assert!(
        threads.is_multiple_of(per_col),
        "kernel config: threads must cover whole M/N columns"
    );
    assert!(
        bk.is_multiple_of(threads / per_col),
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
            type SmemAtomMN = ferrocute_layout::Composition<ferrocute_layout::Swizzle<3, 3, 3>, ferrocute_layout::Layout!((64,8):(1,64))>;
            $(const GMEM_VEC: usize = $v;)?
        }
    };
}

sm80_config!(
    /// 128x256x32, 4 stages, 2x4 warps of 64x64: the large-problem Ampere-class tile, the
    /// fastest on an H100 (measured: see BENCHMARKS.md).
    Sm80_128x256x32S4, "sm80_128x256x32_s4", "Sm80_128x256x32_s4",
    [128, 256, 32], 4, [2, 4],
    ferrocute_layout::Composition<ferrocute_layout::Swizzle<2, 3, 3>, ferrocute_layout::Layout!((8,32):(32,1))>
);
sm80_config!(
    /// 128x128x32, 3 stages, 2x2 warps of 64x64: mid-size problems.
    Sm80_128x128x32S3, "sm80_128x128x32_s3", "Sm80_128x128x32_s3",
    [128, 128, 32], 3, [2, 2],
    ferrocute_layout::Composition<ferrocute_layout::Swizzle<2, 3, 3>, ferrocute_layout::Layout!((8,32):(32,1))>
);
sm80_config!(
    /// 64x64x32, 3 stages, 2x2 warps of 32x32: for small problems (more CTAs).
    Sm80_64x64x32S3, "sm80_64x64x32_s3", "Sm80_64x64x32_s3",
    [64, 64, 32], 3, [2, 2],
    ferrocute_layout::Composition<ferrocute_layout::Swizzle<2, 3, 3>, ferrocute_layout::Layout!((8,32):(32,1))>
);

sm80_config!(
    /// [`Sm80_128x128x32S3`] for operands whose leading dimensions are multiples of 4
    /// elements (8-byte reads).
    Sm80_128x128x32S3V4, "sm80_128x128x32_s3_v4", "Sm80_128x128x32_s3_v4",
    [128, 128, 32], 3, [2, 2],
    ferrocute_layout::Composition<ferrocute_layout::Swizzle<2, 3, 3>, ferrocute_layout::Layout!((8,32):(32,1))>, gmem_vec = 4
);
sm80_config!(
    /// [`Sm80_128x128x32S3`] for any leading dimension and 2-byte aligned pointers (element
    /// reads): the fallback for other unaligned operands. (A 4-byte-read tile was left out:
    /// each read width costs as much PTX as a tile.)
    Sm80_128x128x32S3V1, "sm80_128x128x32_s3_v1", "Sm80_128x128x32_s3_v1",
    [128, 128, 32], 3, [2, 2],
    ferrocute_layout::Composition<ferrocute_layout::Swizzle<2, 3, 3>, ferrocute_layout::Layout!((8,32):(32,1))>, gmem_vec = 1
);

/// Renders every configuration into the header the kernel instantiation units include.
pub fn render_sm80_header() -> String {
    fn entry<C: Sm80Config>() -> (String, String) {
        (render_sm80::<C>(), format!("{}, {}", C::STRUCT, C::NAME))
    }
    fn checks<C: Sm80Config>() -> String {
        let st = C::STRUCT;
        let smem_need = format!("ferrocute::smem_bytes<{st}>(2)");
        launch_checks(
            st,
            &smem_need,
            C::SMEM_BYTES,
            &format!("{st}::Threads"),
            C::THREADS,
        )
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
        &[
            checks::<Sm80_128x256x32S4>(),
            checks::<Sm80_128x128x32S3>(),
            checks::<Sm80_64x64x32S3>(),
            checks::<Sm80_128x128x32S3V4>(),
            checks::<Sm80_128x128x32S3V1>(),
            crate::abi::RepackParams::render_asserts("ferrocute::RepackParams"),
        ],
    )
}
