//! SM90 warpgroup MMA atoms (`wgmma.mma_async`, CuTe's GMMA) of shape `64xNx16`, for every
//! legal `N` (8 to 256, step 8), with A and B from shared memory (`_SS`) or A from
//! registers (`_RS`), both operands K-major.

use super::element::{Bf16, F16, F32};
use super::mma::MmaAtom;
use super::notation::layout;
use crate::tup::Tup;
use crate::value::Value;

/// CuTe's `GMMA::ABLayout<MN, K>`: an operand in shared memory, which every thread of the
/// warpgroup sees whole: `(T128, (MN,K)) -> (mn,k)` with thread stride 0.
const fn ab_layout(mn: usize, k: usize) -> Value {
    Value::layout(
        Tup::pair(&Tup::leaf(128), &Tup::flat(&[mn, k])),
        Tup::pair(&Tup::leaf(0), &Tup::flat(&[1, mn])),
    )
}

/// CuTe's `GMMA::CLayout_64xN`: the accumulator fragment of a `64xN` tile.
const fn c_layout_64xn(n: usize) -> Value {
    Value::layout(
        Tup::pair(&Tup::flat(&[4, 8, 4]), &Tup::flat(&[2, 2, n / 8])),
        Tup::pair(&Tup::flat(&[128, 1, 16]), &Tup::flat(&[64, 8, 512])),
    )
}

/// Whether `n` is a legal GMMA `N` for 16-bit inputs.
const fn legal_n(n: usize) -> bool {
    n >= 8 && n <= 256 && n.is_multiple_of(8)
}

macro_rules! gmma_atoms {
    ($($(#[$m:meta])* $name:ident: $ab:ty, $cpp:literal, $a_layout:expr;)+) => {$(
        $(#[$m])*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name<const N: usize>;
        impl<const N: usize> $name<N> {
            const LEGAL: () = assert!(legal_n(N), "GMMA: N must be a multiple of 8 in 8..=256");
        }
        impl<const N: usize> MmaAtom for $name<N> {
            type ValA = $ab;
            type ValB = $ab;
            type ValC = F32;
            const SHAPE_MNK: Tup = {
                let () = Self::LEGAL;
                Tup::flat(&[64, N, 16])
            };
            const THR_ID: Value = layout("128:1");
            const LAYOUT_A_TV: Value = $a_layout;
            const LAYOUT_B_TV: Value = ab_layout(N, 16);
            const LAYOUT_C_TV: Value = {
                let () = Self::LEGAL;
                c_layout_64xn(N)
            };
            fn cpp_op() -> String {
                format!(concat!("cute::SM90_64x{}x16_", $cpp,
                    "<cute::GMMA::Major::K,cute::GMMA::Major::K>"), N)
            }
        }
    )+};
}

/// CuTe's `GMMA::ALayout_64x16`: A of 16-bit elements in registers.
const A_REGS_64X16: Value = layout("((4,8,4),(2,2,2)):((128,1,16),(64,8,512))");

gmma_atoms! {
    /// `wgmma.mma_async.m64nNk16.f32.bf16.bf16`, A and B K-major in shared memory
    /// (CuTe's `SM90_64xNx16_F32BF16BF16_SS<Major::K, Major::K>`).
    ///
    /// @pre `N` is a multiple of 8 in `8..=256` (a compile error otherwise).
    ///
    /// ```
    /// use ferrocute_layout::atom::{MmaAtom, SM90_64xNx16_F32BF16BF16_SS as Gmma};
    /// assert_eq!(Gmma::<128>::LAYOUT_B_TV.to_string(), "(128,(128,16)):(0,(1,128))");
    /// assert_eq!(Gmma::<128>::cpp_op(),
    ///     "cute::SM90_64x128x16_F32BF16BF16_SS<cute::GMMA::Major::K,cute::GMMA::Major::K>");
    /// ```
    SM90_64xNx16_F32BF16BF16_SS: Bf16, "F32BF16BF16_SS", ab_layout(64, 16);
    /// `wgmma.mma_async.m64nNk16.f32.bf16.bf16`, A in registers, B K-major in shared memory
    /// (CuTe's `SM90_64xNx16_F32BF16BF16_RS<Major::K, Major::K>`).
    ///
    /// @pre `N` is a multiple of 8 in `8..=256`.
    ///
    /// ```
    /// use ferrocute_layout::atom::{MmaAtom, SM90_64xNx16_F32BF16BF16_RS as Gmma};
    /// assert_eq!(Gmma::<64>::LAYOUT_A_TV.to_string(), "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))");
    /// assert_eq!(Gmma::<64>::LAYOUT_C_TV.to_string(), "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))");
    /// ```
    SM90_64xNx16_F32BF16BF16_RS: Bf16, "F32BF16BF16_RS", A_REGS_64X16;
    /// `wgmma.mma_async.m64nNk16.f32.f16.f16`, A and B K-major in shared memory.
    ///
    /// @pre `N` is a multiple of 8 in `8..=256`.
    ///
    /// ```
    /// use ferrocute_layout::atom::{MmaAtom, SM90_64xNx16_F32F16F16_SS as Gmma};
    /// assert_eq!(Gmma::<8>::SHAPE_MNK.to_string(), "(64,8,16)");
    /// ```
    SM90_64xNx16_F32F16F16_SS: F16, "F32F16F16_SS", ab_layout(64, 16);
    /// `wgmma.mma_async.m64nNk16.f32.f16.f16`, A in registers, B K-major in shared memory.
    ///
    /// @pre `N` is a multiple of 8 in `8..=256`.
    ///
    /// ```
    /// use ferrocute_layout::atom::{MmaAtom, SM90_64xNx16_F32F16F16_RS as Gmma};
    /// assert_eq!(Gmma::<256>::THR_ID.to_string(), "128:1");
    /// ```
    SM90_64xNx16_F32F16F16_RS: F16, "F32F16F16_RS", A_REGS_64X16;
}
