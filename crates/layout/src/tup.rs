//! `Tup`: a hierarchical integer tuple as a plain value that `const fn`s can build and read.
//!
//! Every static layout type carries its shape and stride as `Tup` constants, and every
//! algebra operation is a `const fn` over them, so rustc's const evaluator computes CuTe's
//! results at compile time, and the very same functions run at run time for dynamic leaves.
//!
//! Encoding: the nodes of the tree in preorder. A node is a leaf (an integer) or a tuple
//! holding the number of its children; the children's subtrees follow it in order.

/// Most nodes (leaves plus tuples) a [`Tup`] holds; ample for kernel layouts (a rank-3
/// swizzled shared-memory layout of a 4-stage pipeline has about 15).
pub const MAX_NODES: usize = 48;

const LEAF: u8 = u8::MAX;

/// Node flag: the leaf is CuTe's underscore `_` (a free coordinate in a slice).
pub const FLAG_FREE: u8 = 1;
/// Node flag: the tuple is a tiler applied mode by mode, not one layout.
pub const FLAG_BY_MODE: u8 = 2;

/// A hierarchical integer tuple: an integer, or a tuple of `Tup`s (CuTe's `IntTuple`).
///
/// ```
/// use ferrocute_layout::Tup;
/// const T: Tup = Tup::pair(&Tup::leaf(4), &Tup::pair(&Tup::leaf(2), &Tup::leaf(2)));
/// assert_eq!(T.to_string(), "(4,(2,2))");
/// assert_eq!(T.size(), 16);
/// assert_eq!(T.rank(), 2);
/// assert_eq!(T.depth(), 2);
/// ```
#[derive(Clone, Copy)]
pub struct Tup {
    len: u8,
    kids: [u8; MAX_NODES],
    val: [usize; MAX_NODES],
    flag: [u8; MAX_NODES],
}

impl Tup {
    /// The empty tuple `()`.
    pub const EMPTY: Tup = Tup {
        len: 1,
        kids: [0; MAX_NODES],
        val: [0; MAX_NODES],
        flag: [0; MAX_NODES],
    };

    /// A single integer.
    pub const fn leaf(v: usize) -> Tup {
        let mut t = Tup::EMPTY;
        t.kids[0] = LEAF;
        t.val[0] = v;
        t
    }

    /// CuTe's underscore `_`: a free coordinate.
    pub const fn free() -> Tup {
        let mut t = Tup::leaf(0);
        t.flag[0] = FLAG_FREE;
        t
    }

    /// The tuple `(a, b)`.
    pub const fn pair(a: &Tup, b: &Tup) -> Tup {
        let mut t = Tup::EMPTY;
        t.push(a);
        t.push(b);
        t
    }

    /// The tuple of `parts`, in order.
    pub const fn tuple(parts: &[Tup]) -> Tup {
        let mut t = Tup::EMPTY;
        let mut i = 0;
        while i < parts.len() {
            t.push(&parts[i]);
            i += 1;
        }
        t
    }

    /// A flat tuple of `vals` (a single value stays a 1-tuple).
    pub const fn flat(vals: &[usize]) -> Tup {
        let mut t = Tup::EMPTY;
        let mut i = 0;
        while i < vals.len() {
            t.push(&Tup::leaf(vals[i]));
            i += 1;
        }
        t
    }

    /// Number of nodes in the preorder encoding.
    pub const fn nodes(&self) -> usize {
        self.len as usize
    }

    /// Whether this is an integer rather than a tuple.
    pub const fn is_leaf(&self) -> bool {
        self.kids[0] == LEAF
    }

    /// Whether this is CuTe's `_`.
    pub const fn is_free(&self) -> bool {
        self.is_leaf() && self.flag[0] & FLAG_FREE != 0
    }

    /// The flags of the root node.
    pub const fn flags(&self) -> u8 {
        self.flag[0]
    }

    /// The same tuple with `f` set on the root node.
    pub const fn with_flags(mut self, f: u8) -> Tup {
        self.flag[0] |= f;
        self
    }

    /// The integer of a leaf (0 for a tuple).
    pub const fn value(&self) -> usize {
        if self.is_leaf() {
            self.val[0]
        } else {
            0
        }
    }

