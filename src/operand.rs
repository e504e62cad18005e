//! [`Operand`]: what every layout, integer, tuple and tiler type denotes.

use crate::error::LayoutError;
use crate::kind::Kind;
use crate::value::Value;

/// Anything the layout algebra takes: a layout type, an integer, a tuple, a tiler.
///
/// Static types carry their [`Value`] as the constant `VALUE`, so rustc computes with it;
/// dynamic ones build it at run time in [`Operand::value`].
///
/// ```
/// use ferrocute::{layout, Operand};
/// let l = layout!((4,(2,2)):(1,(8,4)));
/// const V: ferrocute::Value = <ferrocute::Layout!((4,(2,2)):(1,(8,4))) as Operand>::VALUE;
/// assert_eq!(l.value(), V);
/// assert_eq!(core::mem::size_of_val(&l), 0);
/// ```
pub trait Operand: Copy {
    /// [`crate::Static`] or [`crate::Dynamic`].
    type Kind: Kind;
    /// The value of a static operand (a placeholder for dynamic ones; never read then).
    const VALUE: Value;
    /// The value, checked: the error a dynamic operation ran into.
    fn try_value(&self) -> Result<Value, LayoutError>;
    /// The value (static: the constant; dynamic: computed now).
    #[inline(always)]
    fn value(&self) -> Value {
        if <Self::Kind as Kind>::STATIC {
            Self::VALUE
        } else {
            match self.try_value() {
                Ok(v) => v,
                Err(e) => panic!("{e}"),
            }
        }
    }
}
