//! `logical_product` and its regroupings, `blocked_product`, `raked_product`.

use super::composition::is_by_mode;
use super::divide::{tile_layout, unpack, zip2_by};
use super::{complement, err, pad_rank, plain, zip, Res};
use crate::error::Condition;
use crate::tup::Tup;
use crate::value::Value;

/// CuTe's `logical_product(A, B)`: `(A, complement(A, size(A)*cosize(B)) ∘ B)` — `B`
/// copies of `A`, laid out as `B` says; by-mode tilers multiply mode by mode.
///
/// ```
/// use ferrocute_layout::{algebra::logical_product, Value, Tup};
/// let a = Value::layout(Tup::flat(&[2, 2]), Tup::flat(&[4, 1]));
/// let b = Value::layout(Tup::leaf(6), Tup::leaf(1));
/// assert_eq!(logical_product(&a, &b).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// ```
pub const fn logical_product(a: &Value, b: &Value) -> Res {
    match product(a, b) {
        Ok(v) => Ok(v),
        Err(e) => Err(e.within("logical_product")),
    }
}

const fn product(a: &Value, b: &Value) -> Res {
    tri!(plain("logical_product", a));
    if is_by_mode(b) {
        if b.rank() > a.rank() {
            return Err(err(
                "logical_product",
                Condition::TooManyModes,
                b.rank(),
                a.rank(),
            ));
        }
        let mut out = Value::of_modes(&[]);
        let mut i = 0;
        while i < a.rank() {
            if i < b.rank() {
                out.push_mode(&tri!(product(&a.mode(i), &b.mode(i))));
            } else {
                out.push_mode(&a.mode(i));
            }
            i += 1;
        }
        return Ok(out);
    }
    let tile = tile_layout(b);
    let c = tri!(complement(a, &Tup::leaf(a.size() * tile.cosize())));
    let rest = tri!(super::composition::composition_cpp(&c, &tile));
    Ok(Value::of_modes(&[*a, rest]))
}

/// CuTe's `zipped_product(A, B)`: `((A modes),(B modes))`.
pub const fn zipped_product(a: &Value, b: &Value) -> Res {
    let p = tri!(logical_product(a, b));
    match zip2_by(&p, b) {
        Ok(v) => Ok(v),
        Err(e) => Err(e.within("zipped_product")),
    }
}

/// CuTe's `tiled_product(A, B)`: `((A modes),B0,B1,...)`.
pub const fn tiled_product(a: &Value, b: &Value) -> Res {
    let z = tri!(zipped_product(a, b));
    Ok(unpack(&z, false))
}

/// CuTe's `flat_product(A, B)`: `(A0,A1,...,B0,B1,...)`.
pub const fn flat_product(a: &Value, b: &Value) -> Res {
    let z = tri!(zipped_product(a, b));
    Ok(unpack(&z, true))
}

const fn padded_product(a: &Value, b: &Value) -> Res {
    let r = if a.rank() > b.rank() {
        a.rank()
    } else {
        b.rank()
    };
    logical_product(&pad_rank(a, r), &pad_rank(b, r))
}

/// CuTe's `blocked_product(A, B)`: mode by mode, `A` is the block and `B` counts blocks:
/// `((A0,B0),(A1,B1),...)`.
///
/// ```
/// use ferrocute_layout::{algebra::{blocked_product, make_layout}, Tup};
/// let a = make_layout(&Tup::flat(&[2, 2]));
/// let b = make_layout(&Tup::flat(&[3, 4]));
/// assert_eq!(blocked_product(&a, &b).unwrap().to_string(), "((2,3),(2,4)):((1,4),(2,12))");
/// ```
pub const fn blocked_product(a: &Value, b: &Value) -> Res {
    let p = tri!(padded_product(a, b));
    match zip(&p.mode(0), &p.mode(1)) {
        Ok(v) => Ok(v),
        Err(e) => Err(e.within("blocked_product")),
    }
}

/// CuTe's `raked_product(A, B)`: like `blocked_product` with `B` innermost:
/// `((B0,A0),(B1,A1),...)`, so the copies of `A` interleave.
pub const fn raked_product(a: &Value, b: &Value) -> Res {
    let p = tri!(padded_product(a, b));
    match zip(&p.mode(1), &p.mode(0)) {
        Ok(v) => Ok(v),
        Err(e) => Err(e.within("raked_product")),
    }
}
