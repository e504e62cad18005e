//! Construction and indexing: compact layouts, `crd2idx`, `idx2crd`, slicing.

use super::{err, Res};
use crate::error::{Condition, LayoutError};
use crate::tup::Tup;
use crate::value::Value;

/// CuTe's `compact_major<LayoutLeft>(shape, current)`: column-major strides starting at
/// `current`; size-1 modes get stride 0. Returns the strides and the next `current`.
pub const fn compact_left(shape: &Tup, current: usize) -> (Tup, usize) {
    if shape.is_leaf() {
        return if shape.value() == 1 {
            (Tup::leaf(0), current)
        } else {
            (Tup::leaf(current), current * shape.value())
        };
    }
    let mut out = Tup::EMPTY;
    let mut cur = current;
    let mut i = 0;
    while i < shape.rank() {
        let (d, next) = compact_left(&shape.get(i), cur);
        out.push(&d);
        cur = next;
        i += 1;
    }
    (out, cur)
}

/// CuTe's `compact_major<LayoutRight>`: row-major strides (the last mode is contiguous).
pub const fn compact_right(shape: &Tup, current: usize) -> (Tup, usize) {
    if shape.is_leaf() {
        return compact_left(shape, current);
    }
    let r = shape.rank();
    let mut parts = [Tup::EMPTY; 16];
    let mut cur = current;
    let mut i = r;
    while i > 0 {
        i -= 1;
        let (d, next) = compact_right(&shape.get(i), cur);
        parts[i] = d;
        cur = next;
    }
    let mut out = Tup::EMPTY;
    let mut k = 0;
    while k < r {
        out.push(&parts[k]);
        k += 1;
    }
    (out, cur)
}

/// CuTe's `make_layout(shape)`: compact column-major (LayoutLeft).
///
/// ```
/// use ferrocute_layout::{algebra::make_layout, Tup};
/// assert_eq!(make_layout(&Tup::flat(&[4, 3])).to_string(), "(4,3):(1,4)");
/// assert_eq!(make_layout(&Tup::leaf(1)).to_string(), "1:0");
/// ```
pub const fn make_layout(shape: &Tup) -> Value {
    Value::layout(*shape, compact_left(shape, 1).0)
}

/// CuTe's `make_layout(shape, LayoutRight{})`: compact row-major.
///
/// ```
/// use ferrocute_layout::{algebra::make_layout_right, Tup};
/// assert_eq!(make_layout_right(&Tup::flat(&[4, 3])).to_string(), "(4,3):(3,1)");
/// ```
pub const fn make_layout_right(shape: &Tup) -> Value {
    Value::layout(*shape, compact_right(shape, 1).0)
}

/// CuTe's `product_each`: the size of every top-level mode.
pub const fn product_each(t: &Tup) -> Tup {
    if t.is_leaf() {
        return *t;
    }
    let mut out = Tup::EMPTY;
    let mut i = 0;
    while i < t.rank() {
        out.push(&Tup::leaf(t.get(i).size()));
        i += 1;
    }
    out
}

/// CuTe's `ceil_div(a, b)` for an integer tuple `a` and an integer `b`: divides the modes
/// in order, carrying what is left of `b` (`ceil_div((6,2),4) = (2,2)`).
pub const fn ceil_div_tuple(a: &Tup, b: usize) -> Tup {
    ceil_div_carry(a, b).0
}

const fn ceil_div_carry(a: &Tup, b: usize) -> (Tup, usize) {
    if a.is_leaf() {
        let v = a.value();
        return (Tup::leaf(v.div_ceil(b)), b.div_ceil(v));
    }
    let mut out = Tup::EMPTY;
    let mut rest = b;
    let mut i = 0;
    while i < a.rank() {
        let (q, r) = ceil_div_carry(&a.get(i), rest);
        out.push(&q);
        rest = r;
        i += 1;
    }
    (out, rest)
}

/// CuTe's `filter_zeros`: size-1 wherever the stride is 0.
pub const fn filter_zeros(l: &Value) -> Value {
    let mut shape = l.shape;
    let n = l.shape.leaf_count();
    let mut vals = Tup::EMPTY;
    let mut k = 0;
    while k < n {
        let s = if l.stride.leaf_at(k) == 0 {
            1
        } else {
            l.shape.leaf_at(k)
        };
        vals.push(&Tup::leaf(s));
        k += 1;
    }
    shape = shape.with_leaves(&vals);
    Value::layout(shape, l.stride)
}

/// CuTe's `crd2idx(coord, shape, stride)`: hierarchical, partial (an integer against a
/// tuple mode), or 1-D coordinates. `_` counts as 0.
pub const fn crd2idx(c: &Tup, shape: &Tup, stride: &Tup) -> Result<usize, LayoutError> {
    if c.is_leaf() {
        let v = if c.is_free() { 0 } else { c.value() };
        return Ok(super::super::value::crd2idx_int(v, shape, stride));
    }
    if shape.is_leaf() || c.rank() != shape.rank() {
        return Err(err(
            "crd2idx",
            Condition::CoordinateMismatch,
            c.rank(),
            shape.rank(),
        ));
    }
    let mut idx = 0;
    let mut i = 0;
    while i < c.rank() {
        idx += tri!(crd2idx(&c.get(i), &shape.get(i), &stride.get(i)));
        i += 1;
    }
    Ok(idx)
}

