//! CuTe's `TiledCopy` as a value: a copy atom repeated over a thread-value layout of a
//! tile, and the `const fn`s that partition tensors with it.

use super::copy::{CopyAtom, CopyOp};
use super::element::Element;
use super::Res2;
#[cfg(doc)]
use super::TiledMmaDesc;
use crate::algebra::{self as a, err, Res};
use crate::error::{Condition, LayoutError};
use crate::tup::Tup;
use crate::value::Value;

/// A copy atom on elements (CuTe's `Copy_Atom`) as plain values.
///
/// ```
/// use ferrocute_layout::atom::*;
/// let t = CopyTraits::of::<SM75_U32x4_LDSM_N, Bf16>();
/// assert_eq!(t.src.to_string(), "(32,8):(8,1)");
/// assert_eq!(t.reference, t.dst);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CopyTraits {
    /// Logical thread id to thread index.
    pub thr_id: Value,
    /// `(thr,val) -> element` of the source, the destination and the reference.
    pub src: Value,
    /// See `src`.
    pub dst: Value,
    /// See `src`.
    pub reference: Value,
}

impl CopyTraits {
    /// The element layouts of `CopyAtom<Op, T>`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// const T: CopyTraits = CopyTraits::of::<UniversalCopy<U64>, F16>();
    /// assert_eq!(T.src.to_string(), "(1,4):(0,1)");
    /// ```
    pub const fn of<Op: CopyOp, T: Element>() -> CopyTraits {
        CopyTraits {
            thr_id: CopyAtom::<Op, T>::THR_ID,
            src: CopyAtom::<Op, T>::VAL_LAYOUT_SRC,
            dst: CopyAtom::<Op, T>::VAL_LAYOUT_DST,
            reference: CopyAtom::<Op, T>::VAL_LAYOUT_REF,
        }
    }
}

/// Source or destination side of a copy.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
/// let d = copy.desc();
/// assert_eq!(d.layout_tv(CopySide::S), d.layout_tv(CopySide::D));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopySide {
    /// The source (`partition_S`, `get_layoutS_TV`).
    S,
    /// The destination (`partition_D`, `get_layoutD_TV`).
    D,
}

/// CuTe's `TiledCopy<Copy_Atom, LayoutCopy_TV, Tiler_MN>` as values.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
/// let d = copy.desc();
/// assert_eq!((d.layout_tv.to_string(), d.tiler.to_string()), ("((8,16),8):((128,1),16)".to_string(), "(16,64)".to_string()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TiledCopyDesc {
    /// The atom's element layouts.
    pub atom: CopyTraits,
    /// `(thread index, value) -> coordinate` of the tile (CuTe's `TiledLayout_TV`).
    pub layout_tv: Value,
    /// The tile's shape (CuTe's `Tiler_MN`).
    pub tiler: Tup,
}

impl TiledCopyDesc {
    /// CuTe's `make_tiled_copy_impl(atom, layout_tv, tiler)`: the atom tiled over
    /// `layout_tv` (`(thread index, value) -> coordinate` of a `tiler` tile).
    ///
    /// @pre the atom's thread count divides `size<0>(layout_tv)` and its value count
    ///      divides `size<1>(layout_tv)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::{CopyTraits, TiledCopyDesc, UniversalCopy, U32, F32};
    /// use ferrocute_layout::{algebra::make_layout_tv, Tup, Value};
    /// let tv = make_layout_tv(&Value::layout(Tup::leaf(32), Tup::leaf(1)),
    ///                         &Value::layout(Tup::leaf(4), Tup::leaf(1))).unwrap();
    /// let d = TiledCopyDesc::new(CopyTraits::of::<UniversalCopy<U32>, F32>(), &tv.layout, &tv.tiler).unwrap();
    /// assert_eq!(d.layout_tv.to_string(), "(32,4):(4,1)");
    /// ```
    pub const fn new(
        atom: CopyTraits,
        layout_tv: &Value,
        tiler: &Tup,
    ) -> Result<TiledCopyDesc, LayoutError> {
        let (nt, nv) = (atom.reference.mode(0).size(), atom.reference.mode(1).size());
        let (tt, tv) = (layout_tv.mode(0).size(), layout_tv.mode(1).size());
        if !tt.is_multiple_of(nt) {
            return Err(err("make_tiled_copy", Condition::AtomDoesNotDivide, tt, nt));
        }
        if !tv.is_multiple_of(nv) {
            return Err(err("make_tiled_copy", Condition::AtomDoesNotDivide, tv, nv));
        }
        Ok(TiledCopyDesc {
            atom,
            layout_tv: *layout_tv,
            tiler: *tiler,
        })
    }

    /// CuTe's `tile2thrfrg`: `((TileM,TileN,...),rest)` to `(Thr,FrgV,rest)`.
    const fn tile2thrfrg(&self, t: &Value, side: CopySide) -> Res {
        let trg = match side {
            CopySide::S => &self.atom.src,
            CopySide::D => &self.atom.dst,
        };
        let ref2trg = tri!(a::composition(
            &tri!(a::right_inverse(&self.atom.reference)),
            trg
        ));
        let atom_shape = Tup::flat(&[
            self.atom.reference.mode(0).size(),
            self.atom.reference.mode(1).size(),
        ]);
        let atom_tv = tri!(a::zipped_divide(
            &self.layout_tv,
            &a::shape_tiler(&atom_shape)
        ));
        let trg_tv = tri!(a::composition(&atom_tv.mode(0), &ref2trg));
        let zipped = tri!(a::zip(&trg_tv, &atom_tv.mode(1)));
        let profile = Tup::pair(&Tup::leaf(1), &Tup::flat(&[1, 1]));
        let thrval2mn = tri!(a::coalesce_profile(&zipped, &profile));
        let m = tri!(a::composition(&t.mode(0), &thrval2mn));
        Ok(Value::of_modes(&[m.mode(0), m.mode(1), t.mode(1)]))
    }

