//! [`TiledCopy`]: CuTe's tiled copy as a zero-sized type, and where its thread-value
//! layout comes from ([`ThrVal`] for `make_tiled_copy`, [`MmaTv`] for `make_tiled_copy_A/B/C`).

use super::copy::{CopyAtom, CopyOp};
use super::element::Element;
use super::tiled_copy_desc::{CopyTraits, TiledCopyDesc};
use super::typed::{
    partition, Desc, PartA, PartB, PartC, PartD, PartS, PartitionOut, Retile, Tiled, TvLayout,
};
use crate::algebra as a;
use crate::operand::kind::Static;
use crate::operand::Operand;
use crate::render::{cpp_tuple, cpp_type};
use crate::tup::Tup;
use crate::value::Value;
use core::marker::PhantomData;

/// Where a tiled copy's thread-value layout and tile come from.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::Layout;
/// type S = ThrVal<Layout!((32,4):(4,1)), Layout!((1,8):(0,1))>;
/// assert_eq!(S::TILER.to_string(), "(32,32)");
/// assert_eq!(S::LAYOUT_TV.to_string(), "((4,32),8):((256,1),32)");
/// ```
pub trait TvSource: Copy + Default {
    /// `(thread index, value) -> coordinate` of the tile.
    const LAYOUT_TV: Value;
    /// The tile's shape.
    const TILER: Tup;
}

/// `make_tiled_copy`'s source: threads `Thr` (`(m,n) -> thread`), each with a `Val` block
/// (`(m,n) -> value`), raked together.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::Layout;
/// type S = ThrVal<Layout!((8,16):(16,1)), Layout!((1,4):(0,1))>;
/// assert_eq!(S::TILER.to_string(), "(8,64)");
/// ```
pub struct ThrVal<Thr, Val>(PhantomData<(Thr, Val)>);
zst!(ThrVal<Thr, Val>);

impl<Thr: Operand<Kind = Static>, Val: Operand<Kind = Static>> TvSource for ThrVal<Thr, Val> {
    const LAYOUT_TV: Value = Self::TV.layout;
    const TILER: Tup = Self::TV.tiler;
}

impl<Thr: Operand<Kind = Static>, Val: Operand<Kind = Static>> ThrVal<Thr, Val> {
    const TV: a::LayoutTv =
        match a::make_layout_tv(&Thr::VALUE, &crate::operand::eval::as_layout(&Val::VALUE)) {
            Ok(tv) => tv,
            Err(e) => e.raise(),
        };
}

/// `make_tiled_copy_A/B/C`'s source: what the threads of a tiled MMA `M` hold of operand
/// `P` (one of [`PartA`], [`PartB`], [`PartC`]).
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::Layout;
/// type Mma = TiledMma<SM80_16x8x16_F32BF16BF16F32_TN, Layout!((2,2,1):(1,2,0)), ()>;
/// assert_eq!(<MmaTv<Mma, PartC> as TvSource>::TILER.to_string(), "(32,16)");
/// ```
pub struct MmaTv<M, P>(PhantomData<(M, P)>);
zst!(MmaTv<M, P>);

impl<M: Tiled, P: super::PartOf> TvSource for MmaTv<M, P> {
    const LAYOUT_TV: Value = <TvLayout<M, P> as Operand>::VALUE;
    const TILER: Tup = match (M::DESC, P::PART) {
        (Desc::Mma(m), super::Part::Mma(op)) => {
            let (i, j, _) = op.modes();
            Tup::flat(&[m.tile_size_mnk(i), m.tile_size_mnk(j)])
        }
        _ => crate::algebra::err("make_tiled_copy", crate::Condition::WrongOperand, 0, 0).raise(),
    };
}

/// CuTe's `TiledCopy`: the atom `CopyAtom<Op, T>` tiled over the thread-value layout of
/// `S` (a [`ThrVal`] from [`make_tiled_copy`], or an [`MmaTv`] from
/// [`make_tiled_copy_a`] and friends). Zero-sized; its layouts are constants.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::Layout;
/// type Copy = TiledCopy<SM80_CP_ASYNC_CACHEALWAYS<U128>, Bf16, ThrVal<Layout!((32,4):(4,1)), Layout!((1,8):(0,1))>>;
/// assert_eq!(Copy::COPY.tiler.to_string(), "(32,32)");
/// assert_eq!(core::mem::size_of::<Copy>(), 0);
/// ```
pub struct TiledCopy<Op, T, S>(PhantomData<(Op, T, S)>);
zst!(TiledCopy<Op, T, S>);

