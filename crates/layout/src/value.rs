//! `Value`: what every layout type denotes — a layout `shape:stride`, optionally behind a
//! swizzle and offset (CuTe's `ComposedLayout<Swizzle,Offset,Layout>`), an integer tuple,
//! or a tiler. All algebra is `const fn` over `Value`s (see [`crate::algebra`]).

use crate::tup::{Tup, FLAG_BY_MODE};
use core::fmt;

/// What a [`Value`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A layout `shape:stride` (possibly swizzled).
    Layout,
    /// An integer tuple (a shape, a coordinate, a profile), held in `shape`.
    Tuple,
}

/// CuTe's `Swizzle<B,M,S>` as a value: XOR the `B` bits at `M + max(0,S)` into the bits at
/// `M - min(0,S)`. `B == 0` is the identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwizzleFn {
    /// Number of bits in the mask.
    pub b: u32,
    /// Number of least-significant bits kept constant.
    pub m: u32,
    /// Distance to shift the mask (negative: shift the other way).
    pub s: i32,
}

impl SwizzleFn {
    /// The identity swizzle `Sw<0,0,0>`.
    pub const IDENTITY: SwizzleFn = SwizzleFn { b: 0, m: 0, s: 0 };

    /// Applies the swizzle to an offset.
    ///
    /// ```
    /// use ferrocute_layout::SwizzleFn;
    /// let sw = SwizzleFn { b: 3, m: 3, s: 3 };
    /// assert_eq!(sw.apply(0b1_000_000), 0b1_001_000);
    /// ```
    #[inline(always)]
    pub const fn apply(&self, x: usize) -> usize {
        if self.b == 0 {
            return x;
        }
        let bits = (1usize << self.b) - 1;
        if self.s >= 0 {
            let yyy = bits << (self.m + self.s as u32);
            x ^ ((x & yyy) >> self.s as u32)
        } else {
            let yyy = bits << self.m;
            x ^ ((x & yyy) << (-self.s) as u32)
        }
    }
}

/// A layout, integer tuple or tiler as a plain value (see the module docs).
#[derive(Clone, Copy)]
pub struct Value {
    /// What this value is.
    pub kind: ValueKind,
    /// The shape (or the integer tuple itself).
    pub shape: Tup,
    /// The stride, congruent with `shape` (unused for tuples).
    pub stride: Tup,
    /// The swizzle applied after the layout (identity for plain layouts).
    pub swizzle: SwizzleFn,
    /// The offset added before the swizzle.
    pub offset: usize,
    /// Whether this is a composed layout (printed `Sw<..> o off o layout`).
    pub composed: bool,
}

impl Value {
    /// The layout `shape:stride`.
    pub const fn layout(shape: Tup, stride: Tup) -> Value {
        Value {
            kind: ValueKind::Layout,
            shape,
            stride,
            swizzle: SwizzleFn::IDENTITY,
            offset: 0,
            composed: false,
        }
    }

    /// The integer tuple `t`.
    pub const fn tuple(t: Tup) -> Value {
        Value {
            kind: ValueKind::Tuple,
            shape: t,
            stride: t,
            swizzle: SwizzleFn::IDENTITY,
            offset: 0,
            composed: false,
        }
    }

    /// A tiler applied mode by mode: mode `i` of a layout meets `parts[i]` (each a layout,
    /// or itself a by-mode tiler).
    pub const fn tiler(parts: &[Value]) -> Value {
        let mut shape = Tup::EMPTY;
        let mut stride = Tup::EMPTY;
        let mut i = 0;
        while i < parts.len() {
            shape.push(&parts[i].shape);
            stride.push(&parts[i].stride);
            i += 1;
        }
        Value::layout(shape.with_flags(FLAG_BY_MODE), stride)
    }

    /// `swizzle ∘ offset ∘ layout` (CuTe's `ComposedLayout`).
    pub const fn composed(swizzle: SwizzleFn, offset: usize, layout: &Value) -> Value {
        let mut v = *layout;
        v.swizzle = swizzle;
        v.offset = offset;
        v.composed = true;
        v
    }

    /// The plain layout inside (drops swizzle and offset).
    pub const fn inner(&self) -> Value {
        Value::layout(self.shape, self.stride)
    }