    /// Number of top-level modes: 1 for an integer, the arity for a tuple.
    pub const fn rank(&self) -> usize {
        if self.is_leaf() {
            1
        } else {
            self.kids[0] as usize
        }
    }

    /// Nesting depth: 0 for an integer, 1 + the deepest mode for a tuple.
    pub const fn depth(&self) -> usize {
        if self.is_leaf() {
            return 0;
        }
        let mut d = 0;
        let mut i = 0;
        while i < self.rank() {
            let c = self.get(i).depth();
            if c > d {
                d = c;
            }
            i += 1;
        }
        d + 1
    }

    /// Index one past the subtree that starts at node `i`.
    const fn end(&self, i: usize) -> usize {
        let mut need = 1usize;
        let mut j = i;
        while need > 0 {
            if self.kids[j] == LEAF {
                need -= 1;
            } else {
                need = need - 1 + self.kids[j] as usize;
            }
            j += 1;
        }
        j
    }

    /// Mode `i`; an integer's mode 0 is itself (as in CuTe's `get<0>` of an integer).
    pub const fn get(&self, i: usize) -> Tup {
        if self.is_leaf() {
            return *self;
        }
        let mut j = 1;
        let mut k = 0;
        while k < i {
            j = self.end(j);
            k += 1;
        }
        let e = self.end(j);
        let mut t = Tup::EMPTY;
        let mut n = 0;
        while j + n < e {
            t.kids[n] = self.kids[j + n];
            t.val[n] = self.val[j + n];
            t.flag[n] = self.flag[j + n];
            n += 1;
        }
        t.len = n as u8;
        t
    }

    /// Appends `x` as a new last mode of this tuple (an integer first becomes a 1-tuple).
    pub const fn push(&mut self, x: &Tup) {
        if self.is_leaf() {
            *self = Tup::tuple(&[*self]);
        }
        let base = self.len as usize;
        assert!(
            base + x.nodes() <= MAX_NODES,
            "ferrocute: int tuple too large (raise MAX_NODES)"
        );
        let mut n = 0;
        while n < x.nodes() {
            self.kids[base + n] = x.kids[n];
            self.val[base + n] = x.val[n];
            self.flag[base + n] = x.flag[n];
            n += 1;
        }
        self.len += x.len;
        self.kids[0] += 1;
    }

    /// CuTe's `append`: `(a,b)` + `x` is `(a,b,x)`; an integer `a` gives `(a,x)`.
    pub const fn append(&self, x: &Tup) -> Tup {
        let mut t = self.as_tuple();
        t.push(x);
        t
    }

    /// CuTe's `prepend`: `x` + `(a,b)` is `(x,a,b)`.
    pub const fn prepend(&self, x: &Tup) -> Tup {
        let s = self.as_tuple();
        let mut t = Tup::tuple(&[*x]);
        let mut i = 0;
        while i < s.rank() {
            t.push(&s.get(i));
            i += 1;
        }
        t
    }

    /// CuTe's `wrap`: an integer becomes a 1-tuple; a tuple stays.
    pub const fn as_tuple(&self) -> Tup {
        if self.is_leaf() {
            Tup::tuple(&[*self])
        } else {
            *self
        }
    }

    /// CuTe's `unwrap`: a 1-tuple becomes its only element, recursively.
    pub const fn unwrap(&self) -> Tup {
        if !self.is_leaf() && self.rank() == 1 {
            self.get(0).unwrap()
        } else {
            *self
        }
    }

    /// Modes `[b, e)` as a tuple.
    pub const fn range(&self, b: usize, e: usize) -> Tup {
        let mut t = Tup::EMPTY;
        let mut i = b;
        while i < e {
            t.push(&self.get(i));
            i += 1;
        }
        t
    }

    /// This tuple with mode `i` replaced by `x`.
    pub const fn replace(&self, i: usize, x: &Tup) -> Tup {
        let mut t = Tup::EMPTY;
        let mut k = 0;
        while k < self.rank() {
            if k == i {
                t.push(x);
            } else {
                t.push(&self.get(k));
            }
            k += 1;
        }
        t
    }

    /// Product of all integers (CuTe's `size`); 1 for the empty tuple.
    pub const fn size(&self) -> usize {
        let mut p = 1usize;
        let mut j = 0;
        while j < self.nodes() {
            if self.kids[j] == LEAF {
                p *= self.val[j];
            }
            j += 1;
        }
        p
    }

