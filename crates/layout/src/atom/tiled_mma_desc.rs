//! CuTe's `TiledMMA` as a value: an MMA atom repeated over a layout of atoms, with
//! optional permutations of M, N and K, and the `const fn`s that partition tiles with it.

use super::mma::MmaAtom;
use super::Res2;
use crate::algebra::{self as a, err, Res};
use crate::error::{Condition, LayoutError};
use crate::tup::{Tup, FLAG_FREE};
use crate::value::{Value, ValueKind};

/// An MMA atom's traits (CuTe's `MMA_Traits`) as plain values.
///
/// ```
/// use ferrocute_layout::atom::*;
/// let t = MmaTraits::of::<SM90_64xNx16_F32F16F16_SS<32>>();
/// assert_eq!(t.shape_mnk.to_string(), "(64,32,16)");
/// assert_eq!(t.layout_tv[2].to_string(), "((4,8,4),(2,2,4)):((128,1,16),(64,8,512))");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmaTraits {
    /// `(M,N,K)` of one instruction.
    pub shape_mnk: Tup,
    /// Logical thread id to thread index.
    pub thr_id: Value,
    /// `(thr,val) -> (m,k)`, `(thr,val) -> (n,k)`, `(thr,val) -> (m,n)`.
    pub layout_tv: [Value; 3],
}

impl MmaTraits {
    /// The traits of atom `A`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// const T: MmaTraits = MmaTraits::of::<SM80_16x8x16_F16F16F16F16_TN>();
    /// assert_eq!(T.thr_id.to_string(), "32:1");
    /// ```
    pub const fn of<A: MmaAtom>() -> MmaTraits {
        MmaTraits {
            shape_mnk: A::SHAPE_MNK,
            thr_id: A::THR_ID,
            layout_tv: [A::LAYOUT_A_TV, A::LAYOUT_B_TV, A::LAYOUT_C_TV],
        }
    }
}

/// Operand of an MMA: which two of M, N, K span it, and which atom layout it takes.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
/// let d = mma.desc();
/// assert_eq!(d.layout_tv(MmaOperand::A).unwrap(), mma.layout_a_tv().value());
/// ```
// Constants rather than enum variants: a variant named `C` would make rustc spell the
// crate's `C<N>` with its full path in diagnostics (the compile-fail tests' expected text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaOperand(u8);

impl MmaOperand {
    /// A, `(M,K)`.
    pub const A: MmaOperand = MmaOperand(0);
    /// B, `(N,K)`.
    pub const B: MmaOperand = MmaOperand(1);
    /// C, `(M,N)`.
    pub const C: MmaOperand = MmaOperand(2);

    /// The MNK modes spanning the operand (`(0,2)`, `(1,2)` or `(0,1)`) and the index of
    /// its atom layout.
    pub(crate) const fn modes(self) -> (usize, usize, usize) {
        [(0, 2, 0), (1, 2, 1), (0, 1, 2)][self.0 as usize]
    }
}

/// CuTe's `TiledMMA<Atom, AtomLayoutMNK, PermutationMNK>` as values.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
/// let d = mma.desc();
/// assert_eq!(d.thr_layout_vmnk.to_string(), "(32,2,2,1):(1,32,64,0)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TiledMmaDesc {
    /// The atom's traits.
    pub atom: MmaTraits,
    /// `tiled_product(ThrID, AtomLayoutMNK)`: `(ThrV,ThrM,ThrN,ThrK) -> thread index`.
    pub thr_layout_vmnk: Value,
    /// The permutation of M, N, K: a tuple of up to three integers, layouts or `_`.
    pub permutation: Value,
}

/// Mode `i` of a permutation: `None` for `_` (or a mode past its rank), else the tile.
const fn perm_part(p: &Value, i: usize) -> Option<Value> {
    if p.shape.is_leaf() || i >= p.rank() {
        return None;
    }
    let part = p.mode(i);
    if part.shape.is_leaf() && part.shape.flags() & FLAG_FREE != 0 {
        return None;
    }
    match p.kind {
        ValueKind::Tuple => Some(a::make_layout(&part.shape)),
        ValueKind::Layout => Some(crate::algebra::tile_layout(&part)),
    }
}

