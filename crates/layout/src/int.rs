//! Integers: static ones as zero-sized types, dynamic ones as `usize`.
//!
//! Static integers are typenum's unsigned types (`U4`, `U8192`) or [`C<N>`] (what the
//! `layout!` macros write for a literal of any size, as CuTe writes `C<N>`/`_N`); a `usize`
//! is a run-time integer (CuTe's `int`). Static op static stays static; anything op dynamic
//! is a value.

use crate::error::LayoutError;
use crate::operand::kind::{Dynamic, Static};
use crate::operand::Operand;
use crate::tup::Tup;
use crate::value::Value;
use typenum::{Bit, UInt, UTerm, Unsigned};

/// A static integer `N` (CuTe's `C<N>`), zero-sized.
///
/// ```
/// use ferrocute_layout::{C, Int};
/// assert_eq!(C::<8192>.get(), 8192);
/// assert_eq!(core::mem::size_of::<C<8192>>(), 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct C<const N: usize>;

/// CuTe's underscore `_`: a free coordinate in a slice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Free;

/// An integer leaf of a shape, stride or coordinate: static or dynamic.
pub trait Int: Operand {
    /// The integer's C++ spelling: `cute::C<4>` or `int`.
    fn cpp() -> String;
    /// The integer.
    fn get(&self) -> usize {
        self.value().shape.value()
    }
}

impl<const N: usize> Operand for C<N> {
    type Kind = Static;
    const VALUE: Value = Value::tuple(Tup::leaf(N));
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::VALUE)
    }
}

impl<const N: usize> Int for C<N> {
    fn cpp() -> String {
        format!("cute::C<{N}>")
    }
}

impl Operand for UTerm {
    type Kind = Static;
    const VALUE: Value = Value::tuple(Tup::leaf(0));
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::VALUE)
    }
}

impl Int for UTerm {
    fn cpp() -> String {
        "cute::C<0>".into()
    }
}

impl<U: Unsigned, B: Bit> Operand for UInt<U, B> {
    type Kind = Static;
    const VALUE: Value = Value::tuple(Tup::leaf(<Self as Unsigned>::USIZE));
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::VALUE)
    }
}

impl<U: Unsigned, B: Bit> Int for UInt<U, B> {
    fn cpp() -> String {
        format!("cute::C<{}>", <Self as Unsigned>::USIZE)
    }
}

impl Operand for usize {
    type Kind = Dynamic;
    const VALUE: Value = crate::operand::eval::DYNAMIC;
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Value::tuple(Tup::leaf(*self)))
    }
}

impl Int for usize {
    fn cpp() -> String {
        "int".into()
    }
}

impl Operand for Free {
    type Kind = Static;
    const VALUE: Value = Value::tuple(Tup::free());
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::VALUE)
    }
}

impl Int for Free {
    fn cpp() -> String {
        "cute::Underscore".into()
    }
}