    /// Number of integers in the tree.
    pub const fn leaf_count(&self) -> usize {
        let mut c = 0;
        let mut j = 0;
        while j < self.nodes() {
            if self.kids[j] == LEAF {
                c += 1;
            }
            j += 1;
        }
        c
    }

    /// The `k`-th integer in preorder.
    pub const fn leaf_at(&self, k: usize) -> usize {
        let mut c = 0;
        let mut j = 0;
        while j < self.nodes() {
            if self.kids[j] == LEAF {
                if c == k {
                    return self.val[j];
                }
                c += 1;
            }
            j += 1;
        }
        0
    }

    /// Whether the `k`-th leaf in preorder is a free coordinate `_`.
    pub const fn leaf_is_free(&self, k: usize) -> bool {
        let mut c = 0;
        let mut j = 0;
        while j < self.nodes() {
            if self.kids[j] == LEAF {
                if c == k {
                    return self.flag[j] & FLAG_FREE != 0;
                }
                c += 1;
            }
            j += 1;
        }
        false
    }

    /// CuTe's `flatten`: the integers as a flat tuple (an integer stays an integer).
    pub const fn flatten(&self) -> Tup {
        if self.is_leaf() {
            return *self;
        }
        let mut t = Tup::EMPTY;
        let mut j = 0;
        while j < self.nodes() {
            if self.kids[j] == LEAF {
                let mut l = Tup::leaf(self.val[j]);
                l.flag[0] = self.flag[j];
                t.push(&l);
            }
            j += 1;
        }
        t
    }

    /// The same tree shape with every integer replaced by `f`'s corresponding leaf of `src`
    /// taken in preorder (`src` has at least as many leaves).
    pub const fn with_leaves(&self, src: &Tup) -> Tup {
        let mut t = *self;
        let mut c = 0;
        let mut j = 0;
        while j < t.nodes() {
            if t.kids[j] == LEAF {
                t.val[j] = src.leaf_at(c);
                c += 1;
            }
            j += 1;
        }
        t
    }

    /// Whether both have the same tree structure (CuTe's `congruent`).
    pub const fn congruent(&self, o: &Tup) -> bool {
        if self.len != o.len {
            return false;
        }
        let mut j = 0;
        while j < self.nodes() {
            if self.kids[j] != o.kids[j] {
                return false;
            }
            j += 1;
        }
        true
    }

    /// Whether `o` is congruent and has the same integers and flags.
    pub const fn equals(&self, o: &Tup) -> bool {
        if !self.congruent(o) {
            return false;
        }
        let mut j = 0;
        while j < self.nodes() {
            if self.val[j] != o.val[j] || self.flag[j] != o.flag[j] {
                return false;
            }
            j += 1;
        }
        true
    }

    /// Whether some integer of the tree is a free coordinate `_`.
    pub const fn has_free(&self) -> bool {
        let mut j = 0;
        while j < self.nodes() {
            if self.kids[j] == LEAF && self.flag[j] & FLAG_FREE != 0 {
                return true;
            }
            j += 1;
        }
        false
    }

    /// A tuple congruent to `self` with every integer set to `v`.
    pub const fn fill(&self, v: usize) -> Tup {
        let mut t = *self;
        let mut j = 0;
        while j < t.nodes() {
            if t.kids[j] == LEAF {
                t.val[j] = v;
                t.flag[j] = 0;
            }
            j += 1;
        }
        t
    }
}

impl PartialEq for Tup {
    fn eq(&self, o: &Tup) -> bool {
        self.equals(o)
    }
}

impl Eq for Tup {}

impl core::fmt::Debug for Tup {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

impl core::fmt::Display for Tup {
    /// CuTe's notation: `(4,(2,2))`, `8`, `_` for a free coordinate.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.is_leaf() {
            return if self.is_free() {
                f.write_str("_")
            } else {
                write!(f, "{}", self.value())
            };
        }
        f.write_str("(")?;
        for i in 0..self.rank() {
            if i > 0 {
                f.write_str(",")?;
            }
            core::fmt::Display::fmt(&self.get(i), f)?;
        }
        f.write_str(")")
    }
}