impl TiledMmaDesc {
    /// CuTe's `make_tiled_mma(atom, thr_layout, permutations)`: the atom layout padded to rank
    /// 3 with `1:0`, the permutation padded with `_`.
    ///
    /// @pre `rank(thr_layout) <= 3`, `rank(permutation) <= 3`.
    /// @post `thr_layout_vmnk` has rank 4 and size `size(ThrID) * size(thr_layout)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{Tup, Value};
    /// let thr = Value::layout(Tup::flat(&[4, 1, 1]), Tup::flat(&[1, 0, 0]));
    /// let perm = Value::tuple(Tup::EMPTY);
    /// let d = TiledMmaDesc::new(MmaTraits::of::<SM80_16x8x16_F32BF16BF16F32_TN>(), &thr, &perm).unwrap();
    /// assert_eq!(d.thr_layout_vmnk.to_string(), "(32,4,1,1):(1,32,0,0)");
    /// ```
    pub const fn new(
        atom: MmaTraits,
        thr_layout: &Value,
        permutation: &Value,
    ) -> Result<TiledMmaDesc, LayoutError> {
        if thr_layout.rank() > 3 || (!permutation.shape.is_leaf() && permutation.rank() > 3) {
            return Err(err(
                "make_tiled_mma",
                Condition::RankMismatch,
                thr_layout.rank(),
                3,
            ));
        }
        let mnk = a::pad_rank(thr_layout, 3);
        let vmnk = tri!(a::tiled_product(&atom.thr_id, &mnk));
        Ok(TiledMmaDesc {
            atom,
            thr_layout_vmnk: vmnk,
            permutation: *permutation,
        })
    }

    /// CuTe's `permutation_mnk<I>()` as a tile layout: `_` becomes the atom's extent times
    /// the number of atoms along mode `i`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)),
    ///     (layout!((8,2,2):(1,16,8)), ferrocute_layout::C::<32>, ferrocute_layout::Free));
    /// let d = mma.desc();
    /// assert_eq!(d.permutation_mnk(0).to_string(), "(8,2,2):(1,16,8)");
    /// assert_eq!(d.permutation_mnk(1).to_string(), "32:1");
    /// assert_eq!(d.permutation_mnk(2).to_string(), "16:1");
    /// ```
    pub const fn permutation_mnk(&self, i: usize) -> Value {
        match perm_part(&self.permutation, i) {
            Some(t) => t,
            None => {
                let n =
                    self.atom.shape_mnk.get(i).value() * self.thr_layout_vmnk.mode(i + 1).size();
                a::make_layout(&Tup::leaf(n))
            }
        }
    }

    /// CuTe's `tile_size_mnk<I>()`: the extent of the tiled MMA along M, N or K.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let d = mma.desc();
    /// assert_eq!((d.tile_size_mnk(0), d.tile_size_mnk(1), d.tile_size_mnk(2)), (32, 16, 16));
    /// ```
    pub const fn tile_size_mnk(&self, i: usize) -> usize {
        self.permutation_mnk(i).size()
    }

    /// CuTe's `thrfrg_A/B/C(layout)`: `(M,K,...)` (resp. `(N,K,...)`, `(M,N,...)`) to
    /// `((ThrV,(Thr0,Thr1)),(FrgV,(Rest0,Rest1,...)))`.
    ///
    /// @pre `rank(l) >= 2`, `l` is not swizzled.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let d = mma.desc();
    /// let f = d.thrfrg(MmaOperand::C, &layout!((32,16):(1,32)).value()).unwrap();
    /// assert_eq!(f.to_string(), "(((4,8),(2,2)),((2,2),(1,1))):(((64,1),(16,256)),((32,8),(0,0)))");
    /// ```
    pub const fn thrfrg(&self, op: MmaOperand, l: &Value) -> Res {
        tri!(a::plain("thrfrg", l));
        let (i, j, k) = op.modes();
        let perm = Value::tiler(&[self.permutation_mnk(i), self.permutation_mnk(j)]);
        let t = tri!(a::logical_divide(l, &perm));
        let mnk = &self.atom.shape_mnk;
        let atom_tile = Value::tiler(&[a::make_layout(&mnk.get(i)), a::make_layout(&mnk.get(j))]);
        let c = tri!(a::zipped_divide(&t, &atom_tile));
        let tv = tri!(a::composition(&c.mode(0), &self.atom.layout_tv[k]));
        let vmnk = &self.thr_layout_vmnk;
        let thr_tile = Value::tiler(&[
            a::make_layout(&Tup::leaf(vmnk.mode(i + 1).size())),
            a::make_layout(&Tup::leaf(vmnk.mode(j + 1).size())),
        ]);
        let z = tri!(a::zipped_divide(&c.mode(1), &thr_tile));
        Ok(Value::of_modes(&[
            Value::of_modes(&[tv.mode(0), z.mode(0)]),
            Value::of_modes(&[tv.mode(1), z.mode(1)]),
        ]))
    }

