//! Static or dynamic: what decides whether an operation's result is a type or a value.
//!
//! Every operand has a [`Kind`]. When all operands are [`Static`], an operation returns a
//! zero-sized expression type whose layout rustc computes in `const` (a violated
//! precondition is a compile error); when any is [`Dynamic`], it returns
//! `Result<DynLayout, LayoutError>` computed at run time by the same functions.

use crate::error::LayoutError;
use crate::operand::dyn_layout::DynLayout;
use crate::operand::Operand;

/// Static or dynamic (see the module docs).
pub trait Kind {
    /// Whether this is [`Static`].
    const STATIC: bool;
    /// The kind of an operation over an operand of this kind and one of kind `K`.
    type Join<K: Kind>: Kind;
    /// What an operation returns: the expression type itself, or a checked run-time value.
    type Out<E: Operand>;
    /// Finishes an operation: checks a static expression at compile time, or evaluates a
    /// dynamic one.
    fn finish<E: Operand>(e: E) -> Self::Out<E>;
}

/// All operands are static: results are zero-sized types computed by rustc.
#[derive(Clone, Copy, Debug, Default)]
pub struct Static;

/// Some operand holds a run-time integer: results are values.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dynamic;

impl Kind for Static {
    const STATIC: bool = true;
    type Join<K: Kind> = K;
    type Out<E: Operand> = E;
    #[inline(always)]
    fn finish<E: Operand>(e: E) -> E {
        // Referencing the constant makes rustc evaluate (and check) the layout now.
        let _ = E::VALUE;
        e
    }
}

impl Kind for Dynamic {
    const STATIC: bool = false;
    type Join<K: Kind> = Dynamic;
    type Out<E: Operand> = Result<DynLayout, LayoutError>;
    fn finish<E: Operand>(e: E) -> Result<DynLayout, LayoutError> {
        e.try_value().map(DynLayout::from_value)
    }
}

/// The kind of an operation over operands of kinds `A` and `B`.
pub type Join<A, B> = <A as Kind>::Join<B>;
