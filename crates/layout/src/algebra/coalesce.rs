//! `coalesce` and `filter`: the simplest layout with the same function.

use super::{err, plain, Res};
use crate::error::Condition;
use crate::tup::Tup;
use crate::value::Value;

/// CuTe's `coalesce(layout)`: flattens, drops size-1 modes and merges neighbours where
/// `s0 * d0 == d1`; a single remaining mode comes back as an integer, all size-1 as `1:0`.
///
/// @post `size(R) == size(L)` and `R(i) == L(i)` for all `i < size(L)`.
///
/// ```
/// use ferrocute_layout::{algebra::coalesce, Value, Tup};
/// let l = Value::layout(Tup::pair(&Tup::leaf(2), &Tup::flat(&[1, 6])), Tup::pair(&Tup::leaf(1), &Tup::flat(&[6, 2])));
/// assert_eq!(l.to_string(), "(2,(1,6)):(1,(6,2))");
/// assert_eq!(coalesce(&l).unwrap().to_string(), "12:1");
/// ```
pub const fn coalesce(l: &Value) -> Res {
    tri!(plain("coalesce", l));
    Ok(bw_coalesce(l, false))
}

/// The variant CuTe's `composition` coalesces its left operand with: a trailing size-1 mode
/// keeps its stride (as a size-2 placeholder), so that `(4,1):(1,0) ∘ 8:1 = (4,2):(1,0)`.
pub(crate) const fn coalesce_x(l: &Value) -> Value {
    bw_coalesce(l, true)
}

const fn bw_coalesce(l: &Value, keep_last: bool) -> Value {
    let fs = l.shape.flatten().as_tuple();
    let fd = l.stride.flatten().as_tuple();
    let r = fs.rank();
    if r == 0 {
        return Value::layout(Tup::leaf(1), Tup::leaf(0));
    }
    // Modes of the result, front first, built back to front in `rs`/`rd` (reversed).
    let mut rs = [0usize; 48];
    let mut rd = [0usize; 48];
    let mut n = 1;
    let mut scalar = true;
    rs[0] = fs.leaf_at(r - 1);
    rd[0] = fd.leaf_at(r - 1);
    if keep_last && rs[0] == 1 {
        rs[0] = 2;
    }
    let mut i = r - 1;
    while i > 0 {
        i -= 1;
        let s = fs.leaf_at(i);
        let d = fd.leaf_at(i);
        if s == 1 {
            continue;
        }
        if scalar && rs[0] == 1 {
            rs[0] = s;
            rd[0] = d;
        } else if s * d == rd[n - 1] {
            rs[n - 1] *= s;
            rd[n - 1] = d;
        } else {
            rs[n] = s;
            rd[n] = d;
            n += 1;
            scalar = false;
        }
    }
    if scalar {
        return if rs[0] == 1 {
            Value::layout(Tup::leaf(1), Tup::leaf(0))
        } else {
            Value::layout(Tup::leaf(rs[0]), Tup::leaf(rd[0]))
        };
    }
    let mut shape = Tup::EMPTY;
    let mut stride = Tup::EMPTY;
    let mut k = n;
    while k > 0 {
        k -= 1;
        shape.push(&Tup::leaf(rs[k]));
        stride.push(&Tup::leaf(rd[k]));
    }
    Value::layout(shape, stride)
}

/// CuTe's `coalesce(layout, profile)`: coalesces mode by mode where `profile` is a tuple
/// (modes past the profile stay as they are), the whole layout where it is an integer.
///
/// ```
/// use ferrocute_layout::{algebra::{coalesce_profile, make_layout}, Tup};
/// let l = make_layout(&Tup::tuple(&[Tup::flat(&[2, 2]), Tup::flat(&[3, 1])]));
/// let p = Tup::flat(&[1, 1]);
/// assert_eq!(coalesce_profile(&l, &p).unwrap().to_string(), "(4,3):(1,4)");
/// ```
pub const fn coalesce_profile(l: &Value, profile: &Tup) -> Res {
    tri!(plain("coalesce", l));
    if profile.is_leaf() {
        return Ok(bw_coalesce(l, false));
    }
    if profile.rank() > l.rank() {
        return Err(err(
            "coalesce",
            Condition::ProfileTooLong,
            profile.rank(),
            l.rank(),
        ));
    }
    let mut out = Value::of_modes(&[]);
    let mut i = 0;
    while i < l.rank() {
        let m = l.mode(i);
        if i < profile.rank() {
            out.push_mode(&tri!(coalesce_profile(&m, &profile.get(i))));
        } else {
            out.push_mode(&m);
        }
        i += 1;
    }
    Ok(out)
}

/// CuTe's `filter(layout)`: `coalesce` after dropping stride-0 modes.
///
/// ```
/// use ferrocute_layout::{algebra::filter, Value, Tup};
/// let l = Value::layout(Tup::flat(&[4, 2, 3]), Tup::flat(&[1, 0, 4]));
/// assert_eq!(filter(&l).unwrap().to_string(), "12:1");
/// ```
pub const fn filter(l: &Value) -> Res {
    tri!(plain("filter", l));
    Ok(bw_coalesce(&super::filter_zeros(l), false))
}