    /// CuTe's `get_layoutA_TV/B_TV/C_TV()`: `(thread index, value) -> (m,k)` (resp.
    /// `(n,k)`, `(m,n)`) of the whole tile, column-major.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let d = mma.desc();
    /// assert_eq!(d.layout_tv(MmaOperand::C).unwrap().to_string(),
    ///     "((4,8,2,2),((2,2),(1,1))):((64,1,16,256),((32,8),(0,0)))");
    /// ```
    pub const fn layout_tv(&self, op: MmaOperand) -> Res {
        let (i, j, _) = op.modes();
        let ext = Tup::flat(&[self.tile_size_mnk(i), self.tile_size_mnk(j)]);
        let f = tri!(self.thrfrg(op, &a::make_layout(&ext)));
        let vmnk = &self.thr_layout_vmnk;
        // thread index -> (ThrV,ThrM,ThrN,ThrK)
        let full = Value::of_modes(&[*vmnk, tri!(a::complement_cosize(vmnk))]);
        let idx = Value::layout(Tup::flat(&[vmnk.size(), 1]), Tup::flat(&[1, 0]));
        let thr2id = tri!(a::composition(&idx, &tri!(a::right_inverse(&full))));
        let thr = f.mode(0);
        // A ignores the N threads (B the M threads): they are broadcast with stride 0.
        let thr = if op.0 == MmaOperand::C.0 {
            thr
        } else {
            let (m, n) = (vmnk.mode(1).size(), vmnk.mode(2).size());
            let d = if op.0 == MmaOperand::A.0 {
                [1, 0]
            } else {
                [0, 1]
            };
            let bcast = Value::layout(Tup::flat(&[m, n]), Tup::flat(&d));
            let pair = thr.mode(1);
            let p0 = tri!(a::composition(&pair.mode(0), &bcast));
            Value::of_modes(&[thr.mode(0), Value::of_modes(&[p0, pair.mode(1)])])
        };
        let thr = tri!(a::composition(&thr, &thr2id));
        Ok(Value::of_modes(&[thr, f.mode(1)]))
    }

    /// CuTe's `get_slice(thr_idx).partition_A/B/C(tensor)` on a layout: the values thread
    /// `thr_idx` holds, `(FrgV,Rest0,Rest1,...)`, and the offset of its first one. A
    /// swizzled `l = Sw ∘ off ∘ L` gives `Sw ∘ off ∘ L'`, and the offset then goes inside
    /// the swizzle: value `i` is at `Sw(off + offset + L'(i))` (CuTe folds it into the
    /// composed layout's offset).
    ///
    /// @pre `rank(l) >= 2`; `thr_idx < size(thr_layout_vmnk)` (larger indices wrap, as in
    ///      CuTe).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let d = mma.desc();
    /// let (p, off) = d.partition(MmaOperand::C, &layout!((64,64):(1,64)).value(), 5).unwrap();
    /// assert_eq!((p.to_string(), off), ("((2,2),2,4):((64,8),32,1024)".to_string(), 129));
    /// ```
    pub const fn partition(&self, op: MmaOperand, l: &Value, thr_idx: usize) -> Res2 {
        let f = tri!(self.thrfrg(op, &l.inner()));
        let (i, j, _) = op.modes();
        let c = tri!(thread_coord(&self.thr_layout_vmnk, thr_idx));
        let thr = Tup::pair(&c.get(0), &Tup::pair(&c.get(i + 1), &c.get(j + 1)));
        let rest = crate::algebra::frees(f.mode(1).mode(1).rank());
        let c = Tup::pair(&thr, &Tup::pair(&Tup::free(), &rest));
        super::swizzled(l, a::slice_and_offset(&c, &f))
    }
}

/// CuTe's `get_flat_coord(thr_idx)` of the thread layout: `idx2crd(idx, shape, stride)`,
/// each top-level mode flattened to its column-major index.
const fn thread_coord(vmnk: &Value, idx: usize) -> Result<Tup, LayoutError> {
    let hier = a::idx2crd_with(idx, &vmnk.shape, &vmnk.stride);
    let mut out = Tup::EMPTY;
    let mut i = 0;
    while i < vmnk.rank() {
        let s = vmnk.shape.get(i);
        let col = a::compact_left(&s, 1).0;
        out.push(&Tup::leaf(tri!(a::crd2idx(&hier.get(i), &s, &col))));
        i += 1;
    }
    Ok(out)
}
