//! `composition`: the layout `R` with `R(c) == A(B(c))`.

use super::{coalesce_x, err, Res};
use crate::error::{Condition, LayoutError};
use crate::tup::{Tup, FLAG_BY_MODE, MAX_NODES};
use crate::value::Value;

/// Tiler leaf flag: this element of a by-mode tiler was an integer `n`, which CuTe reads as
/// `n:1` in `composition` but as `make_layout(n)` in the divides and products.
pub const FLAG_INT_TILE: u8 = 4;

/// CuTe's `composition(A, B)`: `B` is a layout, or a tiler (a by-mode tuple of layouts and
/// integers, or a shape), applied to the modes of `A`; modes of `A` past the tiler are dropped.
///
/// @pre each right stride divides, or is a multiple of, the left mode it lands in, and each
///      shape taken divides what is left of the right shape (CuTe's divisibility conditions);
///      ferrocute also rejects the inputs CuTe C++ lets through whose result is not `A(B(c))`
///      (a right stride smaller than a left mode it does not divide, continuing past it), and
///      those where the right layout's modes, added together, carry from one mode of
///      `coalesce(A)` into the next (each mode alone lands well, the sum does not: the
///      result could not be `A(B(c))`, see [`Condition::ModesCarry`]).
/// @post `R(c) == A(B(c))` for every coordinate `c` of `B`; `R` is congruent with `B`.
///
/// ```
/// use ferrocute_layout::{algebra::composition, Value, Tup};
/// let a = Value::layout(Tup::flat(&[4, 3]), Tup::flat(&[3, 1]));
/// let b = Value::layout(Tup::leaf(16), Tup::leaf(1));
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "(4,4):(3,1)");
/// ```
pub const fn composition(a: &Value, b: &Value) -> Res {
    compose(a, b, true)
}

/// `composition` exactly as CuTe C++ computes it, without ferrocute's stricter check; the
/// products use it so that `logical_product`, `blocked_product` and `tile_to_shape` give
/// CuTe's results even where its inner composition is not `A(B(c))`.
pub(crate) const fn composition_cpp(a: &Value, b: &Value) -> Res {
    compose(a, b, false)
}

const fn compose(a: &Value, b: &Value, strict: bool) -> Res {
    if a.composed {
        // (sw ∘ off ∘ L) ∘ B = sw ∘ off ∘ (L ∘ B)
        let inner = tri!(compose(&a.inner(), b, strict));
        // CuTe drops an identity swizzle (Swizzle<0,M,S>) with no offset.
        if a.swizzle.b == 0 && a.offset == 0 {
            return Ok(inner);
        }
        return Ok(a.with_inner(&inner));
    }
    if b.is_by_mode() {
        if b.rank() > a.rank() {
            return Err(err(
                "composition",
                Condition::TooManyModes,
                b.rank(),
                a.rank(),
            ));
        }
        let mut out = Value::of_modes(&[]);
        let mut i = 0;
        while i < b.rank() {
            out.push_mode(&tri!(compose(&a.mode(i), &b.mode(i), strict)));
            i += 1;
        }
        return Ok(out);
    }
    let fa = coalesce_x(a);
    let r = tri!(composition_impl(
        &fa.shape, &fa.stride, &b.shape, &b.stride, strict
    ));
    if strict {
        tri!(no_carry(&fa.shape, &b.shape, &b.stride));
    }
    Ok(r)
}

/// Rejects a right layout whose modes, added together, carry from one mode of the
/// (coalesced) left layout into the next.
///
/// Composition maps each right mode through `A` on its own and adds the results, which is
/// `A(B(c))` exactly when the left layout is additive over the sum: in the mixed radix of
/// `A`'s shape, adding the modes' offsets must never carry out of a bounded mode (a carry
/// costs `d[i+1] - s[i]*d[i]`, nonzero after coalescing). Each mode's offsets `j * d` reach
/// a largest digit in each left mode; no sum carries iff, mode by mode, the largest digits
/// add up to less than the left shape (then no lower mode carries either, by induction).
const fn no_carry(ls: &Tup, rs: &Tup, rd: &Tup) -> Result<(), LayoutError> {
    if ls.is_leaf() {
        return Ok(());
    }
    let r = ls.rank();
    // Largest digit each left mode can hold, summed over the right modes.
    let mut top = [0usize; MAX_NODES];
    let mut k = 0;
    while k < rs.leaf_count() {
        let mut shape = rs.leaf_at(k);
        let mut stride = rd.leaf_at(k);
        let mut i = 0;
        while i + 1 < r && shape > 1 && stride > 0 {
            let s = ls.leaf_at(i);
            if stride >= s {
                // Passes over this mode (a multiple of it, by the divisibility check).
                stride /= s;
            } else {
                let take = min(s.div_ceil(stride), shape);
                top[i] += (take - 1) * stride;
                shape /= take;
                stride = 1;
            }
            i += 1;
        }
        k += 1;
    }
    let mut i = 0;
    while i + 1 < r {
        if top[i] >= ls.leaf_at(i) {
            return Err(err(
                "composition",
                Condition::ModesCarry,
                ls.leaf_at(i),
                top[i],
            ));
        }
        i += 1;
    }
    Ok(())
}

