//! `complement`: the layout of the offsets a layout does not reach.

use super::{ceil_div_tuple, coalesce, compact_left, err, filter, plain, Res};
use crate::error::Condition;
use crate::tup::Tup;
use crate::value::Value;

/// CuTe's `complement(layout, cotarget)`: a layout `R`, ordered by stride, such that
/// `(layout, R)` is injective and covers `cotarget` (an integer or a shape).
///
/// @pre `layout` is injective once stride-0 modes are removed.
/// @post `R` is disjoint from `layout` and `cosize(make_layout(layout, R)) >= size(cotarget)`.
///
/// ```
/// use ferrocute_layout::{algebra::complement, Value, Tup};
/// let a = Value::layout(Tup::leaf(4), Tup::leaf(2));
/// assert_eq!(complement(&a, &Tup::leaf(24)).unwrap().to_string(), "(2,3):(1,8)");
/// ```
pub const fn complement(l: &Value, cotarget: &Tup) -> Res {
    tri!(plain("complement", l));
    let f = tri!(filter(l));
    complement_impl(&f, cotarget)
}

/// CuTe's `complement(layout)`: the complement up to the layout's own cosize.
pub const fn complement_cosize(l: &Value) -> Res {
    tri!(plain("complement", l));
    let f = tri!(filter(l));
    complement_impl(&f, &Tup::leaf(f.cosize()))
}

const fn complement_impl(f: &Value, cotarget: &Tup) -> Res {
    if f.stride.is_leaf() && f.stride.value() == 0 {
        let c = coalesce_shape(cotarget);
        return Ok(super::make_layout(&c));
    }
    let mut shape = [0usize; 48];
    let mut stride = [0usize; 48];
    let r = f.shape.leaf_count();
    let mut k = 0;
    while k < r {
        shape[k] = f.shape.leaf_at(k);
        stride[k] = f.stride.leaf_at(k);
        k += 1;
    }
    let mut live = r;
    let mut res_shape = Tup::EMPTY;
    let mut res_stride = Tup::flat(&[1]);
    let mut last_stride = 1usize;
    let mut i = 0;
    while i + 1 < r {
        // The first minimum stride.
        let mut m = 0;
        let mut j = 1;
        while j < live {
            if stride[j] < stride[m] {
                m = j;
            }
            j += 1;
        }
        let min_stride = stride[m];
        let new_shape = min_stride / last_stride;
        if new_shape == 0 {
            return Err(err(
                "complement",
                Condition::NonInjective,
                min_stride,
                last_stride,
            ));
        }
        let new_stride = min_stride * shape[m];
        // Remove mode m.
        let mut j = m;
        while j + 1 < live {
            shape[j] = shape[j + 1];
            stride[j] = stride[j + 1];
            j += 1;
        }
        live -= 1;
        res_shape.push(&Tup::leaf(new_shape));
        res_stride.push(&Tup::leaf(new_stride));
        last_stride = new_stride;
        i += 1;
    }
    let new_shape = stride[0] / last_stride;
    if new_shape == 0 {
        return Err(err(
            "complement",
            Condition::NonInjective,
            stride[0],
            last_stride,
        ));
    }
    res_shape.push(&Tup::leaf(new_shape));
    let new_stride = stride[0] * shape[0];
    let rest_shape = coalesce_shape(&ceil_div_tuple(cotarget, new_stride));
    let rest_stride = compact_left(&rest_shape, new_stride).0;
    let full = Value::layout(
        Tup::pair(&res_shape, &rest_shape),
        Tup::pair(&res_stride, &rest_stride),
    );
    coalesce(&full)
}

/// CuTe's `coalesce(shape)` for static shapes: the product, as one integer.
pub const fn coalesce_shape(s: &Tup) -> Tup {
    Tup::leaf(s.size())
}
