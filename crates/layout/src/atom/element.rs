//! Element types of atoms: marker types carrying a bit size and a C++ name.
//!
//! The layout crate has no numeric dependency; an element here is only what the layout
//! algebra needs of it: how many bits it has (copy atoms state their layouts in bits and
//! recast them to elements) and how CuTe C++ spells it.

mod sealed {
    pub trait Sealed {}
}

/// An element type of an MMA or copy atom (sealed: the types of this module).
///
/// ```
/// use ferrocute_layout::atom::{Element, Bf16, U128};
/// assert_eq!((Bf16::BITS, Bf16::CPP), (16, "cute::bfloat16_t"));
/// assert_eq!(U128::BITS, 128);
/// ```
pub trait Element: sealed::Sealed + Copy + Default + 'static {
    /// Size in bits (CuTe's `sizeof_bits`).
    const BITS: usize;
    /// The CuTe C++ spelling.
    const CPP: &'static str;
}

macro_rules! elements {
    ($($(#[$m:meta])* $name:ident = $bits:literal, $cpp:literal;)+) => {$(
        $(#[$m])*
        #[doc = ""]
        #[doc = "```"]
        #[doc = concat!("use ferrocute_layout::atom::{Element, ", stringify!($name), "};")]
        #[doc = concat!("assert_eq!((", stringify!($name), "::BITS, ", stringify!($name), "::CPP), (", $bits, ", \"", $cpp, "\"));")]
        #[doc = "```"]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Element for $name {
            const BITS: usize = $bits;
            const CPP: &'static str = $cpp;
        }
    )+};
}

elements! {
    /// bfloat16 (`cute::bfloat16_t`).
    Bf16 = 16, "cute::bfloat16_t";
    /// IEEE half (`cute::half_t`).
    F16 = 16, "cute::half_t";
    /// IEEE single (`float`).
    F32 = 32, "float";
    /// IEEE double (`double`).
    F64 = 64, "double";
    /// Signed byte (`int8_t`).
    I8 = 8, "int8_t";
    /// Unsigned byte (`uint8_t`).
    U8 = 8, "uint8_t";
    /// 16-bit unsigned (`uint16_t`).
    U16 = 16, "uint16_t";
    /// 32-bit unsigned (`uint32_t`).
    U32 = 32, "uint32_t";
    /// 64-bit unsigned (`uint64_t`).
    U64 = 64, "uint64_t";
    /// 128-bit unsigned (`cute::uint128_t`).
    U128 = 128, "cute::uint128_t";
}
