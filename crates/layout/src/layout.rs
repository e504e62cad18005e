//! `Layout<Shape, Stride>`: CuTe's layout as a Rust type.

use crate::error::LayoutError;
use crate::operand::eval::DYNAMIC;
use crate::operand::int_tuple::IntTuple;
use crate::operand::kind::{Join, Kind};
use crate::operand::layout_like::LayoutLike;
use crate::operand::Operand;
use crate::value::Value;

/// A layout `Shape:Stride`: a function from coordinates of `Shape` to offsets.
///
/// Shape and stride are nested tuples of integers, static (typenum's `U4`, or [`crate::C<N>`],
/// as the macros write them) or dynamic (`usize`). A fully static layout is zero-sized and
/// rustc knows its whole algebra; see [`crate::layout!`] and [`crate::Layout!`].
///
/// ```
/// use ferrocute_layout::{layout, LayoutLike};
/// let l = layout!((4,(2,2)):(1,(8,4)));
/// assert_eq!(l.to_string(), "(4,(2,2)):(1,(8,4))");
/// assert_eq!(l.call(5), 9);
/// assert_eq!(core::mem::size_of_val(&l), 0);
/// let m = 6;
/// let d = layout!((4,{m}):(1,4));
/// assert_eq!(d.to_string(), "(4,6):(1,4)");
/// assert_eq!(d.size(), 24);
/// ```
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Layout<S, D> {
    shape: S,
    stride: D,
}

impl<S: IntTuple, D: IntTuple> Layout<S, D> {
    const CONGRUENT: () = assert!(
        S::PROFILE.congruent(&D::PROFILE),
        "Layout: shape and stride are not congruent"
    );

    /// The layout `shape:stride` (shape and stride must have the same tuple structure; this
    /// is checked at compile time).
    pub const fn new(shape: S, stride: D) -> Self {
        let () = Self::CONGRUENT;
        Layout { shape, stride }
    }

    /// The shape.
    pub const fn shape_tuple(&self) -> &S {
        &self.shape
    }

    /// The stride.
    pub const fn stride_tuple(&self) -> &D {
        &self.stride
    }
}

impl<S: IntTuple, D: IntTuple> Operand for Layout<S, D> {
    type Kind = Join<S::Kind, D::Kind>;
    const VALUE: Value = if <Self::Kind as Kind>::STATIC {
        let () = Self::CONGRUENT;
        Value::layout(S::VALUE.shape, D::VALUE.shape)
    } else {
        DYNAMIC
    };
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Value::layout(
            self.shape.try_value()?.shape,
            self.stride.try_value()?.shape,
        ))
    }
}

impl<S: IntTuple, D: IntTuple> LayoutLike for Layout<S, D> {
    fn cpp_type(&self) -> String {
        format!(
            "cute::Layout<{},{}>",
            <S as IntTuple>::cpp(),
            <D as IntTuple>::cpp()
        )
    }
}

impl<S: IntTuple, D: IntTuple> core::fmt::Display for Layout<S, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.value(), f)
    }
}
