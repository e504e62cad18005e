//! `upcast` and `downcast`: a layout over elements of one width seen over wider or narrower
//! elements (what CuTe's `recast_layout` does).

use super::{err, plain, Res};
use crate::error::Condition;
use crate::tup::{Tup, MAX_NODES};
use crate::value::Value;

/// CuTe's `upcast<N>(layout)`: the layout over elements `n` times wider. A mode of stride
/// `d` takes `ceil(n/d)` of its elements per wide element (a unit-stride mode keeps `1/n` of
/// its shape) and gets stride `ceil(d/n)`; a broadcast (stride 0) mode is kept.
///
/// @pre the layout is not swizzled; every stride divides, or is a multiple of, `n`; every
///      shape divides, or divides into, the elements merged from it (CuTe's `shape_div`).
///
/// ```
/// use ferrocute_layout::{algebra::upcast, Value, Tup};
/// let l = Value::layout(Tup::flat(&[8, 4]), Tup::flat(&[1, 8]));
/// assert_eq!(upcast(&l, 2).unwrap().to_string(), "(4,4):(1,4)");
/// let bits = Value::layout(Tup::flat(&[32, 128]), Tup::flat(&[128, 1]));
/// assert_eq!(upcast(&bits, 16).unwrap().to_string(), "(32,8):(8,1)");
/// ```
pub const fn upcast(l: &Value, n: usize) -> Res {
    leaf_by_leaf("upcast", l, n, true)
}

/// CuTe's `downcast<N>(layout)`: the layout over elements `n` times narrower. A unit-stride
/// mode gets `n` times the shape; every other stride is multiplied by `n`.
///
/// ```
/// use ferrocute_layout::{algebra::downcast, Value, Tup};
/// let l = Value::layout(Tup::flat(&[4, 2]), Tup::flat(&[1, 4]));
/// assert_eq!(downcast(&l, 2).unwrap().to_string(), "(8,2):(1,8)");
/// ```
pub const fn downcast(l: &Value, n: usize) -> Res {
    leaf_by_leaf("downcast", l, n, false)
}

/// `upcast` (`up`) or `downcast` of every leaf `s:d` of a plain layout.
const fn leaf_by_leaf(op: &'static str, l: &Value, n: usize, up: bool) -> Res {
    tri!(plain(op, l));
    let count = l.shape.leaf_count();
    let mut shape = [0usize; MAX_NODES];
    let mut stride = [0usize; MAX_NODES];
    let mut k = 0;
    while k < count {
        let (s, d) = (l.shape.leaf_at(k), l.stride.leaf_at(k));
        (shape[k], stride[k]) = if !up {
            if d == 1 {
                (s * n, 1)
            } else {
                (s, d * n)
            }
        } else if d == 0 {
            (s, 0)
        } else {
            if !d.is_multiple_of(n) && !n.is_multiple_of(d) {
                return Err(err(op, Condition::UpcastDivisibility, d, n));
            }
            let merged = n.div_ceil(d);
            if !s.is_multiple_of(merged) && !merged.is_multiple_of(s) {
                return Err(err(op, Condition::ShapeDivisibility, s, merged));
            }
            (s.div_ceil(merged), d.div_ceil(n))
        };
        k += 1;
    }
    Ok(rebuilt(l, &shape, &stride, count))
}

/// CuTe's `recast_layout<From, To>`: the layout over elements of `to_bits` seen from one over
/// elements of `from_bits`.
///
/// @pre one width is a multiple of the other.
pub const fn recast_layout(l: &Value, from_bits: usize, to_bits: usize) -> Res {
    if from_bits == 0 || to_bits == 0 {
        return Err(err("recast_layout", Condition::ZeroShape, 0, 0));
    }
    if to_bits >= from_bits && to_bits.is_multiple_of(from_bits) {
        upcast(l, to_bits / from_bits)
    } else if from_bits.is_multiple_of(to_bits) {
        downcast(l, from_bits / to_bits)
    } else {
        Err(err(
            "recast_layout",
            Condition::ShapeDivisibility,
            from_bits,
            to_bits,
        ))
    }
}

const fn rebuilt(
    l: &Value,
    shape: &[usize; MAX_NODES],
    stride: &[usize; MAX_NODES],
    n: usize,
) -> Value {
    let s = l.shape.with_leaves(&Tup::flat(shape.split_at(n).0));
    let d = l.stride.with_leaves(&Tup::flat(stride.split_at(n).0));
    Value::layout(s, d)
}
