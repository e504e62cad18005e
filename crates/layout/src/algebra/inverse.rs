//! `right_inverse`, `left_inverse`, `max_common_layout`, `max_common_vector`.

use super::{coalesce, composition, err, plain, Res};
use crate::error::{Condition, LayoutError};
use crate::tup::Tup;
use crate::value::Value;

/// Modes of `coalesce(l)` as flat arrays with their prefix products, sorted by stride the
/// way CuTe sorts them (an exchange sort, which is not stable).
struct Sorted {
    n: usize,
    shape: [usize; 48],
    stride: [usize; 48],
    preprod: [usize; 49],
    order: [usize; 48],
}

const fn sorted_modes(l: &Value) -> Result<Sorted, LayoutError> {
    let c = tri!(coalesce(l));
    let s = c.shape.as_tuple();
    let d = c.stride.as_tuple();
    let mut out = Sorted {
        n: s.rank(),
        shape: [0; 48],
        stride: [0; 48],
        preprod: [1; 49],
        order: [0; 48],
    };
    let mut i = 0;
    while i < out.n {
        out.shape[i] = s.leaf_at(i);
        out.stride[i] = d.leaf_at(i);
        out.preprod[i + 1] = out.preprod[i] * out.shape[i];
        out.order[i] = i;
        i += 1;
    }
    // Exchange sort of (key = stride, val = index) pairs, compared by key only.
    let mut i = 0;
    while i < out.n {
        let mut j = i + 1;
        while j < out.n {
            if out.stride[out.order[j]] < out.stride[out.order[i]] {
                let t = out.order[j];
                out.order[j] = out.order[i];
                out.order[i] = t;
            }
            j += 1;
        }
        i += 1;
    }
    Ok(out)
}

/// CuTe's `right_inverse(L)`: the largest `R` with `L(R(i)) == i` for `i < size(R)`.
///
/// ```
/// use ferrocute_layout::{algebra::right_inverse, Value, Tup};
/// let l = Value::layout(Tup::flat(&[4, 2]), Tup::flat(&[2, 1]));
/// assert_eq!(right_inverse(&l).unwrap().to_string(), "(2,4):(4,1)");
/// ```
pub const fn right_inverse(l: &Value) -> Res {
    tri!(plain("right_inverse", l));
    let s = tri!(sorted_modes(l));
    let mut rs = Tup::flat(&[1]);
    let mut rd = Tup::flat(&[0]);
    let mut curr = 1usize;
    let mut k = 0;
    while k < s.n {
        let i = s.order[k];
        if s.stride[i] == curr {
            rs.push(&Tup::leaf(s.shape[i]));
            rd.push(&Tup::leaf(s.preprod[i]));
            curr = s.shape[i] * s.stride[i];
        }
        k += 1;
    }
    coalesce(&Value::layout(rs, rd))
}

/// CuTe's `left_inverse(L)`: `R` with `R(L(i)) == i` for `i < size(L)` (for injective `L`);
/// offsets `L` never reaches map to 0.
///
/// @pre each stride (but stride 0) is a multiple of the size inverted before it.
///
/// ```
/// use ferrocute_layout::{algebra::left_inverse, Value, Tup};
/// let l = Value::layout(Tup::leaf(4), Tup::leaf(2));
/// assert_eq!(left_inverse(&l).unwrap().to_string(), "(2,4):(0,1)");
/// ```
pub const fn left_inverse(l: &Value) -> Res {
    tri!(plain("left_inverse", l));
    let s = tri!(sorted_modes(l));
    let mut rs = Tup::EMPTY;
    let mut rd = Tup::flat(&[0]);
    let mut k = 0;
    while k < s.n {
        let i = s.order[k];
        let d = s.stride[i];
        if d != 0 {
            let sz = rs.size();
            if d % sz != 0 {
                return Err(err(
                    "left_inverse",
                    Condition::LeftInverseDivisibility,
                    d,
                    sz,
                ));
            }
            rs.push(&Tup::leaf(d / sz));
            rd.push(&Tup::leaf(s.preprod[i]));
        }
        k += 1;
    }
    let back = if s.n == 0 { 0 } else { s.order[s.n - 1] };
    rs.push(&Tup::leaf(s.shape[back]));
    coalesce(&Value::layout(rs, rd))
}

/// CuTe's `max_common_layout(a, b)`: the layout of the longest run of elements that `a` and
/// `b` both map contiguously.
///
/// @post `a(R(i)) == i` and `b(R(i)) == i` for `i < size(R)`.
pub const fn max_common_layout(a: &Value, b: &Value) -> Res {
    let inv_b = tri!(right_inverse(b));
    let common = tri!(coalesce(&tri!(composition(a, &inv_b))));
    let m0 = common.mode(0);
    if m0.stride.leaf_at(0) == 1 && m0.shape.is_leaf() {
        composition(&inv_b, &m0)
    } else {
        Ok(Value::layout(Tup::leaf(1), Tup::leaf(0)))
    }
}

/// CuTe's `max_common_vector(a, b)`: how many leading elements `a` and `b` both map
/// contiguously (at least 1).
///
/// ```
/// use ferrocute_layout::{algebra::max_common_vector, algebra::make_layout, Tup};
/// let a = make_layout(&Tup::flat(&[8, 4]));
/// assert_eq!(max_common_vector(&a, &a), Ok(32));
/// ```
pub const fn max_common_vector(a: &Value, b: &Value) -> Result<usize, LayoutError> {
    let inv_b = tri!(right_inverse(b));
    let common = tri!(coalesce(&tri!(composition(a, &inv_b))));
    let m0 = common.mode(0);
    if m0.stride.leaf_at(0) == 1 && m0.shape.is_leaf() {
        Ok(m0.shape.value())
    } else {
        Ok(1)
    }
}
