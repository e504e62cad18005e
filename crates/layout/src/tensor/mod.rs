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
    LocalPartition, LocalPartitionLayout, LocalTile, LocalTileLayout, ModeSlice, SliceLayout,
    SliceOf,
};

use crate::error::{Condition, LayoutError};
use crate::operand::int_tuple::IntTuple;
use crate::operand::layout_like::LayoutLike;
use engine::{Engine, HostEngine, HostEngineMut};

/// A layout over an engine: element `c` is `engine[offset + layout(c)]`; for a swizzled
/// layout `Sw o o0 o L` the offset goes inside the swizzle, `engine[Sw(o0 + offset + L(c))]`
/// (as CuTe's `ComposedLayout` takes it), so that tiles and partitions of a swizzled tensor
/// address the elements they cut out.
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

/// The parts of a tensor.
///
/// ```
/// use ferrocute_layout::{layout, make_tensor, tuple, LayoutLike};
/// let data: Vec<u32> = (0..12).collect();
/// let t = make_tensor(data.clone(), layout!((3,4):(1,3))).unwrap();
/// assert_eq!((t.layout().to_string(), t.offset(), t.engine().len()), ("(3,4):(1,3)".into(), 0, 12));
/// let col = t.slice((ferrocute_layout::Free, 2usize));
/// assert_eq!(col.offset(), 6);
/// let (engine, layout, offset) = col.into_parts();
/// assert_eq!((engine, layout.to_string(), offset), (data, "(3):(1)".into(), 6));
/// ```
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

    /// Where coordinate `c`'s element lies in the engine: `offset + layout(c)`, the offset
    /// inside the swizzle of a swizzled layout.
    ///
    /// ```
    /// use ferrocute_layout::{composition, layout, make_tensor, Swizzle};
    /// let data = [0u8; 4];
    /// let sw = composition(Swizzle::<1, 0, 1>, layout!((2,2):(1,2)));   // 0 1 3 2
    /// let t = make_tensor(&data[..], sw).unwrap();
    /// assert_eq!((t.offset_of(2), t.offset_of(3)), (3, 2));
    /// ```
    #[inline(always)]
    pub fn offset_of<C: IntTuple>(&self, c: C) -> usize {
        self.layout.post(self.offset + self.layout.at_raw(c))
    }
}

impl<E: HostEngine, L: LayoutLike> Tensor<E, L> {
    /// The element at coordinate `c` (1-D, natural or partial, as [`LayoutLike::at`]).
    /// Integers past a mode's extent are not checked: they run on along the layout, as in
    /// CuTe.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor};
    /// let data = [10, 11, 12, 13, 14, 15];
    /// let t = make_tensor(&data[..], layout!((2,3):(3,1))).unwrap();
    /// assert_eq!((*t.at((1, 2)), t[(1, 2)], t[5]), (15, 15, 15));
    /// ```
    ///
    /// # Panics
    /// If the element lies outside the engine, as slice indexing does; [`Tensor::get`]
    /// returns `None` instead.
    #[inline(always)]
    pub fn at<C: IntTuple>(&self, c: C) -> &E::Elem {
        &self.engine.as_slice()[self.offset_of(c)]
    }

    /// The element at coordinate `c`, or `None` if `c`'s structure does not fit the shape
    /// or the element lies outside the engine.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor};
    /// let data = [1, 2, 3, 4];
    /// let t = make_tensor(&data[..], layout!((2,2):(1,2))).unwrap();
    /// assert_eq!((t.get((1, 1)), t.get((1, 2)), t.get(((0, 1), 1))), (Some(&4), None, None));
    /// ```
    pub fn get<C: IntTuple>(&self, c: C) -> Option<&E::Elem> {
        let raw = self.layout.try_at_raw(c).ok()?;
        self.engine
            .as_slice()
            .get(self.layout.post(self.offset + raw))
    }

    /// A tensor borrowing this one's elements, with the same layout.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor};
    /// let t = make_tensor(vec![1, 2, 3, 4], layout!((2,2):(2,1))).unwrap();
    /// let row1 = t.view().slice((1usize, ferrocute_layout::Free));   // t stays usable
    /// assert_eq!((row1[0], row1[1], t[(0, 1)]), (3, 4, 2));
    /// ```
    pub fn view(&self) -> Tensor<&[E::Elem], L> {
        Tensor::from_parts(self.engine.as_slice(), self.layout, self.offset)
    }

    /// The elements in the order of the 1-D coordinates `0..size`.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor};
    /// let t = make_tensor(vec![1, 2, 3, 4, 5, 6], layout!((2,3):(3,1))).unwrap();
    /// assert_eq!(t.iter().copied().collect::<Vec<_>>(), [1, 4, 2, 5, 3, 6]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &E::Elem> + '_ {
        (0..self.size()).map(move |i| self.at(i))
    }
}

impl<E: HostEngineMut, L: LayoutLike> Tensor<E, L> {
    /// The element at coordinate `c`, mutably.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor};
    /// let mut t = make_tensor(vec![0; 4], layout!((2,2):(2,1))).unwrap();
    /// *t.at_mut((1, 0)) = 5;
    /// if let Some(x) = t.get_mut((0, 1)) { *x = 7 }
    /// assert_eq!(t.into_parts().0, [0, 7, 5, 0]);
    /// ```
    ///
    /// # Panics
    /// As [`Tensor::at`].
    #[inline(always)]
    pub fn at_mut<C: IntTuple>(&mut self, c: C) -> &mut E::Elem {
        let off = self.offset_of(c);
        &mut self.engine.as_mut_slice()[off]
    }

    /// The element at coordinate `c`, mutably, or `None` (as [`Tensor::get`]).
    pub fn get_mut<C: IntTuple>(&mut self, c: C) -> Option<&mut E::Elem> {
        let raw = self.layout.try_at_raw(c).ok()?;
        let off = self.layout.post(self.offset + raw);
        self.engine.as_mut_slice().get_mut(off)
    }

    /// A tensor borrowing this one's elements mutably, with the same layout.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor};
    /// let mut t = make_tensor(vec![0; 6], layout!((2,3):(3,1))).unwrap();
    /// t.view_mut().slice((ferrocute_layout::Free, 2usize)).fill_with(|i| 10 + i);
    /// assert_eq!(t.into_parts().0, [0, 0, 10, 0, 0, 11]);
    /// ```
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
