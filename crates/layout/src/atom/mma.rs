//! MMA atoms: one tensor-core instruction and CuTe's `MMA_Traits` for it, as constants.

use super::element::{Bf16, Element, F16, F32};
use super::notation::layout;
use crate::tup::Tup;
use crate::value::Value;

/// An MMA instruction with CuTe's `MMA_Traits`: the `(M,N,K)` it computes, the threads
/// taking part and, for each operand, the map from `(thread, value)` to a coordinate of the
/// operand's tile (column-major over `(M,K)`, `(N,K)` and `(M,N)`).
///
/// ```
/// use ferrocute_layout::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN as Mma};
/// assert_eq!(Mma::SHAPE_MNK.to_string(), "(16,8,16)");
/// assert_eq!(Mma::LAYOUT_C_TV.to_string(), "((4,8),(2,2)):((32,1),(16,8))");
/// assert_eq!(Mma::cpp_type(), "cute::MMA_Atom<cute::SM80_16x8x16_F32BF16BF16F32_TN>");
/// ```
pub trait MmaAtom: Copy + Default + 'static {
    /// Element type of A (CuTe's `ValTypeA`).
    type ValA: Element;
    /// Element type of B (CuTe's `ValTypeB`).
    type ValB: Element;
    /// Element type of C and D (CuTe's `ValTypeC`).
    type ValC: Element;
    /// The tile one instruction computes, `(M,N,K)` (CuTe's `Shape_MNK`).
    const SHAPE_MNK: Tup;
    /// Logical thread id to thread index (CuTe's `ThrID`).
    const THR_ID: Value;
    /// `(thread, value) -> (m,k)` of A (CuTe's `ALayout`).
    const LAYOUT_A_TV: Value;
    /// `(thread, value) -> (n,k)` of B (CuTe's `BLayout`).
    const LAYOUT_B_TV: Value;
    /// `(thread, value) -> (m,n)` of C (CuTe's `CLayout`).
    const LAYOUT_C_TV: Value;
    /// The C++ operation: `cute::SM80_16x8x16_F32BF16BF16F32_TN`.
    fn cpp_op() -> String;
    /// The C++ atom: `cute::MMA_Atom<op>`.
    fn cpp_type() -> String {
        format!("cute::MMA_Atom<{}>", Self::cpp_op())
    }
}

/// SM80's A layout of `m16n8k16`: `(T32,V8) -> (M16,K16)`.
const SM80_A_16X16: Value = layout("((4,8),(2,2,2)):((32,1),(16,8,128))");
/// SM80's B layout of `m16n8k16`: `(T32,V4) -> (N8,K16)`.
const SM80_B_8X16: Value = layout("((4,8),(2,2)):((16,1),(8,64))");
/// SM80's accumulator layout: `(T32,V4) -> (M16,N8)`.
const SM80_C_16X8: Value = layout("((4,8),(2,2)):((32,1),(16,8))");

macro_rules! sm80_atoms {
    ($($(#[$m:meta])* $name:ident: $a:ty, $b:ty, $c:ty;)+) => {$(
        $(#[$m])*
        #[doc = ""]
        #[doc = "```"]
        #[doc = concat!("use ferrocute_layout::atom::{MmaAtom, ", stringify!($name), "};")]
        #[doc = concat!("assert_eq!(", stringify!($name), "::SHAPE_MNK.to_string(), \"(16,8,16)\");")]
        #[doc = concat!("assert_eq!(", stringify!($name), "::cpp_op(), \"cute::", stringify!($name), "\");")]
        #[doc = "```"]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl MmaAtom for $name {
            type ValA = $a;
            type ValB = $b;
            type ValC = $c;
            const SHAPE_MNK: Tup = Tup::flat(&[16, 8, 16]);
            const THR_ID: Value = layout("32:1");
            const LAYOUT_A_TV: Value = SM80_A_16X16;
            const LAYOUT_B_TV: Value = SM80_B_8X16;
            const LAYOUT_C_TV: Value = SM80_C_16X8;
            fn cpp_op() -> String {
                concat!("cute::", stringify!($name)).into()
            }
        }
    )+};
}

sm80_atoms! {
    /// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`: one warp, D (f32) = A (bf16,
    /// row-major) x B (bf16, column-major) + C.
    SM80_16x8x16_F32BF16BF16F32_TN: Bf16, Bf16, F32;
    /// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`: one warp, f32 += f16 x f16.
    SM80_16x8x16_F32F16F16F32_TN: F16, F16, F32;
    /// `mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16`: one warp, f16 += f16 x f16.
    SM80_16x8x16_F16F16F16F16_TN: F16, F16, F16;
}
