//! `make_identity_tensor`: a tensor whose element at each coordinate is that coordinate.
//!
//! CuTe strides such a tensor with basis elements (`(M,N):(_1@0,_1@1)`): each leaf of the
//! shape counts along its own axis of an arithmetic tuple, so tiles that run past the shape
//! give coordinates past it (what predication tests) instead of wrapping. ferrocute keeps the
//! layouts ordinary: basis `@k` is the integer `2^(k*w)`, a field of `w` bits per leaf, wide
//! enough for twice the largest extent. Every layout operation then computes on the fields
//! exactly as on basis strides, and [`Coords`] reads the fields back. The fields share the
//! 64 bits evenly (`w = 64 / leaves`: 32 bits for a matrix, 21 for rank 3), so tiles may
//! run past the shape by as much again before a field overflows.

use super::engine::Engine;
use super::Tensor;
use crate::error::{Condition, LayoutError};
use crate::operand::dyn_layout::DynLayout;
use crate::operand::int_tuple::IntTuple;
use crate::operand::layout_like::LayoutLike;
use crate::tup::Tup;
use crate::value::Value;

/// The engine of an identity tensor: decodes an offset into the coordinate it encodes.
#[derive(Clone, Copy, Debug)]
pub struct Coords {
    /// The shape whose coordinates the offsets encode (its structure shapes the result).
    shape: Tup,
    /// Bits per leaf.
    bits: u32,
}

impl Engine for Coords {
    type Elem = Tup;
    /// Every encoded offset is in range: the engine computes its elements.
    fn len(&self) -> usize {
        usize::MAX
    }
}

impl Coords {
    /// The coordinate an offset encodes, congruent with the identity tensor's shape.
    ///
    /// ```
    /// use ferrocute_layout::make_identity_tensor;
    /// let id = make_identity_tensor((10usize, 6usize)).unwrap();   // 32-bit fields
    /// assert_eq!(id.engine().decode(3 + (4 << 32)).to_string(), "(3,4)");
    /// ```
    pub fn decode(&self, offset: usize) -> Tup {
        let mask = usize::MAX >> (usize::BITS - self.bits);
        let n = self.shape.leaf_count();
        let leaves: Vec<usize> = (0..n)
            .map(|k| (offset >> (k as u32 * self.bits)) & mask)
            .collect();
        self.shape.with_leaves(&Tup::flat(&leaves))
    }

    /// The basis stride `@k` a field stands for, as CuTe prints it (`_4@1`).
    fn basis(&self, stride: usize) -> String {
        let mask = usize::MAX >> (usize::BITS - self.bits);
        let fields: Vec<String> = (0..self.shape.leaf_count())
            .filter_map(|k| {
                let f = (stride >> (k as u32 * self.bits)) & mask;
                (f != 0).then(|| format!("_{f}@{k}"))
            })
            .collect();
        if fields.is_empty() {
            "_0".into()
        } else {
            fields.join("+")
        }
    }
}

/// CuTe's `make_identity_tensor(shape)`: element `c` is the natural coordinate `c`.
///
/// @pre every leaf of the shape is below `2^(w-1)`, `w = 64 / leaves` (2^31 for a matrix,
///      2^20 for rank 3, 2^15 for rank 4).
///
/// ```
/// use ferrocute_layout::{make_identity_tensor, tuple, Tup};
/// let id = make_identity_tensor(tuple!((10, 6))).unwrap();
/// assert_eq!(id.coord((3, 4)).to_string(), "(3,4)");
/// assert_eq!(id.to_basis_string(), "ArithTuple(0,0) o (10,6):(_1@0,_1@1)");
/// // The last 4x4 tile of 10x6 runs past the shape: its coordinates say so.
/// let tile = id.local_tile(tuple!((4, 4)), (2usize, 1usize)).unwrap();
/// assert_eq!(tile.coord((3, 1)).to_string(), "(11,5)");
/// ```
pub fn make_identity_tensor<S: IntTuple>(
    shape: S,
) -> Result<Tensor<Coords, DynLayout>, LayoutError> {
    let shape = shape.try_value()?.shape;
    let n = shape.leaf_count();
    let bits = usize::BITS / n.max(1) as u32;
    let largest = (0..n).map(|k| shape.leaf_at(k)).max().unwrap_or(1);
    if bits < 2 || largest >= 1 << (bits - 1) {
        return Err(LayoutError::new(
            "make_identity_tensor",
            Condition::TooLarge,
            largest,
            1 << bits.saturating_sub(1),
        ));
    }
    let strides: Vec<usize> = (0..n).map(|k| 1usize << (k as u32 * bits)).collect();
    let layout = Value::layout(shape, shape.with_leaves(&Tup::flat(&strides)));
    Ok(Tensor::from_parts(
        Coords { shape, bits },
        DynLayout::from_value(layout),
        0,
    ))
}

impl<L: LayoutLike> Tensor<Coords, L> {
    /// The coordinate stored at `c` (in the identity tensor's original shape).
    ///
    /// # Panics
    /// If `c` does not fit this tensor's shape.
    pub fn coord<C: IntTuple>(&self, c: C) -> Tup {
        self.engine.decode(self.offset_of(c))
    }

    /// CuTe's print form: `ArithTuple(origin) o shape:(basis strides)`.
    pub fn to_basis_string(&self) -> String {
        let v = self.layout.value();
        let stride = tree(&v.stride, &|d| self.engine.basis(d));
        let origin = self.engine.decode(self.offset);
        format!("ArithTuple{} o {}:{}", origin, v.shape, stride)
    }
}

/// Prints a tuple with each integer written by `leaf`.
fn tree(t: &Tup, leaf: &dyn Fn(usize) -> String) -> String {
    if t.is_leaf() {
        return leaf(t.value());
    }
    let parts: Vec<String> = (0..t.rank()).map(|i| tree(&t.get(i), leaf)).collect();
    format!("({})", parts.join(","))
}
