//! Register-streaming configurations for `m <= 16`: `src/kernels/sm90_skinny.cuh`.

use crate::common::{hopper_entry, launch_checks, render_header, ELEM_BYTES, SMEM_LIMIT};
use ferrocute_layout::render::cpp_type;
use ferrocute_layout::{SwizzleFn, Tup, Value};

/// A small-M configuration (`src/kernels/sm90_skinny.cuh`) for `M <= 16`: a CTA owns 16 rows
/// of N, its `WARPS` warps split K, and B streams from global memory straight into mma.sync
/// fragments, `STEPS_IN_FLIGHT` steps of 32 k ahead, while each warp copies its chunks of A
/// (K-major or M-major) into shared memory.
///
/// ```
/// use ferrocute_kernels::sm90_skinny::{SkinnyConfig, Skinny16W8};
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
    /// K per shared-memory chunk of A.
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
        steps >= 1 && (steps.is_multiple_of(per_chunk) || per_chunk.is_multiple_of(steps)),
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
/// at bit 8, flips bit 0 of k alike for every row of a phase). Each lane copies rows
/// `k0 + 16 j` of the chunk (`k0 < 16`), whose offsets are its own XOR a constant per `j`.
pub const fn skinny_m_major_chunk(k_chunk: usize) -> Value {
    assert!(
        k_chunk.is_multiple_of(64),
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
    // The kernel copies piece (m0, k0 + 16 j) of a lane to its offset of (m0, k0) XOR that
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
    /// 8 warps (K in 8 slices), 4 steps in flight, chunks of 128 k: faster on every decode
    /// shape of BENCHMARKS.md than 16 warps (one CTA per SM) or 8 steps in flight.
    Skinny16W8, "sm90_skinny16_w8", "SkinnyCfg_16_w8", 8, 4, 128
);

skinny_config!(
    /// 4 warps (K in 4 slices), 4 steps in flight, chunks of 128 k: twice the CTAs an SM
    /// holds, for weights with a few more tiles than the 8-warp CTAs fill at once.
    Skinny16W4, "sm90_skinny16_w4", "SkinnyCfg_16_w4", 4, 4, 128
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
    fn checks<C: SkinnyConfig>() -> String {
        let st = C::STRUCT;
        let smem_need = format!(
            "{st}::Warps * 2 * {st}::ABufElems * 2 + \
             int(cute::cosize(typename {st}::SmemLayoutRed{{}})) * 4"
        );
        launch_checks(
            st,
            &smem_need,
            C::SMEM_BYTES,
            &format!("32 * {st}::Warps"),
            C::THREADS,
        )
    }
    render_header(
        &["cute/layout.hpp"],
        "FERROCUTE_SKINNY_CONFIGS",
        &[entry::<Skinny16W8>(), entry::<Skinny16W4>()],
        &[checks::<Skinny16W8>(), checks::<Skinny16W4>()],
    )
}
