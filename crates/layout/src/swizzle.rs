//! `Swizzle<B,M,S>`: CuTe's XOR swizzle as a type, and swizzled (composed) layouts.

use crate::error::LayoutError;
use crate::operand::kind::Static;
use crate::operand::Operand;
use crate::tup::Tup;
use crate::value::{SwizzleFn, Value};

/// CuTe's `Swizzle<B,M,S>`: XOR the `B` bits at `M + max(0,S)` into the bits at
/// `M - min(0,S)`. `composition(Swizzle, layout)` gives the swizzled layout
/// `Sw<B,M,S> o 0 o layout` (CuTe's `ComposedLayout`).
///
/// @pre `|S| >= B` (checked at compile time).
///
/// ```
/// use ferrocute_layout::{composition, layout, LayoutLike, Swizzle};
/// let sw = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
/// assert_eq!(sw.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
/// assert_eq!(sw.call(1), 64 ^ 8);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Swizzle<const B: u32, const M: u32, const S: i32>;

/// The identity layout a bare swizzle composes through (large enough for any offset).
const IDENTITY_EXTENT: usize = 1 << 40;

impl<const B: u32, const M: u32, const S: i32> Swizzle<B, M, S> {
    const FN: SwizzleFn = match crate::operand::eval::swizzle_fn(B, M, S) {
        Ok(f) => f,
        Err(e) => e.raise(),
    };

    /// Applies the swizzle to an offset.
    pub const fn apply(x: usize) -> usize {
        Self::FN.apply(x)
    }
}

impl<const B: u32, const M: u32, const S: i32> Operand for Swizzle<B, M, S> {
    type Kind = Static;
    const VALUE: Value = Value::composed(
        Self::FN,
        0,
        &Value::layout(Tup::leaf(IDENTITY_EXTENT), Tup::leaf(1)),
    );
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::VALUE)
    }
}

impl<const B: u32, const M: u32, const S: i32> core::fmt::Display for Swizzle<B, M, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Sw<{B},{M},{S}>")
    }
}
