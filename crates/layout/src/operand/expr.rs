//! `Expr`: the zero-sized type of an operation's result over static operands.

use crate::error::LayoutError;
use crate::operand::eval::{apply, OpCode, DYNAMIC};
use crate::operand::kind::{Join, Kind};
use crate::operand::layout_like::LayoutLike;
use crate::operand::Operand;
use crate::value::Value;
use core::marker::PhantomData;

/// Names an operation of the algebra at the type level (see [`crate::operand::opcode`]).
pub trait Operation {
    /// The operation and its integer parameters.
    const CODE: OpCode;
}

/// The operands of an [`Expr`]: `(A,)` or `(A, B)`.
pub trait Operands: Copy {
    /// Static if every operand is.
    type Kind: Kind;
    /// The operands' values, or the first operand's violated precondition (static case).
    const RESULTS: Result<[Value; 2], LayoutError>;
    /// The operands' values (any case).
    fn values(&self) -> Result<[Value; 2], LayoutError>;
}

impl<A: Operand> Operands for (A,) {
    type Kind = A::Kind;
    const RESULTS: Result<[Value; 2], LayoutError> = match A::RESULT {
        Ok(a) => Ok([a, DYNAMIC]),
        Err(e) => Err(e),
    };
    fn values(&self) -> Result<[Value; 2], LayoutError> {
        Ok([self.0.try_value()?, DYNAMIC])
    }
}

impl<A: Operand, B: Operand> Operands for (A, B) {
    type Kind = Join<A::Kind, B::Kind>;
    const RESULTS: Result<[Value; 2], LayoutError> = match (A::RESULT, B::RESULT) {
        (Ok(a), Ok(b)) => Ok([a, b]),
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    fn values(&self) -> Result<[Value; 2], LayoutError> {
        Ok([self.0.try_value()?, self.1.try_value()?])
    }
}

/// The result of operation `O` on operands `A`, as a type: zero-sized when the operands
/// are static, with its layout computed by rustc in `VALUE`.
///
/// ```
/// use ferrocute_layout::{Composition, Layout, LayoutLike, Operand};
/// type A = Layout!((4,3):(3,1));
/// type B = Layout!(16:1);
/// type R = Composition<A, B>;
/// assert_eq!(R::default().to_string(), "(4,4):(3,1)");
/// const SIZE: usize = <R as LayoutLike>::SIZE;
/// assert_eq!(SIZE, 16);
/// ```
pub struct Expr<O, A> {
    args: A,
    op: PhantomData<O>,
}

impl<O, A: Copy> Clone for Expr<O, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<O, A: Copy> Copy for Expr<O, A> {}

impl<O, A: Default> Default for Expr<O, A> {
    fn default() -> Self {
        Expr {
            args: A::default(),
            op: PhantomData,
        }
    }
}

impl<O, A> Expr<O, A> {
    pub(crate) const fn new(args: A) -> Self {
        Expr {
            args,
            op: PhantomData,
        }
    }
}

impl<O: Operation, A: Operands> Operand for Expr<O, A> {
    type Kind = A::Kind;
    const VALUE: Value = match Self::RESULT {
        Ok(v) => v,
        Err(e) => e.raise(),
    };
    const RESULT: Result<Value, LayoutError> = if <A::Kind as Kind>::STATIC {
        match A::RESULTS {
            Ok(args) => apply(O::CODE, &args),
            Err(e) => Err(e),
        }
    } else {
        Ok(DYNAMIC)
    };
    fn try_value(&self) -> Result<Value, LayoutError> {
        if <A::Kind as Kind>::STATIC {
            return Ok(Self::VALUE);
        }
        apply(O::CODE, &self.args.values()?)
    }
}

impl<O: Operation, A: Operands> LayoutLike for Expr<O, A> {}

impl<O: Operation, A: Operands> core::fmt::Display for Expr<O, A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.value(), f)
    }
}

impl<O: Operation, A: Operands> core::fmt::Debug for Expr<O, A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.value(), f)
    }
}