impl<Op: CopyOp, T: Element, S: TvSource> Tiled for TiledCopy<Op, T, S> {
    const DESC: Desc = Desc::Copy(Self::COPY);
}

impl<Op: CopyOp, T: Element, S: TvSource> TiledCopy<Op, T, S> {
    /// The description, computed by rustc (an atom that does not divide the tiling is a
    /// compile error).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::Layout;
    /// type Copy = TiledCopy<SM75_U32x4_LDSM_N, Bf16, ThrVal<Layout!((32,1):(1,0)), Layout!((1,8):(0,1))>>;
    /// assert_eq!(Copy::COPY.layout_tv.to_string(), "(32,8):(1,32)");
    /// ```
    pub const COPY: TiledCopyDesc =
        match TiledCopyDesc::new(CopyTraits::of::<Op, T>(), &S::LAYOUT_TV, &S::TILER) {
            Ok(d) => d,
            Err(e) => e.raise(),
        };

    /// The description (for run-time use: partitions of dynamic layouts, pictures).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
    ///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
    /// assert_eq!(copy.desc().tiler, copy.tiler());
    /// ```
    pub fn desc(&self) -> TiledCopyDesc {
        Self::COPY
    }

    /// CuTe's `Tiler_MN`: the tile's shape.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
    ///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
    /// assert_eq!(copy.tiler().to_string(), "(16,64)");
    /// ```
    pub fn tiler(&self) -> Tup {
        Self::COPY.tiler
    }

    /// CuTe's `get_layoutS_TV()`: `(thread index, value) -> (m,n)` of the source.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<SM75_U32x4_LDSM_N, Bf16>::new(), layout!((32,1):(1,0)), layout!((1,8):(0,1)));
    /// assert_eq!(copy.layout_s_tv().to_string(), "((8,4),((2,4),1)):((4,64),((32,1),0))");
    /// ```
    pub fn layout_s_tv(&self) -> TvLayout<Self, PartS> {
        TvLayout::default()
    }

    /// CuTe's `get_layoutD_TV()`: `(thread index, value) -> (m,n)` of the destination.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<SM75_U32x4_LDSM_N, Bf16>::new(), layout!((32,1):(1,0)), layout!((1,8):(0,1)));
    /// assert_eq!(copy.layout_d_tv().to_string(), "(32,(8,1)):(1,(32,0))");
    /// ```
    pub fn layout_d_tv(&self) -> TvLayout<Self, PartD> {
        TvLayout::default()
    }

    /// CuTe's `get_slice(thr_idx).partition_S(tensor)` on the layout `l`: thread
    /// `thr_idx`'s `(CPY,CPY_M,CPY_N,...)` layout and the offset of its first value.
    ///
    /// A swizzled `l` keeps its swizzle, the offset going inside it (see
    /// [`TiledMmaDesc::partition`](super::TiledMmaDesc::partition)).
    ///
    /// @pre `rank(l) >= rank(tiler)`, `thr_idx < size<0>(layout_tv)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
    ///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
    /// let (p, off) = copy.partition_s(layout!((64,64):(64,1)), 9);
    /// assert_eq!((p.to_string(), off), ("((8,1),4,1):((1,0),1024,0)".to_string(), 72));
    /// ```
    pub fn partition_s<L: Operand>(&self, l: L, thr_idx: usize) -> PartitionOut<Self, PartS, L> {
        partition::<Self, PartS, L>(l, thr_idx)
    }

    /// CuTe's `partition_D`; see [`TiledCopy::partition_s`].
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
    ///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
    /// let (p, off) = copy.partition_d(layout!((64,64):(1,64)), 127);
    /// assert_eq!((p.to_string(), off), ("((8,1),4,1):((64,0),16,0)".to_string(), 3599));
    /// ```
    pub fn partition_d<L: Operand>(&self, l: L, thr_idx: usize) -> PartitionOut<Self, PartD, L> {
        partition::<Self, PartD, L>(l, thr_idx)
    }

