//! The type layer: what the algebra operates on and how an operation is evaluated.
//!
//! - [`Operand`] (this file): what every layout, integer, tuple and tiler type denotes.
//! - [`kind`]: whether a result is a type checked by rustc ([`Static`](kind::Static)) or a
//!   value checked at run time ([`Dynamic`](kind::Dynamic)).
//! - [`expr`]: [`Expr`](expr::Expr), an operation applied to operands, itself an operand.
//! - [`opcode`]: the operations, as values and as type-level names, from one list.
//! - `eval`: applies an [`OpCode`](opcode::OpCode) to values (the `const fn` dispatcher).
//! - [`int_tuple`], [`layout_like`]: the views of an operand as an integer tuple or a layout.
//! - [`dyn_layout`]: [`DynLayout`](dyn_layout::DynLayout), the result of a dynamic operation.
//!
//! These modules refer to each other by design (an `Expr` is an `Operand` whose `Kind`
//! decides whether `eval` runs in `const`), so they live together here.

pub mod dyn_layout;
pub(crate) mod eval;
pub mod expr;
pub mod int_tuple;
pub mod kind;
pub mod layout_like;
pub mod opcode;

use crate::error::LayoutError;
use crate::value::Value;
use kind::Kind;

/// Anything the layout algebra takes: a layout type, an integer, a tuple, a tiler.
///
/// Static types carry their [`Value`] as the constant `VALUE`, so rustc computes with it;
/// dynamic ones build it at run time in [`Operand::value`].
///
/// ```
/// use ferrocute_layout::{layout, Operand};
/// let l = layout!((4,(2,2)):(1,(8,4)));
/// const V: ferrocute_layout::Value = <ferrocute_layout::Layout!((4,(2,2)):(1,(8,4))) as Operand>::VALUE;
/// assert_eq!(l.value(), V);
/// assert_eq!(core::mem::size_of_val(&l), 0);
/// ```
pub trait Operand: Copy {
    /// [`crate::Static`] or [`crate::Dynamic`].
    type Kind: Kind;
    /// The value of a static operand (a placeholder for dynamic ones; never read then).
    const VALUE: Value;
    /// The value of a static operand, or the violated precondition that makes it invalid
    /// (`VALUE` raises it as a compile error; [`crate::assert_static!`] raises it in the
    /// user's own item, so that `cargo check` shows it there).
    const RESULT: Result<Value, LayoutError> = Ok(Self::VALUE);
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
