//! `Flat`: a layout flattened to arrays of leaves, the form evaluation runs on.
//!
//! For a static layout this is a constant, so `layout.call(i)` unrolls into the same
//! divides, modulos and multiplies by constants one would write by hand.

use crate::tup::MAX_NODES;
use crate::value::{SwizzleFn, Value};

/// A layout as flat arrays of leaf shapes and strides (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Flat {
    n: usize,
    shape: [usize; MAX_NODES],
    stride: [usize; MAX_NODES],
    composed: bool,
    swizzle: SwizzleFn,
    offset: usize,
}

impl Flat {
    /// The flat form of `v`.
    pub const fn of(v: &Value) -> Flat {
        let n = v.shape.leaf_count();
        let mut f = Flat {
            n,
            shape: [1; MAX_NODES],
            stride: [0; MAX_NODES],
            composed: v.composed,
            swizzle: v.swizzle,
            offset: v.offset,
        };
        let mut k = 0;
        while k < n {
            f.shape[k] = v.shape.leaf_at(k);
            f.stride[k] = v.stride.leaf_at(k);
            k += 1;
        }
        f
    }

    /// The flat form of each top-level mode of `v` (up to 8 modes).
    pub const fn modes(v: &Value) -> [Flat; 8] {
        let mut out = [Flat::of(&Value::layout(crate::Tup::leaf(1), crate::Tup::leaf(0))); 8];
        let mut i = 0;
        while i < v.rank() && i < 8 {
            out[i] = Flat::of(&v.mode(i));
            i += 1;
        }
        out
    }

    /// Whether the layout is swizzled (composed).
    pub const fn is_composed(&self) -> bool {
        self.composed
    }

    /// The number of coordinates (product of the leaf shapes).
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.shape[..self.n].iter().product()
    }

    /// The offset of 1-D index `i` (the last leaf takes what is left, as in CuTe).
    #[inline(always)]
    pub fn eval(&self, i: usize) -> usize {
        self.post(self.eval_raw(i))
    }

    /// The offset of 1-D index `i` in the layout inside the swizzle (no offset, no swizzle).
    #[inline(always)]
    pub fn eval_raw(&self, mut i: usize) -> usize {
        let mut r = 0;
        if self.n > 0 {
            for k in 0..self.n - 1 {
                r += (i % self.shape[k]) * self.stride[k];
                i /= self.shape[k];
            }
            r += i * self.stride[self.n - 1];
        }
        r
    }

    /// The swizzle and offset of a composed layout applied to a plain offset `r`.
    #[inline(always)]
    pub fn post(&self, r: usize) -> usize {
        if self.composed {
            self.swizzle.apply(self.offset + r)
        } else {
            r
        }
    }
}