    /// This value with another inner layout, keeping swizzle and offset.
    pub const fn with_inner(&self, inner: &Value) -> Value {
        let mut v = *self;
        v.shape = inner.shape;
        v.stride = inner.stride;
        v
    }

    /// Whether this is a tiler applied mode by mode.
    pub const fn is_by_mode(&self) -> bool {
        !self.shape.is_leaf() && self.shape.flags() & FLAG_BY_MODE != 0
    }

    /// Number of top-level modes.
    pub const fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// Nesting depth of the shape.
    pub const fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// Product of the shape.
    pub const fn size(&self) -> usize {
        self.shape.size()
    }

    /// CuTe's `cosize`: one past the largest offset, `L(size(L) - 1) + 1`; for a swizzled
    /// layout, the cosize of the layout inside (as CuTe defines it).
    pub const fn cosize(&self) -> usize {
        let s = self.size();
        if s == 0 {
            return 0;
        }
        self.inner().eval(s - 1) + 1
    }

    /// Mode `i` as a layout (or a tuple for tuple values).
    pub const fn mode(&self, i: usize) -> Value {
        let mut v = *self;
        v.shape = self.shape.get(i);
        v.stride = self.stride.get(i);
        v.composed = false;
        v.swizzle = SwizzleFn::IDENTITY;
        v.offset = 0;
        v
    }

    /// A layout whose modes are `modes`, in order (CuTe's `make_layout(l0, l1, ...)`).
    pub const fn of_modes(modes: &[Value]) -> Value {
        let mut shape = Tup::EMPTY;
        let mut stride = Tup::EMPTY;
        let mut i = 0;
        while i < modes.len() {
            shape.push(&modes[i].shape);
            stride.push(&modes[i].stride);
            i += 1;
        }
        Value::layout(shape, stride)
    }

    /// Appends a layout as a new last mode.
    pub const fn push_mode(&mut self, m: &Value) {
        self.shape.push(&m.shape);
        self.stride.push(&m.stride);
    }

    /// Evaluates the layout at a 1-D index (CuTe's `layout(i)`), swizzle included.
    ///
    /// Indices past `size` continue along the last mode, as in CuTe.
    pub const fn eval(&self, i: usize) -> usize {
        let off = crd2idx_int(i, &self.shape, &self.stride);
        if self.composed {
            self.swizzle.apply(self.offset + off)
        } else {
            off
        }
    }

    /// Structural equality (kind, shape, stride, swizzle, offset).
    pub const fn equals(&self, o: &Value) -> bool {
        self.shape.equals(&o.shape)
            && (matches!(self.kind, ValueKind::Tuple) || self.stride.equals(&o.stride))
            && self.composed == o.composed
            && self.offset == o.offset
            && self.swizzle.b == o.swizzle.b
            && self.swizzle.m == o.swizzle.m
            && self.swizzle.s == o.swizzle.s
    }
}

/// CuTe's `crd2idx` for an integer coordinate: modes but the last take `c mod size(mode)`,
/// the last takes what is left.
pub const fn crd2idx_int(c: usize, shape: &Tup, stride: &Tup) -> usize {
    if shape.is_leaf() {
        return c * stride.value();
    }
    let r = shape.rank();
    if r == 0 {
        return 0;
    }
    let mut c = c;
    let mut idx = 0;
    let mut i = 0;
    while i + 1 < r {
        let s = shape.get(i);
        let n = s.size();
        idx += crd2idx_int(c % n, &s, &stride.get(i));
        c /= n;
        i += 1;
    }
    idx + crd2idx_int(c, &shape.get(r - 1), &stride.get(r - 1))
}

impl PartialEq for Value {
    fn eq(&self, o: &Value) -> bool {
        self.equals(o)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Value {
    /// CuTe's `print`: `(4,3):(1,4)`, `Sw<3,4,3> o 0 o (8,64):(64,1)`, or the tuple.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let ValueKind::Tuple = self.kind {
            return fmt::Display::fmt(&self.shape, f);
        }
        if self.composed {
            write!(
                f,
                "Sw<{},{},{}> o {} o ",
                self.swizzle.b, self.swizzle.m, self.swizzle.s, self.offset
            )?;
        }
        write!(f, "{}:{}", self.shape, self.stride)
    }
}
