//! Mode surgery: `get`, `select`, `take`, `group_modes`, `append`, `prepend`, `replace`,
//! `flatten`.

use super::{err, Res};
use crate::error::Condition;
use crate::value::Value;

const fn check_mode(op: &'static str, l: &Value, i: usize) -> Result<(), crate::LayoutError> {
    if i >= l.rank() {
        Err(err(op, Condition::ModeOutOfRange, i, l.rank()))
    } else {
        Ok(())
    }
}

/// CuTe's `layout<I>(L)`: mode `i` as a layout.
///
/// ```
/// use ferrocute_layout::{algebra::{get, make_layout}, Tup};
/// let l = make_layout(&Tup::pair(&Tup::leaf(4), &Tup::flat(&[2, 2])));
/// assert_eq!(get(&l, 1).unwrap().to_string(), "(2,2):(4,8)");
/// ```
pub const fn get(l: &Value, i: usize) -> Res {
    match check_mode("get", l, i) {
        Ok(()) => Ok(l.mode(i)),
        Err(e) => Err(e),
    }
}

/// CuTe's `select<I...>(L)`: the listed modes, in the listed order.
pub const fn select(l: &Value, idx: &[usize]) -> Res {
    let mut out = Value::of_modes(&[]);
    let mut k = 0;
    while k < idx.len() {
        if let Err(e) = check_mode("select", l, idx[k]) {
            return Err(e);
        }
        out.push_mode(&l.mode(idx[k]));
        k += 1;
    }
    Ok(out)
}

/// CuTe's `take<B,E>(L)`: modes `[b, e)`, as a tuple (a single mode stays a 1-tuple).
pub const fn take(l: &Value, b: usize, e: usize) -> Res {
    if b >= e || e > l.rank() {
        return Err(err("take", Condition::ModeOutOfRange, e, l.rank()));
    }
    Ok(Value::layout(l.shape.range(b, e), l.stride.range(b, e)))
}

/// CuTe's `group<B,E>(L)` (`group_modes`): modes `[b, e)` become one mode.
pub const fn group_modes(l: &Value, b: usize, e: usize) -> Res {
    if b > e || e > l.rank() {
        return Err(err("group_modes", Condition::ModeOutOfRange, e, l.rank()));
    }
    if b == e {
        // An empty range groups nothing (CuTe returns the layout unchanged).
        return Ok(*l);
    }
    let s = l.shape.as_tuple();
    let d = l.stride.as_tuple();
    let mut shape = s.range(0, b);
    let mut stride = d.range(0, b);
    shape.push(&s.range(b, e));
    stride.push(&d.range(b, e));
    let mut i = e;
    while i < s.rank() {
        shape.push(&s.get(i));
        stride.push(&d.get(i));
        i += 1;
    }
    Ok(Value::layout(shape, stride))
}

/// CuTe's `append(L, X)`: `X` as a new last mode.
pub const fn append(l: &Value, x: &Value) -> Value {
    Value::layout(l.shape.append(&x.shape), l.stride.append(&x.stride))
}

/// CuTe's `prepend(L, X)`: `X` as a new first mode.
pub const fn prepend(l: &Value, x: &Value) -> Value {
    Value::layout(l.shape.prepend(&x.shape), l.stride.prepend(&x.stride))
}

/// CuTe's `replace<I>(L, X)`: mode `i` becomes `X`.
pub const fn replace(l: &Value, i: usize, x: &Value) -> Res {
    if let Err(e) = check_mode("replace", l, i) {
        return Err(e);
    }
    if l.shape.is_leaf() {
        return Ok(*x);
    }
    Ok(Value::layout(
        l.shape.replace(i, &x.shape),
        l.stride.replace(i, &x.stride),
    ))
}

/// CuTe's `flatten(L)`: every leaf a top-level mode.
pub const fn flatten(l: &Value) -> Value {
    l.with_inner(&Value::layout(l.shape.flatten(), l.stride.flatten()))
}
