//! Static or dynamic: what decides whether an operation's result is a type or a value.
//!
//! Every operand has a [`Kind`]. When all operands are [`Static`], an operation returns a
//! zero-sized expression type whose layout rustc computes in `const` (a violated
//! precondition is a compile error); when any is [`Dynamic`], it returns
//! `Result<DynLayout, LayoutError>` computed at run time by the same functions.

use crate::error::LayoutError;
use crate::operand::dyn_layout::DynLayout;
use crate::operand::layout_like::LayoutLike;
use crate::operand::Operand;
use crate::tensor::Tensor;

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
    /// What a tensor operation returns: a tensor whose layout is the expression type, or a
    /// checked tensor over a run-time layout.
    type TensorOut<V, E: Operand>;
    /// Finishes a tensor operation: the view `v` through the result layout `e`, from
    /// `offset`.
    fn tensor<V, E: Operand>(v: V, e: E, offset: usize) -> Self::TensorOut<V, E>;
    /// A tensor from an operation's result (`Out`): the view `v` through it, from `offset`.
    fn tensor_of<V, E: Operand>(v: V, out: Self::Out<E>, offset: usize) -> Self::TensorOut<V, E>;
    /// The layout a checked result has: the expression type, or a run-time layout.
    type Layout<E: LayoutLike>: LayoutLike;
    /// Checks a result: a static expression at compile time, a dynamic one now.
    fn checked<E: LayoutLike>(e: E) -> Result<Self::Layout<E>, LayoutError>;
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
    type TensorOut<V, E: Operand> = Tensor<V, E>;
    #[inline(always)]
    fn tensor<V, E: Operand>(v: V, e: E, offset: usize) -> Tensor<V, E> {
        Tensor::from_parts(v, Self::finish(e), offset)
    }
    #[inline(always)]
    fn tensor_of<V, E: Operand>(v: V, out: E, offset: usize) -> Tensor<V, E> {
        Tensor::from_parts(v, out, offset)
    }
    type Layout<E: LayoutLike> = E;
    #[inline(always)]
    fn checked<E: LayoutLike>(e: E) -> Result<E, LayoutError> {
        Ok(Self::finish(e))
    }
}

impl Kind for Dynamic {
    const STATIC: bool = false;
    type Join<K: Kind> = Dynamic;
    type Out<E: Operand> = Result<DynLayout, LayoutError>;
    fn finish<E: Operand>(e: E) -> Result<DynLayout, LayoutError> {
        e.try_value().map(DynLayout::from_value)
    }
    type TensorOut<V, E: Operand> = Result<Tensor<V, DynLayout>, LayoutError>;
    fn tensor<V, E: Operand>(v: V, e: E, offset: usize) -> Self::TensorOut<V, E> {
        Ok(Tensor::from_parts(v, Self::finish(e)?, offset))
    }
    fn tensor_of<V, E: Operand>(
        v: V,
        out: Result<DynLayout, LayoutError>,
        offset: usize,
    ) -> Self::TensorOut<V, E> {
        Ok(Tensor::from_parts(v, out?, offset))
    }
    type Layout<E: LayoutLike> = DynLayout;
    fn checked<E: LayoutLike>(e: E) -> Result<DynLayout, LayoutError> {
        Self::finish(e)
    }
}

/// The kind of an operation over operands of kinds `A` and `B`.
pub type Join<A, B> = <A as Kind>::Join<B>;
