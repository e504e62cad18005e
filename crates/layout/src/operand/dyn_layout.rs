//! `DynLayout`: the run-time result of an operation over dynamic operands.

use crate::error::LayoutError;
use crate::operand::eval::DYNAMIC;
use crate::operand::kind::Dynamic;
use crate::operand::layout_like::LayoutLike;
use crate::operand::Operand;
use crate::value::Value;

/// A layout computed at run time (an operation had a dynamic operand).
///
/// ```
/// use ferrocute_layout::{layout, composition, LayoutLike};
/// let n = 16;
/// let r = composition(layout!((4,3):(3,1)), layout!({n}:1)).unwrap();
/// assert_eq!(r.to_string(), "(4,4):(3,1)");
/// assert_eq!(r.call(5), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynLayout {
    value: Value,
}

impl DynLayout {
    /// Wraps a computed value.
    pub const fn from_value(value: Value) -> Self {
        DynLayout { value }
    }
}

impl Operand for DynLayout {
    type Kind = Dynamic;
    const VALUE: Value = DYNAMIC;
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(self.value)
    }
}

impl LayoutLike for DynLayout {}

impl core::fmt::Display for DynLayout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.value, f)
    }
}