    /// CuTe's `retile_S/retile_D(tensor)` on a thread's fragment layout (offset 0).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let copy = make_tiled_copy_a(CopyAtom::<SM75_U32x4_LDSM_N, Bf16>::new(), mma);
    /// let (frag, _) = copy.retile(layout!(((2,2,2),2,2):((1,2,4),8,16)));
    /// assert_eq!(frag.to_string(), "((8,1),2,2):((1,0),8,16)");
    /// ```
    pub fn retile<L: Operand>(&self, l: L) -> PartitionOut<Self, Retile, L> {
        partition::<Self, Retile, L>(l, 0)
    }

    /// The CuTe C++ type: `cute::TiledCopy<cute::Copy_Atom<op,T>,LayoutTV,Tiler>`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
    ///     layout!((16,8):(8,1)), layout!((1,8):(0,1)));
    /// assert!(copy.cpp_type().starts_with("cute::TiledCopy<cute::Copy_Atom<cute::UniversalCopy<cute::uint128_t>,cute::bfloat16_t>,cute::Layout<"));
    /// ```
    pub fn cpp_type(&self) -> String {
        let d = &Self::COPY;
        format!(
            "cute::TiledCopy<{},{},{}>",
            CopyAtom::<Op, T>::cpp_type(),
            cpp_type(&d.layout_tv),
            cpp_tuple(&d.tiler)
        )
    }
}

/// CuTe's `make_tiled_copy(copy_atom, thr_layout, val_layout)`.
///
/// @pre `thr` and `val` are static; the atom's threads and values divide the tiling's.
/// @post the tile is `product_each(shape(raked_product(thr, val)))`.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike};
/// let copy = make_tiled_copy(CopyAtom::<UniversalCopy<U128>, Bf16>::new(),
///     layout!((16,8):(8,1)), layout!((1,8):(1,1)));
/// assert_eq!(copy.tiler().to_string(), "(16,64)");
/// assert_eq!(copy.layout_s_tv().to_string(), "((8,16),(8,1)):((128,1),(16,0))");
/// let (part, off) = copy.partition_s(layout!((64,64):(64,1)), 9);
/// assert_eq!((part.to_string(), off), ("((8,1),4,1):((1,0),1024,0)".to_string(), 64 + 8));
/// ```
pub fn make_tiled_copy<Op, T, Thr, Val>(
    atom: CopyAtom<Op, T>,
    thr: Thr,
    val: Val,
) -> TiledCopy<Op, T, ThrVal<Thr, Val>>
where
    Op: CopyOp,
    T: Element,
    Thr: Operand<Kind = Static>,
    Val: Operand<Kind = Static>,
{
    let _ = (atom, thr, val, TiledCopy::<Op, T, ThrVal<Thr, Val>>::COPY);
    TiledCopy::default()
}

macro_rules! copy_for_mma {
    ($($(#[$m:meta])* $f:ident => $p:ident;)+) => {$(
        $(#[$m])*
        pub fn $f<Op: CopyOp, T: Element, M: Tiled>(atom: CopyAtom<Op, T>, mma: M) -> TiledCopy<Op, T, MmaTv<M, $p>> {
            let _ = (atom, mma, TiledCopy::<Op, T, MmaTv<M, $p>>::COPY);
            TiledCopy::default()
        }
    )+};
}

copy_for_mma! {
    /// CuTe's `make_tiled_copy_A(copy_atom, tiled_mma)`: copies A as the MMA's threads hold it.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::layout;
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let copy = make_tiled_copy_a(CopyAtom::<SM75_U32x4_LDSM_N, Bf16>::new(), mma);
    /// assert_eq!(copy.tiler().to_string(), "(32,16)");
    /// ```
    make_tiled_copy_a => PartA;
    /// CuTe's `make_tiled_copy_B(copy_atom, tiled_mma)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::layout;
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let copy = make_tiled_copy_b(CopyAtom::<SM75_U32x2_LDSM_N, Bf16>::new(), mma);
    /// assert_eq!(copy.tiler().to_string(), "(16,16)");
    /// ```
    make_tiled_copy_b => PartB;
    /// CuTe's `make_tiled_copy_C(copy_atom, tiled_mma)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::layout;
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let copy = make_tiled_copy_c(CopyAtom::<SM90_U32x2_STSM_N, F16>::new(), mma);
    /// assert_eq!(copy.tiler().to_string(), "(32,16)");
    /// ```
    make_tiled_copy_c => PartC;
}
