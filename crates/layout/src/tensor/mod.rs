//! `Tensor<Engine, Layout>`: CuTe's tensor, a layout over an engine of elements.
//!
//! - [`engine`]: what holds the elements (host slices, arrays, vectors; device memory only
//!   describes itself).
//! - `partition`: slicing with `_`, `local_tile`, `local_partition`, composition and the
//!   divides on tensors; static in, static out.
//! - `recast`: the same memory seen as another element type.
//! - `identity`: `make_identity_tensor`, whose elements are their own coordinates.
//! - `fragment`: `make_fragment_like` and host `copy`.
//!
//! ```
//! use ferrocute_layout::{layout, make_tensor, tuple, LayoutLike};
//! let data: Vec<f32> = (0..24).map(|x| x as f32).collect();
//! let t = make_tensor(data.as_slice(), layout!((4,6):(1,4))).unwrap();   // column-major 4x6
//! assert_eq!(t[(1, 2)], 9.0);
//! let col = t.slice(tuple!((_, 2)));                                      // column 2: static
//! assert_eq!((col.layout().to_string(), col[3]), ("(4):(1)".to_string(), 11.0));
//! let tile = t.local_tile(tuple!((2, 3)), (1usize, 1usize)).unwrap();     // tile (1,1) of 2x3
//! assert_eq!(tile[(0, 0)], 14.0);
//! ```

pub mod engine;
mod fragment;
mod identity;
mod partition;
mod recast;

pub use fragment::{copy, make_fragment_like};
pub use identity::{make_identity_tensor, Coords};
pub use partition::{
    LocalPartition, LocalPartitionLayout, LocalTile, LocalTileLayout, SliceLayout, SliceOf,
};

use crate::error::{Condition, LayoutError};
use crate::operand::int_tuple::IntTuple;
use crate::operand::layout_like::LayoutLike;
use engine::{Engine, HostEngine, HostEngineMut};

/// A layout over an engine: element `c` is `engine[offset + layout(c)]`.
///
/// With a static layout the tensor is as large as its engine, and indexing compiles to the
/// index arithmetic one would write by hand (`benches/layout_eval.rs`). Operations that
/// change the layout consume the tensor (use [`Tensor::view`] / [`Tensor::view_mut`] to keep
/// the original); with static operands they return a tensor with a static layout, with
/// dynamic ones a `Result`.
#[derive(Clone, Copy, Debug)]
pub struct Tensor<E, L> {
    engine: E,
    layout: L,
    offset: usize,
}

/// CuTe's `make_tensor(engine, layout)`: checks that every offset of the layout lies in
/// the engine.
///
/// @pre `cosize(layout) <= len(engine)`
///
/// ```
/// use ferrocute_layout::{layout, make_tensor, Condition};
/// let data = [0u8; 12];
/// assert!(make_tensor(&data[..], layout!((4,3):(3,1))).is_ok());
/// let e = make_tensor(&data[..], layout!((4,4):(4,1))).unwrap_err();
/// assert_eq!((e.condition, e.a, e.b), (Condition::EngineTooShort, 16, 12));
/// ```
pub fn make_tensor<E: Engine, L: LayoutLike>(
    engine: E,
    layout: L,
) -> Result<Tensor<E, L>, LayoutError> {
    let need = layout.try_value()?.cosize();
    if need > engine.len() {
        return Err(LayoutError::new(
            "make_tensor",
            Condition::EngineTooShort,
            need,
            engine.len(),
        ));
    }
    Ok(Tensor::from_parts(engine, layout, 0))
}

impl<E, L> Tensor<E, L> {
    /// The tensor from its parts, unchecked: indexing stays bounds-checked by the engine.
    pub(crate) const fn from_parts(engine: E, layout: L, offset: usize) -> Self {
        Tensor {
            engine,
            layout,
            offset,
        }
    }