/// CuTe's `idx2crd(idx, shape)`: the natural coordinate of a 1-D index (column-major).
pub const fn idx2crd(idx: usize, shape: &Tup) -> Tup {
    let stride = compact_left(shape, 1).0;
    idx2crd_with(idx, shape, &stride)
}

/// CuTe's `idx2crd(idx, shape)` where `idx` may itself be a (partial) coordinate: an
/// integer against a tuple mode is split into that mode's natural coordinate.
pub const fn idx2crd_tuple(idx: &Tup, shape: &Tup) -> Result<Tup, LayoutError> {
    if idx.is_leaf() {
        return Ok(idx2crd(idx.value(), shape));
    }
    if shape.is_leaf() || idx.rank() != shape.rank() {
        return Err(err(
            "idx2crd",
            Condition::CoordinateMismatch,
            idx.rank(),
            shape.rank(),
        ));
    }
    let mut out = Tup::EMPTY;
    let mut i = 0;
    while i < idx.rank() {
        out.push(&tri!(idx2crd_tuple(&idx.get(i), &shape.get(i))));
        i += 1;
    }
    Ok(out)
}

/// CuTe's `idx2crd(idx, shape, stride)`: `(idx / stride) % shape` at every leaf.
pub const fn idx2crd_with(idx: usize, shape: &Tup, stride: &Tup) -> Tup {
    if shape.is_leaf() {
        let d = stride.value();
        let s = shape.value();
        return Tup::leaf(match idx.checked_div(d) {
            Some(q) => q % s,
            None => 0,
        });
    }
    let mut out = Tup::EMPTY;
    let mut i = 0;
    while i < shape.rank() {
        out.push(&idx2crd_with(idx, &shape.get(i), &stride.get(i)));
        i += 1;
    }
    out
}

/// CuTe's `slice(coord, tuple)`: the modes where `coord` is `_`, spliced together.
pub const fn slice_tuple(c: &Tup, t: &Tup) -> Result<Tup, LayoutError> {
    if c.is_leaf() {
        return Ok(if c.is_free() { *t } else { Tup::EMPTY });
    }
    let mut out = Tup::EMPTY;
    tri!(lift_slice(c, t, &mut out));
    Ok(out)
}

const fn lift_slice(c: &Tup, t: &Tup, out: &mut Tup) -> Result<(), LayoutError> {
    if c.is_leaf() {
        if c.is_free() {
            out.push(t);
        }
        return Ok(());
    }
    if t.is_leaf() || c.rank() != t.rank() {
        return Err(err(
            "slice",
            Condition::CoordinateMismatch,
            c.rank(),
            t.rank(),
        ));
    }
    let mut i = 0;
    while i < c.rank() {
        tri!(lift_slice(&c.get(i), &t.get(i), out));
        i += 1;
    }
    Ok(())
}

/// CuTe's `slice(coord, layout)`: the sub-layout of the modes where `coord` is `_`.
///
/// ```
/// use ferrocute_layout::{algebra::{slice, make_layout}, Tup};
/// let l = make_layout(&Tup::flat(&[4, 3]));
/// let c = Tup::pair(&Tup::free(), &Tup::leaf(2));
/// assert_eq!(slice(&c, &l).unwrap().to_string(), "(4):(1)");
/// ```
pub const fn slice(c: &Tup, l: &Value) -> Res {
    let shape = tri!(slice_tuple(c, &l.shape));
    let stride = tri!(slice_tuple(c, &l.stride));
    Ok(l.with_inner(&Value::layout(shape, stride)))
}

/// CuTe's `slice_and_offset`: the sub-layout and the offset of the fixed coordinates.
pub const fn slice_and_offset(c: &Tup, l: &Value) -> Result<(Value, usize), LayoutError> {
    let s = tri!(slice(c, &l.inner()));
    let off = tri!(crd2idx(c, &l.shape, &l.stride));
    Ok((s, off))
}

/// CuTe's `zip` of two layouts: `((a0,b0),(a1,b1),...)`; a non-tuple first operand gives
/// `((a,b))`.
pub const fn zip(a: &Value, b: &Value) -> Res {
    Ok(Value::layout(
        tri!(zip_tup(&a.shape, &b.shape)),
        tri!(zip_tup(&a.stride, &b.stride)),
    ))
}

const fn zip_tup(a: &Tup, b: &Tup) -> Result<Tup, LayoutError> {
    if a.is_leaf() {
        return Ok(Tup::tuple(&[Tup::pair(a, b)]));
    }
    if b.is_leaf() || a.rank() != b.rank() {
        let rb = if b.is_leaf() { 0 } else { b.rank() };
        return Err(err("zip", Condition::ZipRankMismatch, a.rank(), rb));
    }
    let mut out = Tup::EMPTY;
    let mut i = 0;
    while i < a.rank() {
        out.push(&Tup::pair(&a.get(i), &b.get(i)));
        i += 1;
    }
    Ok(out)
}

/// CuTe's `append<N>(layout)`: pads with `1:0` modes up to rank `n`.
pub const fn pad_rank(l: &Value, n: usize) -> Value {
    if l.rank() >= n {
        return *l;
    }
    let mut out = Value::layout(l.shape.as_tuple(), l.stride.as_tuple());
    while out.rank() < n {
        out.push_mode(&Value::layout(Tup::leaf(1), Tup::leaf(0)));
    }
    out
}
