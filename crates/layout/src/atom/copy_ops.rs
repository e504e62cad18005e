//! The warp-wide shared-memory copies (`ldmatrix`, `stmatrix`) and TMA's traits.

use super::copy::CopyOp;
use super::notation::layout;
use crate::tup::Tup;
use crate::value::Value;

macro_rules! warp_ops {
    ($($(#[$m:meta])* $name:ident: src $src:ident, dst $dst:ident, ref $rf:ident;)+) => {$(
        $(#[$m])*
        #[doc = ""]
        #[doc = "```"]
        #[doc = concat!("use ferrocute_layout::atom::{CopyOp, ", stringify!($name), "};")]
        #[doc = concat!("assert_eq!(", stringify!($name), "::THR_ID.to_string(), \"32:1\");")]
        #[doc = concat!("assert_eq!(", stringify!($name), "::REF_LAYOUT, ", stringify!($name), "::", stringify!($rf), ");")]
        #[doc = "```"]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl CopyOp for $name {
            const THR_ID: Value = layout("32:1");
            const SRC_LAYOUT: Value = layout($src);
            const DST_LAYOUT: Value = layout($dst);
            const REF_LAYOUT: Value = Self::$rf;
            fn cpp_op() -> String {
                concat!("cute::", stringify!($name)).into()
            }
        }
    )+};
}

/// `ldmatrix` sources: 8, 16 or 32 threads each give one 128-bit row address.
const LDSM_SRC_8: &str = "((8,4),128):((128,0),1)";
const LDSM_SRC_16: &str = "((16,2),128):((128,0),1)";
const LDSM_SRC_32: &str = "(32,128):(128,1)";
/// Fragments of `ldmatrix` (non-transposed): each thread holds 32 bits per 8x8 matrix.
const LDSM_N_1: &str = "(32,32):(32,1)";
const LDSM_N_2: &str = "(32,(32,2)):(32,(1,1024))";
const LDSM_N_4: &str = "(32,(32,4)):(32,(1,1024))";
/// Fragments of `ldmatrix.trans`: 16-bit values of the transposed 8x8 matrices.
const LDSM_T_2: &str = "((4,8),(16,2)):((256,16),(1,128))";
const LDSM_T_4: &str = "((4,8),(16,2,2)):((256,16),(1,128,1024))";
const LDSM_T_8: &str = "((4,8),(16,2,4)):((256,16),(1,128,1024))";

warp_ops! {
    /// `ldmatrix.sync.aligned.x1.m8n8.shared.b16`: one 8x8 matrix of 16-bit values.
    SM75_U32x1_LDSM_N: src LDSM_SRC_8, dst LDSM_N_1, ref DST_LAYOUT;
    /// `ldmatrix ... .x2`: two 8x8 matrices.
    SM75_U32x2_LDSM_N: src LDSM_SRC_16, dst LDSM_N_2, ref DST_LAYOUT;
    /// `ldmatrix ... .x4`: four 8x8 matrices.
    ///
    /// ```
    /// use ferrocute_layout::atom::{CopyOp, SM75_U32x4_LDSM_N};
    /// assert_eq!(SM75_U32x4_LDSM_N::THR_ID.to_string(), "32:1");
    /// ```
    SM75_U32x4_LDSM_N: src LDSM_SRC_32, dst LDSM_N_4, ref DST_LAYOUT;
    /// `ldmatrix ... .x2.trans`: two transposed 8x8 matrices.
    SM75_U16x2_LDSM_T: src LDSM_SRC_8, dst LDSM_T_2, ref DST_LAYOUT;
    /// `ldmatrix ... .x4.trans`: four transposed 8x8 matrices.
    SM75_U16x4_LDSM_T: src LDSM_SRC_16, dst LDSM_T_4, ref DST_LAYOUT;
    /// `ldmatrix ... .x8.trans` (two `.x4.trans`): eight transposed 8x8 matrices.
    SM75_U16x8_LDSM_T: src LDSM_SRC_32, dst LDSM_T_8, ref DST_LAYOUT;
    /// `stmatrix.sync.aligned.x1.m8n8.shared.b16`: `ldmatrix .x1` backwards.
    SM90_U32x1_STSM_N: src LDSM_N_1, dst LDSM_SRC_8, ref SRC_LAYOUT;
    /// `stmatrix ... .x2`.
    SM90_U32x2_STSM_N: src LDSM_N_2, dst LDSM_SRC_16, ref SRC_LAYOUT;
    /// `stmatrix ... .x4`.
    ///
    /// ```
    /// use ferrocute_layout::atom::{CopyOp, SM90_U32x4_STSM_N};
    /// assert_eq!(SM90_U32x4_STSM_N::DST_LAYOUT.to_string(), "(32,128):(128,1)");
    /// ```
    SM90_U32x4_STSM_N: src LDSM_N_4, dst LDSM_SRC_32, ref SRC_LAYOUT;
    /// `stmatrix ... .x2.trans`.
    SM90_U16x2_STSM_T: src LDSM_T_2, dst LDSM_SRC_8, ref SRC_LAYOUT;
    /// `stmatrix ... .x4.trans`.
    SM90_U16x4_STSM_T: src LDSM_T_4, dst LDSM_SRC_16, ref SRC_LAYOUT;
    /// `stmatrix ... .x8.trans`.
    SM90_U16x8_STSM_T: src LDSM_T_8, dst LDSM_SRC_32, ref SRC_LAYOUT;
}

macro_rules! tma_ops {
    ($($(#[$m:meta])* $name:ident;)+) => {$(
        $(#[$m])*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name<const BITS: usize>;
        impl<const BITS: usize> CopyOp for $name<BITS> {
            const THR_ID: Value = layout("1:0");
            const SRC_LAYOUT: Value = Value::layout(Tup::flat(&[1, BITS]), Tup::flat(&[0, 1]));
            const DST_LAYOUT: Value = Self::SRC_LAYOUT;
            const REF_LAYOUT: Value = Self::SRC_LAYOUT;
            /// The operation's name only: CuTe's TMA traits type also carries the
            /// descriptor's parameters (`AuxTmaParams`: global strides, box basis,
            /// swizzle), chosen by `make_tma_atom` from a global tensor, which this type
            /// does not model.
            fn cpp_op() -> String {
                concat!("cute::", stringify!($name)).into()
            }
        }
    )+};
}

tma_ops! {
    /// TMA load of a `BITS`-bit box by one thread (CuTe's
    /// `Copy_Traits<SM90_TMA_LOAD, Int<BITS>, AuxParams>`).
    ///
    /// ```
    /// use ferrocute_layout::atom::{CopyOp, SM90_TMA_LOAD};
    /// assert_eq!(SM90_TMA_LOAD::<8192>::SRC_LAYOUT.to_string(), "(1,8192):(0,1)");
    /// assert_eq!(SM90_TMA_LOAD::<8192>::THR_ID.to_string(), "1:0");
    /// ```
    SM90_TMA_LOAD;
    /// TMA store of a `BITS`-bit box by one thread (CuTe's
    /// `Copy_Traits<SM90_TMA_STORE, Int<BITS>, AuxParams>`).
    ///
    /// ```
    /// use ferrocute_layout::atom::{CopyOp, SM90_TMA_STORE};
    /// assert_eq!(SM90_TMA_STORE::<4096>::DST_LAYOUT.to_string(), "(1,4096):(0,1)");
    /// ```
    SM90_TMA_STORE;
}
