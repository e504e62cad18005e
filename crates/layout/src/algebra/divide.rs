//! `logical_divide` and its regroupings `zipped_divide`, `tiled_divide`, `flat_divide`.

use super::composition::{is_by_mode, is_int_tile};
use super::{coalesce, complement, composition, err, Res};
use crate::error::Condition;
use crate::tup::Tup;
use crate::value::Value;

/// A tiler element as the layout CuTe makes of it (`make_layout(n)` for an integer `n`).
pub(crate) const fn tile_layout(t: &Value) -> Value {
    if is_int_tile(t) {
        super::make_layout(&Tup::leaf(t.shape.value()))
    } else {
        *t
    }
}

/// CuTe's `logical_divide(L, T)`: `((tile),(rest))`, where `tile` is `L` seen through `T`
/// and `rest` walks the tiles; by-mode tilers divide mode by mode and keep the extra modes.
///
/// A tiler that does not divide `L` is allowed: `logical_divide(6:1, 4:1) = (4,2):(1,4)`.
///
/// ```
/// use ferrocute_layout::{algebra::logical_divide, Value, Tup};
/// let l = Value::layout(Tup::leaf(16), Tup::leaf(1));
/// let t = Value::layout(Tup::leaf(4), Tup::leaf(2));
/// assert_eq!(logical_divide(&l, &t).unwrap().to_string(), "(4,(2,2)):(2,(1,8))");
/// ```
pub const fn logical_divide(l: &Value, t: &Value) -> Res {
    match divide(l, t) {
        Ok(v) => Ok(v),
        Err(e) => Err(e.within("logical_divide")),
    }
}

const fn divide(l: &Value, t: &Value) -> Res {
    if is_by_mode(t) {
        if t.rank() > l.rank() {
            return Err(err(
                "logical_divide",
                Condition::TooManyModes,
                t.rank(),
                l.rank(),
            ));
        }
        let mut out = Value::of_modes(&[]);
        let mut i = 0;
        while i < l.rank() {
            if i < t.rank() {
                out.push_mode(&tri!(divide(&l.mode(i), &t.mode(i))));
            } else {
                out.push_mode(&l.mode(i));
            }
            i += 1;
        }
        return Ok(out.with_swizzle_of(l));
    }
    let tile = tile_layout(t);
    let shape = tri!(coalesce(&l.inner())).shape;
    let rest = tri!(complement(&tile, &shape));
    composition(l, &Value::of_modes(&[tile, rest]))
}

impl Value {
    /// This layout with `src`'s swizzle and offset (for results rebuilt mode by mode).
    pub(crate) const fn with_swizzle_of(mut self, src: &Value) -> Value {
        self.composed = src.composed;
        self.swizzle = src.swizzle;
        self.offset = src.offset;
        self
    }
}

/// CuTe's `zip2_by`: regroups `((A,a),((B,b),(C,c)),d)` into `((A,(B,C)),(a,(b,c),d))`
/// following the terminals of the tiler.
pub(crate) const fn zip2_by(l: &Value, t: &Value) -> Res {
    if !is_by_mode(t) {
        if l.shape.is_leaf() || l.rank() != 2 {
            return Err(err("zip2_by", Condition::RankMismatch, l.rank(), 2));
        }
        return Ok(*l);
    }
    if l.shape.is_leaf() || l.rank() < t.rank() {
        return Err(err("zip2_by", Condition::RankMismatch, l.rank(), t.rank()));
    }
    let mut first = Value::of_modes(&[]);
    let mut second = Value::of_modes(&[]);
    let mut i = 0;
    while i < t.rank() {
        let split = tri!(zip2_by(&l.mode(i), &t.mode(i)));
        first.push_mode(&split.mode(0));
        second.push_mode(&split.mode(1));
        i += 1;
    }
    while i < l.rank() {
        second.push_mode(&l.mode(i));
        i += 1;
    }
    Ok(Value::of_modes(&[first, second]))
}

/// CuTe's `zipped_divide(L, T)`: `((tiles),(rests))` — mode 0 indexes inside a tile,
/// mode 1 selects the tile.
///
/// ```
/// use ferrocute_layout::{algebra::{zipped_divide, make_layout, shape_tiler}, Tup};
/// let l = make_layout(&Tup::flat(&[8, 6]));
/// let t = shape_tiler(&Tup::flat(&[2, 3]));
/// assert_eq!(zipped_divide(&l, &t).unwrap().to_string(), "((2,3),(4,2)):((1,8),(2,24))");
/// ```
pub const fn zipped_divide(l: &Value, t: &Value) -> Res {
    let d = tri!(logical_divide(l, t));
    match zip2_by(&d.inner(), t) {
        Ok(v) => Ok(v.with_swizzle_of(l)),
        Err(e) => Err(e.within("zipped_divide")),
    }
}

/// Splices the sub-modes of mode 1 (and of mode 0 if `flat0`) into the top level, as
/// CuTe's `result(_, repeat<R1>(_))` does; a rank-1 mode stays as it is.
pub(crate) const fn unpack(z: &Value, flat0: bool) -> Value {
    let mut out = Value::of_modes(&[]);
    let m0 = z.mode(0);
    if flat0 && !m0.shape.is_leaf() && m0.rank() > 1 {
        let mut i = 0;
        while i < m0.rank() {
            out.push_mode(&m0.mode(i));
            i += 1;
        }
    } else {
        out.push_mode(&m0);
    }
    let m1 = z.mode(1);
    if !m1.shape.is_leaf() && m1.rank() > 1 {
        let mut i = 0;
        while i < m1.rank() {
            out.push_mode(&m1.mode(i));
            i += 1;
        }
    } else {
        out.push_mode(&m1);
    }
    out.with_swizzle_of(z)
}

/// CuTe's `tiled_divide(L, T)`: `((tiles),rest0,rest1,...)`.
pub const fn tiled_divide(l: &Value, t: &Value) -> Res {
    let z = tri!(zipped_divide(l, t));
    Ok(unpack(&z, false))
}

/// CuTe's `flat_divide(L, T)`: `(tile0,tile1,...,rest0,rest1,...)`.
pub const fn flat_divide(l: &Value, t: &Value) -> Res {
    let z = tri!(zipped_divide(l, t));
    Ok(unpack(&z, true))
}