    /// The layout.
    pub const fn layout(&self) -> &L {
        &self.layout
    }

    /// Where coordinate 0 lies in the engine.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The engine.
    pub const fn engine(&self) -> &E {
        &self.engine
    }

    /// The engine, the layout and the offset.
    pub fn into_parts(self) -> (E, L, usize) {
        (self.engine, self.layout, self.offset)
    }
}

impl<E: Engine, L: LayoutLike> Tensor<E, L> {
    /// Number of coordinates.
    pub fn size(&self) -> usize {
        self.layout.size()
    }
}

impl<E: HostEngine, L: LayoutLike> Tensor<E, L> {
    /// The element at coordinate `c` (1-D, natural or partial, as [`LayoutLike::at`]).
    ///
    /// # Panics
    /// If the offset lies outside the engine (a coordinate outside the shape), as slice
    /// indexing does; [`Tensor::get`] returns `None` instead.
    #[inline(always)]
    pub fn at<C: IntTuple>(&self, c: C) -> &E::Elem {
        &self.engine.as_slice()[self.offset + self.layout.at(c)]
    }

    /// The element at coordinate `c`, or `None` if `c` does not fit the shape or lands
    /// outside the engine.
    pub fn get<C: IntTuple>(&self, c: C) -> Option<&E::Elem> {
        let off = self.layout.try_at(c).ok()?;
        self.engine.as_slice().get(self.offset + off)
    }

    /// A tensor borrowing this one's elements, with the same layout.
    pub fn view(&self) -> Tensor<&[E::Elem], L> {
        Tensor::from_parts(self.engine.as_slice(), self.layout, self.offset)
    }

    /// The elements in the order of the 1-D coordinates `0..size`.
    pub fn iter(&self) -> impl Iterator<Item = &E::Elem> + '_ {
        (0..self.size()).map(move |i| self.at(i))
    }
}

impl<E: HostEngineMut, L: LayoutLike> Tensor<E, L> {
    /// The element at coordinate `c`, mutably.
    ///
    /// # Panics
    /// As [`Tensor::at`].
    #[inline(always)]
    pub fn at_mut<C: IntTuple>(&mut self, c: C) -> &mut E::Elem {
        let off = self.offset + self.layout.at(c);
        &mut self.engine.as_mut_slice()[off]
    }

    /// The element at coordinate `c`, mutably, or `None` (as [`Tensor::get`]).
    pub fn get_mut<C: IntTuple>(&mut self, c: C) -> Option<&mut E::Elem> {
        let off = self.layout.try_at(c).ok()?;
        self.engine.as_mut_slice().get_mut(self.offset + off)
    }

    /// A tensor borrowing this one's elements mutably, with the same layout.
    pub fn view_mut(&mut self) -> Tensor<&mut [E::Elem], L> {
        Tensor::from_parts(self.engine.as_mut_slice(), self.layout, self.offset)
    }

    /// Writes `f(i)` to the element of every 1-D coordinate `i`.
    pub fn fill_with(&mut self, mut f: impl FnMut(usize) -> E::Elem) {
        for i in 0..self.size() {
            *self.at_mut(i) = f(i);
        }
    }
}

impl<E: HostEngine, L: LayoutLike, C: IntTuple> core::ops::Index<C> for Tensor<E, L> {
    type Output = E::Elem;
    #[inline(always)]
    fn index(&self, c: C) -> &E::Elem {
        self.at(c)
    }
}

impl<E: HostEngineMut, L: LayoutLike, C: IntTuple> core::ops::IndexMut<C> for Tensor<E, L> {
    #[inline(always)]
    fn index_mut(&mut self, c: C) -> &mut E::Elem {
        self.at_mut(c)
    }
}

impl<E: Engine, L: LayoutLike> core::fmt::Display for Tensor<E, L> {
    /// CuTe's `print(tensor)` header: `offset o layout`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} o {}", self.offset, self.layout)
    }
}
