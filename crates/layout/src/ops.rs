//! CuTe's free functions over layout types.
//!
//! With static operands each returns a zero-sized [`Expr`] type whose layout rustc computes
//! (a violated precondition is a compile error naming the operation and the condition); with
//! a dynamic operand each returns `Result<DynLayout, LayoutError>`.

use crate::operand::expr::Expr;
use crate::operand::kind::{Join, Kind};
use crate::operand::layout_like::LayoutLike;
use crate::operand::opcode as op;
use crate::operand::Operand;
use crate::tup::Tup;

/// What a one-operand operation returns (see [`crate::operand::kind`]).
pub type Out1<A, O> = <<A as Operand>::Kind as Kind>::Out<Expr<O, (A,)>>;
/// What a two-operand operation returns (see [`crate::operand::kind`]).
pub type Out2<A, B, O> =
    <Join<<A as Operand>::Kind, <B as Operand>::Kind> as Kind>::Out<Expr<O, (A, B)>>;

macro_rules! unary {
    ($($(#[$m:meta])* $f:ident => $op:ident, $alias:ident;)+) => {$(
        $(#[$m])*
        pub fn $f<A: Operand>(a: A) -> Out1<A, op::$op> {
            <A::Kind as Kind>::finish(Expr::new((a,)))
        }
        #[doc = concat!("The type of `", stringify!($f), "(A)` for static `A`.")]
        pub type $alias<A> = Expr<op::$op, (A,)>;
    )+};
}

macro_rules! binary {
    ($($(#[$m:meta])* $f:ident => $op:ident, $alias:ident;)+) => {$(
        $(#[$m])*
        pub fn $f<A: Operand, B: Operand>(a: A, b: B) -> Out2<A, B, op::$op>
        where
            A::Kind: Kind,
        {
            <Join<A::Kind, B::Kind> as Kind>::finish(Expr::new((a, b)))
        }
        #[doc = concat!("The type of `", stringify!($f), "(A, B)` for static operands.")]
        pub type $alias<A, B> = Expr<op::$op, (A, B)>;
    )+};
}

unary! {
    /// CuTe's `make_layout(shape)`: compact column-major; size-1 modes get stride 0.
    ///
    /// ```
    /// use ferrocute_layout::{make_layout, tuple};
    /// assert_eq!(make_layout(tuple!((4,(2,3)))).to_string(), "(4,(2,3)):(1,(4,8))");
    /// ```
    make_layout => MakeLayout, MakeLayoutOf;
    /// CuTe's `make_layout(shape, LayoutRight{})`: compact row-major.
    ///
    /// ```
    /// use ferrocute_layout::{make_layout_right, tuple};
    /// assert_eq!(make_layout_right(tuple!((4,3))).to_string(), "(4,3):(3,1)");
    /// ```
    make_layout_right => MakeLayoutRight, MakeLayoutRightOf;
    /// CuTe's `coalesce(layout)` (see [`crate::algebra::coalesce`]).
    ///
    /// ```
    /// use ferrocute_layout::{coalesce, layout};
    /// assert_eq!(coalesce(layout!((2,(1,6)):(1,(6,2)))).to_string(), "12:1");
    /// ```
    coalesce => Coalesce, Coalesce;
    /// CuTe's `filter(layout)`: coalesce without the stride-0 modes.
    ///
    /// ```
    /// use ferrocute_layout::{filter, layout};
    /// assert_eq!(filter(layout!((4,2,3):(1,0,4))).to_string(), "12:1");
    /// ```
    filter => Filter, Filter;
    /// CuTe's `complement(layout)` up to the layout's cosize.
    ///
    /// ```
    /// use ferrocute_layout::{complement_cosize, layout};
    /// assert_eq!(complement_cosize(layout!((2,2):(1,6))).to_string(), "3:2");
    /// ```
    complement_cosize => ComplementCosize, ComplementCosize;
    /// CuTe's `right_inverse(layout)` (see [`crate::algebra::right_inverse`]).
    ///
    /// ```
    /// use ferrocute_layout::{right_inverse, layout};
    /// assert_eq!(right_inverse(layout!((4,2):(2,1))).to_string(), "(2,4):(4,1)");
    /// ```
    right_inverse => RightInverse, RightInverse;
    /// CuTe's `left_inverse(layout)` (see [`crate::algebra::left_inverse`]).
    ///
    /// ```
    /// use ferrocute_layout::{left_inverse, layout};
    /// assert_eq!(left_inverse(layout!(4:2)).to_string(), "(2,4):(0,1)");
    /// ```
    left_inverse => LeftInverse, LeftInverse;
    /// CuTe's `flatten(layout)`.
    ///
    /// ```
    /// use ferrocute_layout::{flatten, layout};
    /// assert_eq!(flatten(layout!((4,(2,2)):(1,(8,4)))).to_string(), "(4,2,2):(1,8,4)");
    /// ```
    flatten => Flatten, Flatten;
}

binary! {
    /// CuTe's `composition(a, b)`: `R(c) == a(b(c))`; `b` is a layout, a by-mode tuple of
    /// layouts and integers, or a shape (see [`crate::algebra::composition`]).
    ///
    /// ```
    /// use ferrocute_layout::{composition, layout, tuple};
    /// assert_eq!(composition(layout!((4,3):(3,1)), layout!(16:1)).to_string(), "(4,4):(3,1)");
    /// assert_eq!(composition(layout!((12,(4,8)):(59,(13,1))), tuple!((3,8))).to_string(), "(3,(4,2)):(59,(13,1))");
    /// ```
    composition => Composition, Composition;
    /// CuTe's `coalesce(layout, profile)`: coalesces mode by mode.
    ///
    /// ```
    /// use ferrocute_layout::{coalesce_profile, layout, tuple};
    /// assert_eq!(coalesce_profile(layout!(((2,2),(3,1)):((1,2),(4,0))), tuple!((1,1))).to_string(), "(4,3):(1,4)");
    /// ```
    coalesce_profile => CoalesceProfile, CoalesceProfile;
    /// CuTe's `complement(layout, cotarget)` (see [`crate::algebra::complement`]).
    ///
    /// ```
    /// use ferrocute_layout::{complement, layout, tuple};
    /// assert_eq!(complement(layout!(4:2), tuple!(24)).to_string(), "(2,3):(1,8)");
    /// ```
    complement => Complement, Complement;
    /// CuTe's `max_common_layout(a, b)`.
    ///
    /// ```
    /// use ferrocute_layout::{max_common_layout, layout};
    /// assert_eq!(max_common_layout(layout!((4,2):(1,4)), layout!((4,2):(1,8))).to_string(), "4:1");
    /// ```
    max_common_layout => MaxCommonLayout, MaxCommonLayout;
    /// CuTe's `logical_divide(layout, tiler)`: `((tile),(rest))`.
    ///
    /// ```
    /// use ferrocute_layout::{logical_divide, layout};
    /// assert_eq!(logical_divide(layout!(16:1), layout!(4:2)).to_string(), "(4,(2,2)):(2,(1,8))");
    /// ```
    logical_divide => LogicalDivide, LogicalDivide;
    /// CuTe's `zipped_divide(layout, tiler)`: `((tile modes),(rest modes))`.
    ///
    /// ```
    /// use ferrocute_layout::{zipped_divide, layout, tuple};
    /// assert_eq!(zipped_divide(layout!((8,6):(1,8)), tuple!((2,3))).to_string(), "((2,3),(4,2)):((1,8),(2,24))");
    /// ```
    zipped_divide => ZippedDivide, ZippedDivide;
    /// CuTe's `tiled_divide(layout, tiler)`: `((tile modes),rest0,rest1,...)`.
    ///
    /// ```
    /// use ferrocute_layout::{tiled_divide, layout, tuple};
    /// assert_eq!(tiled_divide(layout!((8,6):(1,8)), tuple!((2,3))).to_string(), "((2,3),4,2):((1,8),2,24)");
    /// ```
    tiled_divide => TiledDivide, TiledDivide;
    /// CuTe's `flat_divide(layout, tiler)`: `(tile0,tile1,...,rest0,rest1,...)`.
    ///
    /// ```
    /// use ferrocute_layout::{flat_divide, layout, tuple};
    /// assert_eq!(flat_divide(layout!((8,6):(1,8)), tuple!((2,3))).to_string(), "(2,3,4,2):(1,8,2,24)");
    /// ```
    flat_divide => FlatDivide, FlatDivide;
    /// CuTe's `logical_product(block, tiler)`: `(block, complement(block) ∘ tiler)`.
    ///
    /// ```
    /// use ferrocute_layout::{logical_product, layout};
    /// assert_eq!(logical_product(layout!((2,2):(4,1)), layout!(6:1)).to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    /// ```
    logical_product => LogicalProduct, LogicalProduct;
    /// CuTe's `zipped_product(block, tiler)`.
    zipped_product => ZippedProduct, ZippedProduct;
    /// CuTe's `tiled_product(block, tiler)`.
    tiled_product => TiledProduct, TiledProduct;
    /// CuTe's `flat_product(block, tiler)`.
    flat_product => FlatProduct, FlatProduct;
    /// CuTe's `blocked_product(block, tiler)`: `((block0,tiler0),(block1,tiler1),...)`.
    ///
    /// ```
    /// use ferrocute_layout::{blocked_product, layout};
    /// assert_eq!(blocked_product(layout!((2,2):(1,2)), layout!((3,4):(1,3))).to_string(), "((2,3),(2,4)):((1,4),(2,12))");
    /// ```
    blocked_product => BlockedProduct, BlockedProduct;
    /// CuTe's `raked_product(block, tiler)`: `((tiler0,block0),(tiler1,block1),...)`.
    ///
    /// ```
    /// use ferrocute_layout::{raked_product, layout};
    /// assert_eq!(raked_product(layout!((2,2):(1,2)), layout!((3,4):(1,3))).to_string(), "((3,2),(4,2)):((4,1),(12,2))");
    /// ```
    raked_product => RakedProduct, RakedProduct;
    /// CuTe's `tile_to_shape(block, shape)`: repeats the block (swizzled or not) to a shape.
    ///
    /// ```
    /// use ferrocute_layout::{composition, tile_to_shape, layout, tuple, Swizzle};
    /// let atom = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
    /// let smem = tile_to_shape(atom, tuple!((128,64)));
    /// assert_eq!(smem.to_string(), "Sw<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))");
    /// ```
    tile_to_shape => TileToShape, TileToShape;
    /// CuTe's `append(layout, x)`.
    ///
    /// ```
    /// use ferrocute_layout::{append, layout};
    /// assert_eq!(append(layout!((4,2):(1,4)), layout!(3:8)).to_string(), "(4,2,3):(1,4,8)");
    /// ```
    append => Append, Append;
    /// CuTe's `prepend(layout, x)`.
    prepend => Prepend, Prepend;
}

/// CuTe's `slice(coord, layout)`: the sub-layout of the modes where `coord` is `_`.
///
/// ```
/// use ferrocute_layout::{slice, layout, tuple};
/// assert_eq!(slice(tuple!((_,2)), layout!((4,3):(1,4))).to_string(), "(4):(1)");
/// ```
pub fn slice<Cr: Operand, L: Operand>(c: Cr, l: L) -> Out2<L, Cr, op::Slice> {
    <Join<L::Kind, Cr::Kind> as Kind>::finish(Expr::new((l, c)))
}
/// The type of `slice(coord, layout)`.
pub type Slice<Cr, L> = Expr<op::Slice, (L, Cr)>;

/// CuTe's `slice_and_offset(coord, layout)`: the sub-layout and the offset of the fixed part.
///
/// ```
/// use ferrocute_layout::{slice_and_offset, layout, tuple};
/// let (s, off) = slice_and_offset(tuple!((_,2)), layout!((4,3):(1,4)));
/// assert_eq!((s.to_string(), off), ("(4):(1)".to_string(), 8));
/// ```
pub fn slice_and_offset<Cr: Operand, L: Operand>(c: Cr, l: L) -> (Out2<L, Cr, op::Slice>, usize) {
    let off = match (c.try_value(), l.try_value()) {
        (Ok(cv), Ok(lv)) => crate::algebra::crd2idx(&cv.shape, &lv.shape, &lv.stride).unwrap_or(0),
        _ => 0,
    };
    (slice(c, l), off)
}

/// CuTe's `make_layout_tv(thr, val)`: the tile's shape and the `(thr,val) -> coord` layout.
///
/// ```
/// use ferrocute_layout::{make_layout_tv, layout};
/// let (tiler, tv) = make_layout_tv(layout!((4,32):(32,1)), layout!((4,8):(8,1)));
/// assert_eq!(tiler.to_string(), "(16,256)");
/// assert_eq!(tv.to_string(), "((32,4),(8,4)):((128,4),(16,1))");
/// ```
pub fn make_layout_tv<T: Operand, V: Operand>(
    thr: T,
    val: V,
) -> (Tup, Out2<T, V, op::MakeLayoutTv>) {
    let tiler = match (thr.try_value(), val.try_value()) {
        (Ok(t), Ok(v)) => crate::algebra::make_layout_tv(&t, &crate::operand::eval::as_layout(&v))
            .map(|tv| tv.tiler)
            .unwrap_or(Tup::EMPTY),
        _ => Tup::EMPTY,
    };
    let tv = <Join<T::Kind, V::Kind> as Kind>::finish(Expr::new((thr, val)));
    (tiler, tv)
}
/// The type of the layout of `make_layout_tv(thr, val)`.
pub type MakeLayoutTv<T, V> = Expr<op::MakeLayoutTv, (T, V)>;

/// CuTe's `layout<I>(l)`: mode `I`.
///
/// ```
/// use ferrocute_layout::{get, layout};
/// assert_eq!(get::<1, _>(layout!((4,(2,2)):(1,(8,4)))).to_string(), "(2,2):(8,4)");
/// ```
pub fn get<const I: usize, L: Operand>(l: L) -> Out1<L, op::Get<I>> {
    <L::Kind as Kind>::finish(Expr::new((l,)))
}

/// CuTe's `take<B,E>(l)`: modes `[B, E)`.
///
/// ```
/// use ferrocute_layout::{take, layout};
/// assert_eq!(take::<1, 3, _>(layout!((4,2,3):(1,4,8))).to_string(), "(2,3):(4,8)");
/// ```
pub fn take<const B: usize, const E: usize, L: Operand>(l: L) -> Out1<L, op::Take<B, E>> {
    <L::Kind as Kind>::finish(Expr::new((l,)))
}

/// CuTe's `group<B,E>(l)`: modes `[B, E)` become one mode.
///
/// ```
/// use ferrocute_layout::{group_modes, layout};
/// assert_eq!(group_modes::<0, 2, _>(layout!((4,2,3):(1,4,8))).to_string(), "((4,2),3):((1,4),8)");
/// ```
pub fn group_modes<const B: usize, const E: usize, L: Operand>(
    l: L,
) -> Out1<L, op::GroupModes<B, E>> {
    <L::Kind as Kind>::finish(Expr::new((l,)))
}

/// CuTe's `select<I...>(l)` for one to four modes: `select::<2, 0, {usize::MAX}, {usize::MAX}, _>`
/// is easier written with [`select2`]/[`select3`].
pub fn select<const I0: usize, const I1: usize, const I2: usize, const I3: usize, L: Operand>(
    l: L,
) -> Out1<L, op::Select<I0, I1, I2, I3>> {
    <L::Kind as Kind>::finish(Expr::new((l,)))
}

/// CuTe's `select<I0,I1>(l)`.
///
/// ```
/// use ferrocute_layout::{select2, layout};
/// assert_eq!(select2::<2, 0, _>(layout!((4,2,3):(1,4,8))).to_string(), "(3,4):(8,1)");
/// ```
pub fn select2<const I0: usize, const I1: usize, L: Operand>(l: L) -> Out1<L, op::Select<I0, I1>> {
    <L::Kind as Kind>::finish(Expr::new((l,)))
}

/// CuTe's `select<I0,I1,I2>(l)`.
pub fn select3<const I0: usize, const I1: usize, const I2: usize, L: Operand>(
    l: L,
) -> Out1<L, op::Select<I0, I1, I2>> {
    <L::Kind as Kind>::finish(Expr::new((l,)))
}

/// CuTe's `replace<I>(l, x)`.
///
/// ```
/// use ferrocute_layout::{replace, layout};
/// assert_eq!(replace::<1, _, _>(layout!((4,2):(1,4)), layout!(3:8)).to_string(), "(4,3):(1,8)");
/// ```
pub fn replace<const I: usize, L: Operand, X: Operand>(l: L, x: X) -> Out2<L, X, op::Replace<I>> {
    <Join<L::Kind, X::Kind> as Kind>::finish(Expr::new((l, x)))
}

/// CuTe's `max_common_vector(a, b)`: how many leading elements both map contiguously.
///
/// ```
/// use ferrocute_layout::{max_common_vector, layout};
/// assert_eq!(max_common_vector(layout!((4,2):(1,4)), layout!((4,2):(1,8))), Ok(4));
/// ```
pub fn max_common_vector<A: Operand, B: Operand>(a: A, b: B) -> Result<usize, crate::LayoutError> {
    crate::algebra::max_common_vector(&a.try_value()?, &b.try_value()?)
}

/// CuTe's `idx2crd(idx, shape)`: the natural coordinate of a 1-D index (or of a partial
/// coordinate, whose integers stand for whole modes).
///
/// ```
/// use ferrocute_layout::{idx2crd, tuple};
/// assert_eq!(idx2crd(5usize, tuple!((2,(2,2)))).unwrap().to_string(), "(1,(0,1))");
/// assert_eq!(idx2crd(tuple!((1,3)), tuple!((2,(2,2)))).unwrap().to_string(), "(1,(1,1))");
/// ```
pub fn idx2crd<I: Operand, S: Operand>(idx: I, shape: S) -> Result<Tup, crate::LayoutError> {
    crate::algebra::idx2crd_tuple(&idx.try_value()?.shape, &shape.try_value()?.shape)
}

/// CuTe's `crd2idx(coord, shape, stride)`.
///
/// ```
/// use ferrocute_layout::{crd2idx, tuple};
/// assert_eq!(crd2idx(tuple!((1,(0,1))), tuple!((2,(2,2))), tuple!((1,(2,4)))), Ok(5));
/// ```
pub fn crd2idx<Cr: Operand, S: Operand, D: Operand>(
    c: Cr,
    shape: S,
    stride: D,
) -> Result<usize, crate::LayoutError> {
    crate::algebra::crd2idx(
        &c.try_value()?.shape,
        &shape.try_value()?.shape,
        &stride.try_value()?.shape,
    )
}

/// CuTe's `size(layout)`.
pub fn size<L: LayoutLike>(l: &L) -> usize {
    l.size()
}

/// CuTe's `cosize(layout)`.
pub fn cosize<L: LayoutLike>(l: &L) -> usize {
    l.cosize()
}

/// CuTe's `local_tile(layout, tiler, coord)`: the tile at tile coordinate `coord` and its
/// starting offset.
///
/// ```
/// use ferrocute_layout::{local_tile, layout, tuple};
/// let m = 8;
/// let (tile, off) = local_tile(layout!(({m},6):(1,{m})), tuple!((4,3)), tuple!((1,1))).unwrap();
/// assert_eq!((tile.to_string(), off), ("(4,3):(1,8)".to_string(), 28));
/// ```
pub fn local_tile<L: Operand, T: Operand, Cr: Operand>(
    l: L,
    tiler: T,
    coord: Cr,
) -> Result<(crate::operand::dyn_layout::DynLayout, usize), crate::LayoutError> {
    let (v, off) = crate::algebra::local_tile(
        &l.try_value()?,
        &crate::operand::eval::as_tiler(&tiler.try_value()?),
        &coord.try_value()?.shape,
    )?;
    Ok((crate::operand::dyn_layout::DynLayout::from_value(v), off))
}

/// CuTe's `local_partition(layout, thr, idx)`: what thread `idx` of `thr` owns, and where
/// it starts.
///
/// ```
/// use ferrocute_layout::{local_partition, layout};
/// let (part, off) = local_partition(layout!((8,6):(1,8)), layout!((4,2):(1,4)), 5).unwrap();
/// assert_eq!((part.to_string(), off), ("(2,3):(4,16)".to_string(), 9));
/// ```
pub fn local_partition<L: Operand, T: Operand>(
    l: L,
    thr: T,
    idx: usize,
) -> Result<(crate::operand::dyn_layout::DynLayout, usize), crate::LayoutError> {
    let (v, off) = crate::algebra::local_partition(
        &l.try_value()?,
        &crate::operand::eval::as_layout(&thr.try_value()?),
        idx,
    )?;
    Ok((crate::operand::dyn_layout::DynLayout::from_value(v), off))
}