const fn min(a: usize, b: usize) -> usize {
    if a < b {
        a
    } else {
        b
    }
}

const fn composition_impl(ls: &Tup, ld: &Tup, rs: &Tup, rd: &Tup, strict: bool) -> Res {
    if !rs.is_leaf() {
        let mut out = Value::of_modes(&[]);
        let mut i = 0;
        while i < rs.rank() {
            out.push_mode(&tri!(composition_impl(
                ls,
                ld,
                &rs.get(i),
                &rd.get(i),
                strict
            )));
            i += 1;
        }
        return Ok(out);
    }
    let rest_shape0 = rs.value();
    let rest_stride0 = rd.value();
    if rest_stride0 == 0 {
        return Ok(Value::layout(Tup::leaf(rest_shape0), Tup::leaf(0)));
    }
    if ls.is_leaf() {
        return Ok(Value::layout(
            Tup::leaf(rest_shape0),
            Tup::leaf(rest_stride0 * ld.value()),
        ));
    }
    let r = ls.rank();
    let mut res_shape = Tup::EMPTY;
    let mut res_stride = Tup::EMPTY;
    let mut rest_shape = rest_shape0;
    let mut rest_stride = rest_stride0;
    let mut i = 0;
    while i + 1 < r {
        let curr_shape = ls.leaf_at(i);
        let curr_stride = ld.leaf_at(i);
        if curr_shape == 0 {
            return Err(err("composition", Condition::ZeroShape, 0, i));
        }
        if !(rest_stride.is_multiple_of(curr_shape) || rest_stride < curr_shape) {
            return Err(err(
                "composition",
                Condition::StrideDivisibility,
                curr_shape,
                rest_stride,
            ));
        }
        let next_shape = curr_shape.div_ceil(rest_stride);
        let next_stride = rest_stride.div_ceil(curr_shape);
        if next_shape == 1 || rest_shape == 1 {
            rest_stride = next_stride;
        } else {
            let new_shape = if next_shape < rest_shape {
                next_shape
            } else {
                rest_shape
            };
            if !rest_shape.is_multiple_of(new_shape) {
                return Err(err(
                    "composition",
                    Condition::ShapeDivisibility,
                    rest_shape,
                    new_shape,
                ));
            }
            if strict && !curr_shape.is_multiple_of(rest_stride) && new_shape != rest_shape {
                return Err(err(
                    "composition",
                    Condition::StrideStraddles,
                    curr_shape,
                    rest_stride,
                ));
            }
            res_shape.push(&Tup::leaf(new_shape));
            res_stride.push(&Tup::leaf(rest_stride * curr_stride));
            rest_shape /= new_shape;
            rest_stride = next_stride;
        }
        i += 1;
    }
    let last_stride = ld.leaf_at(r - 1);
    if res_shape.rank() == 0 {
        Ok(Value::layout(
            Tup::leaf(rest_shape),
            Tup::leaf(rest_stride * last_stride),
        ))
    } else if rest_shape == 1 {
        Ok(Value::layout(res_shape.unwrap(), res_stride.unwrap()))
    } else {
        res_shape.push(&Tup::leaf(rest_shape));
        res_stride.push(&Tup::leaf(rest_stride * last_stride));
        Ok(Value::layout(res_shape, res_stride))
    }
}

/// A shape as a by-mode tiler: every integer `n` is `n:1` (CuTe's tiler of a `Shape`).
pub const fn shape_tiler(shape: &Tup) -> Value {
    if shape.is_leaf() {
        let mut s = *shape;
        s = s.with_flags(FLAG_INT_TILE);
        return Value::layout(s, Tup::leaf(1));
    }
    let mut parts = [Value::layout(Tup::EMPTY, Tup::EMPTY); 16];
    let mut i = 0;
    while i < shape.rank() {
        parts[i] = shape_tiler(&shape.get(i));
        i += 1;
    }
    let (p, _) = parts.split_at(shape.rank());
    Value::tiler(p)
}

/// Whether a tiler element is an integer (see [`FLAG_INT_TILE`]).
pub(crate) const fn is_int_tile(t: &Value) -> bool {
    t.shape.is_leaf() && t.shape.flags() & FLAG_INT_TILE != 0
}

/// Whether `t` is a by-mode tiler (CuTe: `is_tuple<Tiler>`).
pub(crate) const fn is_by_mode(t: &Value) -> bool {
    !t.shape.is_leaf() && t.shape.flags() & FLAG_BY_MODE != 0
}