    /// CuTe's `tidfrg_S/D(layout)`: `(M,N,...)` to `(Thr,FrgV,(RestM,RestN,...))`.
    ///
    /// @pre `rank(l) >= rank(tiler)`, `l` is not swizzled.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
    ///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
    /// let d = copy.desc();
    /// let f = d.tidfrg(CopySide::S, &layout!((64,64):(64,1)).value()).unwrap();
    /// assert_eq!(f.to_string(), "((8,16),(8,1),(4,1)):((8,64),(1,0),(1024,0))");
    /// ```
    pub const fn tidfrg(&self, side: CopySide, l: &Value) -> Res {
        tri!(a::plain("tidfrg", l));
        let z = tri!(a::zipped_divide(l, &a::shape_tiler(&self.tiler)));
        self.tile2thrfrg(&z, side)
    }

    /// CuTe's `get_layoutS_TV/D_TV()`: `(thread index, value) -> (m,n)` of the tile.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
    ///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
    /// let d = copy.desc();
    /// assert_eq!(d.layout_tv(CopySide::S).unwrap().to_string(), "((8,16),(8,1)):((128,1),(16,0))");
    /// ```
    pub const fn layout_tv(&self, side: CopySide) -> Res {
        let r = a::make_layout(&Tup::pair(&self.tiler, &Tup::leaf(1)));
        let f = tri!(self.tile2thrfrg(&r, side));
        Ok(Value::of_modes(&[f.mode(0), f.mode(1)]))
    }

    /// CuTe's `get_slice(thr_idx).partition_S/D(tensor)` on a layout: the values thread
    /// `thr_idx` copies, `(CPY,CPY_M,CPY_N,...)`, and the offset of its first one; a
    /// swizzled `l` keeps its swizzle, as in [`TiledMmaDesc::partition`].
    ///
    /// @pre `rank(l) >= rank(tiler)`; `thr_idx < size<0>(layout_tv)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
    ///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
    /// let d = copy.desc();
    /// let (p, off) = d.partition(CopySide::S, &layout!((64,64):(64,1)).value(), 9).unwrap();
    /// assert_eq!((p.to_string(), off), ("((8,1),4,1):((1,0),1024,0)".to_string(), 72));
    /// ```
    pub const fn partition(&self, side: CopySide, l: &Value, thr_idx: usize) -> Res2 {
        let f = tri!(self.tidfrg(side, &l.inner()));
        let c = Tup::tuple(&[Tup::leaf(thr_idx), Tup::free(), a::frees(l.rank())]);
        super::swizzled(l, a::slice_and_offset(&c, &f))
    }

    /// CuTe's `retile(tensor)`: a thread's fragment `(V,Rest...)` (say, from a tiled MMA's
    /// partition) regrouped into this copy's `(CPY,CPY_M,CPY_N,...)` value order.
    ///
    /// @pre `l` is a per-thread fragment whose first `size<0>(l)` values are the first
    ///      values of `layout_tv`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let copy = make_tiled_copy_a(CopyAtom::<SM75_U32x4_LDSM_N, Bf16>::new(), mma);
    /// let frag = layout!(((2,2,2),2,2):((1,2,4),8,16)).value();
    /// assert_eq!(copy.desc().retile(&frag).unwrap().to_string(), "((8,1),2,2):((1,0),8,16)");
    /// ```
    pub const fn retile(&self, l: &Value) -> Res {
        tri!(a::plain("retile", l));
        let v = l.mode(0).size();
        let inv = tri!(a::right_inverse(&self.layout_tv));
        let mn = tri!(a::composition(&inv, &a::make_layout(&self.tiler)));
        let frg_mn = tri!(a::upcast(&mn, self.layout_tv.mode(0).size() * v));
        let prod = tri!(a::logical_product(
            &a::make_layout(&Tup::leaf(v)),
            &tri!(a::right_inverse(&frg_mn))
        ));
        let atom_vals = a::make_layout(&Tup::leaf(self.atom.reference.mode(1).size()));
        let frg_v = tri!(a::zipped_divide(&prod, &atom_vals));
        let tile = a::product_each(&frg_mn.shape).prepend(&Tup::leaf(v));
        let t = tri!(a::zipped_divide(l, &a::shape_tiler(&tile)));
        let m0 = tri!(a::composition(&t.mode(0), &frg_v));
        let mut rest = Tup::tuple(&[Tup::leaf(0)]);
        while rest.rank() < l.rank() {
            rest.push(&Tup::free());
        }
        let rest = if l.rank() == 1 { Tup::leaf(0) } else { rest };
        let vt = Value::of_modes(&[m0, t.mode(1)]);
        a::slice(&Tup::pair(&Tup::free(), &rest), &vt)
    }
}
