//! The parameter blocks the kernels take by value, mirrored in Rust. The generated
//! headers `static_assert` the C structs' size and every field's offset against these,
//! so a mismatch fails the nvcc build instead of corrupting a launch.

macro_rules! mirror {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, Default, PartialEq)]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl $name {
            /// `static_assert`s of the C struct's size and field offsets (needs the struct
            /// and `<cstddef>`).
            pub fn render_asserts(cpp_name: &str) -> String {
                let mut s = format!(
                    "static_assert(sizeof({cpp_name}) == {}, \"{cpp_name}: size differs from the Rust mirror\");\n",
                    core::mem::size_of::<$name>()
                );
                $(
                    s += &format!(
                        "static_assert(offsetof({cpp_name}, {}) == {}, \"{cpp_name}::{}: offset differs from the Rust mirror\");\n",
                        stringify!($field),
                        core::mem::offset_of!($name, $field),
                        stringify!($field),
                    );
                )*
                s
            }
        }
    };
}

mirror! {
    /// `struct GemmParams` of `src/kernels/gemm_params.h`: the problem every GEMM kernel
    /// takes (device pointers as `u64`, i.e. `CUdeviceptr`).
    GemmParams {
        /// A's base.
        a: u64,
        /// B's base.
        b: u64,
        /// C's base (may be 0 when `beta == 0`).
        c: u64,
        /// D's base.
        d: u64,
        /// Leading dimension of A, in elements.
        lda: i64,
        /// Leading dimension of B.
        ldb: i64,
        /// Leading dimension of C.
        ldc: i64,
        /// Leading dimension of D.
        ldd: i64,
        /// Elements between batches of A (0: broadcast).
        batch_stride_a: i64,
        /// Elements between batches of B.
        batch_stride_b: i64,
        /// Elements between batches of C.
        batch_stride_c: i64,
        /// Elements between batches of D.
        batch_stride_d: i64,
        /// Rows of D.
        m: i32,
        /// Columns of D.
        n: i32,
        /// The reduction extent.
        k: i32,
        /// Batches.
        batch: i32,
        /// Scale of the product.
        alpha: f32,
        /// Scale of C.
        beta: f32,
        /// Partial sums of tiles split along K across CTAs (0 where none is split).
        workspace: u64,
        /// Tiles of the split last round (persistent sm90 tiles).
        tail_tiles: i32,
        /// Parts per split tile.
        tail_splits: i32,
        /// 1: C and D are N-major, `D(m,n) = d[m*ldd + n]` (the small-M kernels only).
        d_n_major: i32,
        /// Activation (`epilogue_ops.cuh`: 0 identity, 1 ReLU, 2 GELU tanh, 3 GELU erf, 4 SiLU,
        /// 5 GELU tanh by `tanh.approx`, 6 SiLU by `tanh.approx`); with `gated`, the SiLU's
        /// form (0 or 6).
        act: i32,
        /// Bias vector's base (0: none).
        bias: u64,
        /// Scale vector's base (0: none).
        scale: u64,
        /// The bias runs along 1: M, 2: N (0: no bias).
        bias_axis: i32,
        /// Bias element type (0 f32, 1 bf16, 2 f16).
        bias_type: i32,
        /// The scale runs along 1: M, 2: N (0: no scale).
        scale_axis: i32,
        /// Scale element type (0 f32, 1 bf16, 2 f16).
        scale_type: i32,
        /// 0: the scale multiplies the product, 1: the activated output.
        scale_at: i32,
        /// SwiGLU pairs along 1: N, 2: M (0: not gated).
        gated: i32,
    }
}

mirror! {
    /// `struct RepackParams` of `src/kernels/repack.cuh`: `count` copies of a
    /// `height x width` block of rows (lengths in elements).
    RepackParams {
        /// Source base.
        src: u64,
        /// Destination base.
        dst: u64,
        /// Source row pitch.
        src_ld: i64,
        /// Destination row pitch.
        dst_ld: i64,
        /// Elements per row.
        width: i64,
        /// Rows per copy.
        height: i64,
        /// Source elements between copies.
        src_step: i64,
        /// Destination elements between copies.
        dst_step: i64,
    }
}

/// The ABI checks every generated header carries.
pub(crate) fn render_abi_asserts() -> String {
    format!(
        "\n// The Rust mirrors' layout (ferrocute_kernels::abi), checked by the compiler.\n#include <cstddef>\n#include \"gemm_params.h\"\n{}",
        GemmParams::render_asserts("GemmParams")
    )
}
