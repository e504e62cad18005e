//! Tensor operations that change the layout: slicing, tiling, partitioning, composition
//! and the divides. The elements stay where they are; only the layout and the offset move.
//!
//! With static operands the result's layout is an expression type computed by rustc; the
//! offset of a run-time coordinate is computed at run time (CuTe's static layout with a
//! dynamic offset). Offsets are taken in the layout inside a swizzle
//! ([`LayoutLike::at_raw`]), and a tensor applies its layout's swizzle after adding its
//! offset, so cutting a swizzled tensor keeps every element where it was (CuTe folds the
//! offset into the `ComposedLayout` the same way).

use super::Tensor;
use crate::algebra::frees;
#[cfg(doc)]
use crate::atom::{PartA, PartB, PartC, PartD, PartS};
use crate::atom::{PartOf, Partition, Retile, Tiled};
use crate::error::LayoutError;
use crate::operand::expr::Expr;
use crate::operand::int_tuple::IntTuple;
use crate::operand::kind::{Join, Kind, Static};
use crate::operand::layout_like::LayoutLike;
use crate::operand::opcode as op;
use crate::operand::Operand;
use crate::tup::Tup;
use crate::value::Value;
use core::marker::PhantomData;

/// What slicing by coordinate `C` keeps: the positions of its `_`, as a static operand
/// (they do not depend on the coordinate's integers).
#[derive(Debug)]
pub struct SliceOf<C>(PhantomData<C>);

impl<C> Clone for SliceOf<C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C> Copy for SliceOf<C> {}

impl<C: IntTuple> Operand for SliceOf<C> {
    type Kind = Static;
    const VALUE: Value = Value::tuple(C::SLICE);
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::VALUE)
    }
}

/// The layout of `tensor.slice(c)`.
pub type SliceLayout<C, L> = Expr<op::Slice, (L, SliceOf<C>)>;
/// What `local_tile` keeps of the zipped divide `Z`: its tile mode, whole (one `_` per
/// sub-mode), at the tile coordinate `C`; `local_partition` keeps the rest mode at a
/// thread's coordinate (`C = ()`, `REST = true`). As [`SliceOf`], what is kept does not
/// depend on the coordinate's integers, so the result is static when `Z` is.
#[derive(Debug)]
pub struct ModeSlice<Z, C, const REST: bool> {
    divided: Z,
    c: PhantomData<C>,
}

impl<Z: Copy, C, const REST: bool> Clone for ModeSlice<Z, C, REST> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Z: Copy, C, const REST: bool> Copy for ModeSlice<Z, C, REST> {}

impl<Z: Operand, C: IntTuple, const REST: bool> ModeSlice<Z, C, REST> {
    const fn of(z: &Value) -> Value {
        if REST {
            Value::tuple(Tup::pair(&Tup::leaf(0), &frees(z.mode(1).rank())))
        } else {
            Value::tuple(Tup::pair(&frees(z.mode(0).rank()), &C::SLICE))
        }
    }
}

impl<Z: Operand, C: IntTuple, const REST: bool> Operand for ModeSlice<Z, C, REST> {
    type Kind = Z::Kind;
    const VALUE: Value = if <Z::Kind as Kind>::STATIC {
        Self::of(&Z::VALUE)
    } else {
        crate::operand::eval::DYNAMIC
    };
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::of(&self.divided.try_value()?))
    }
}

/// The zipped divide of `L` by `T`.
type Zipped<L, T> = Expr<op::ZippedDivide, (L, T)>;
/// The layout of `tensor.local_tile(tiler, coord)`: the tile mode of the zipped divide
/// (sliced, so that a swizzle stays).
pub type LocalTileLayout<L, T, C> =
    Expr<op::Slice, (Zipped<L, T>, ModeSlice<Zipped<L, T>, C, false>)>;
/// The zipped divide of `L` by the thread layout `Thr`'s shape.
type ZippedByThreads<L, Thr> = Zipped<L, Expr<op::ProductEach, (Thr,)>>;
/// The layout of `tensor.local_partition(thr, idx)`: the rest mode of the zipped divide by
/// the thread layout's shape.
pub type LocalPartitionLayout<L, Thr> = Expr<
    op::Slice,
    (
        ZippedByThreads<L, Thr>,
        ModeSlice<ZippedByThreads<L, Thr>, (), true>,
    ),
>;

type Out<K, V, X> = <K as Kind>::TensorOut<V, X>;
/// A checked tensor over `V` whose layout is `X` when kind `K` is static.
type TensorOf<K, V, X> = Result<Tensor<V, <K as Kind>::Layout<X>>, LayoutError>;
/// What `tensor.local_tile(tiler, coord)` returns.
pub type LocalTile<E, L, T, C> =
    TensorOf<Join<<L as Operand>::Kind, <T as Operand>::Kind>, E, LocalTileLayout<L, T, C>>;
/// What `tensor.local_partition(thr, idx)` returns.
pub type LocalPartition<E, L, Thr> =
    TensorOf<Join<<L as Operand>::Kind, <Thr as Operand>::Kind>, E, LocalPartitionLayout<L, Thr>>;

impl<E, L: LayoutLike> Tensor<E, L> {
    /// CuTe's `tensor(c)` with `_` in `c`: the sub-tensor of the modes where `c` is `_`.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor, tuple, LayoutLike};
    /// let data: Vec<u32> = (0..12).collect();
    /// let t = make_tensor(&data[..], layout!((3,4):(4,1))).unwrap();   // row-major 3x4
    /// let row = t.slice((1usize, ferrocute_layout::Free));             // row 1, run-time index
    /// assert_eq!(row.layout().to_string(), "(4):(1)");                 // still a static layout
    /// assert_eq!(row.iter().copied().collect::<Vec<_>>(), [4, 5, 6, 7]);
    /// ```
    pub fn slice<C: IntTuple>(self, c: C) -> Out<Join<L::Kind, Static>, E, SliceLayout<C, L>> {
        // `_` counts as 0; a coordinate that does not fit is a compile error for a static
        // layout and the result's error for a dynamic one.
        let off = if <L::Kind as Kind>::STATIC {
            self.layout.at_raw(c)
        } else {
            self.layout.try_at_raw(c).unwrap_or(0)
        };
        let e = Expr::new((self.layout, SliceOf::<C>(PhantomData)));
        <Join<L::Kind, Static> as Kind>::tensor(self.engine, e, self.offset + off)
    }

    /// CuTe's `local_tile(tensor, tiler, coord)`: the tile at tile coordinate `coord` of
    /// `zipped_divide(tensor, tiler)`. With a static layout and tiler, the tile's layout is
    /// static and its offset is the rest mode evaluated at `coord`.
    ///
    /// @pre the tiler has at most the tensor's rank; `coord` indexes the tiles' modes.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor, tuple, LayoutLike};
    /// let data: Vec<u32> = (0..48).collect();
    /// let t = make_tensor(&data[..], layout!((8,6):(1,8))).unwrap();
    /// let tile = t.local_tile(tuple!((4,3)), (1usize, 1usize)).unwrap();
    /// assert_eq!(tile.layout().to_string(), "(4,3):(1,8)");
    /// assert_eq!(tile[(0, 0)], 4 + 3 * 8);
    /// ```
    pub fn local_tile<T: Operand, C: IntTuple>(self, tiler: T, coord: C) -> LocalTile<E, L, T, C> {
        type K<L, T> = Join<<L as Operand>::Kind, <T as Operand>::Kind>;
        let divided = Expr::<op::ZippedDivide, _>::new((self.layout, tiler));
        let rest = Expr::<op::Get<1>, _>::new((divided,));
        let off = if <K<L, T> as Kind>::STATIC {
            rest.at(coord)
        } else {
            rest.try_at(coord)?
        };
        let keep = ModeSlice {
            divided,
            c: PhantomData,
        };
        let tile = <K<L, T> as Kind>::checked(Expr::new((divided, keep)))?;
        Ok(Tensor::from_parts(self.engine, tile, self.offset + off))
    }

    /// CuTe's `local_partition(tensor, thr, idx)`: the elements thread `idx` of the thread
    /// layout `thr` owns when `thr`'s shape tiles the tensor (the thread at `i` with
    /// `thr(i) == idx` takes element `i` of every tile).
    ///
    /// @pre `thr` maps some index below its size to `idx`.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor, LayoutLike};
    /// let data: Vec<u32> = (0..48).collect();
    /// let t = make_tensor(&data[..], layout!((8,6):(1,8))).unwrap();
    /// let mine = t.local_partition(layout!((4,2):(1,4)), 5).unwrap();  // thread (1,1)
    /// assert_eq!(mine.layout().to_string(), "(2,3):(4,16)");
    /// assert_eq!(mine.iter().copied().collect::<Vec<_>>(), [9, 13, 25, 29, 41, 45]);
    /// ```
    pub fn local_partition<Thr: LayoutLike>(
        self,
        thr: Thr,
        idx: usize,
    ) -> LocalPartition<E, L, Thr> {
        type K<L, T> = Join<<L as Operand>::Kind, <T as Operand>::Kind>;
        let i = Expr::<op::RightInverse, _>::new((thr,)).call(idx);
        if i >= thr.size() || thr.call(i) != idx {
            return Err(LayoutError::new(
                "local_partition",
                crate::Condition::ModeOutOfRange,
                idx,
                thr.size(),
            ));
        }
        let tiler = Expr::<op::ProductEach, _>::new((thr,));
        let divided = Expr::<op::ZippedDivide, _>::new((self.layout, tiler));
        let off = Expr::<op::Get<0>, _>::new((divided,)).call(i);
        let keep = ModeSlice {
            divided,
            c: PhantomData,
        };
        let part = <K<L, Thr> as Kind>::checked(Expr::new((divided, keep)))?;
        Ok(Tensor::from_parts(self.engine, part, self.offset + off))
    }
}

impl<E, L: LayoutLike> Tensor<E, L> {
    /// A tiled MMA's or copy's partition of this tensor for thread `thr`: CuTe's
    /// `thr_mma.partition_A/B/C(tensor)` (`P` = [`PartA`], [`PartB`], [`PartC`]) and
    /// `thr_copy.partition_S/D(tensor)` ([`PartS`], [`PartD`]); the layout is static when
    /// this tensor's is (it does not depend on the thread, only the offset does).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, make_tensor, LayoutLike};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let c: Vec<u32> = (0..64 * 64).collect();
    /// let t = make_tensor(&c[..], layout!((64,64):(64,1))).unwrap();
    /// let mine = t.partition::<_, PartC>(mma, 127);
    /// let (frag, off) = mma.partition_c(layout!((64,64):(64,1)), 127);
    /// assert_eq!((mine.layout().to_string(), mine.offset()), (frag.to_string(), off));
    /// assert_eq!(mine[0], c[off]);
    /// ```
    pub fn partition<T: Tiled, P: PartOf>(
        self,
        _tiled: T,
        thr: usize,
    ) -> Out<L::Kind, E, Partition<T, P, L>> {
        let (layout, off) = crate::atom::partition::<T, P, L>(self.layout, thr);
        <L::Kind as Kind>::tensor_of(self.engine, layout, self.offset + off)
    }

    /// A tiled copy's `retile` of this tensor (a thread's fragment seen with the copy's
    /// value layout).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, make_tensor, LayoutLike};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let copy = make_tiled_copy_a(CopyAtom::<SM75_U32x4_LDSM_N, Bf16>::new(), mma);
    /// let frag: Vec<u16> = (0..32).collect();                // a thread's A fragment
    /// let t = make_tensor(&frag[..], layout!(((2,2,2),2,2):((1,2,4),8,16))).unwrap().retile(copy);
    /// assert_eq!(t.layout().to_string(), "((8,1),2,2):((1,0),8,16)");
    /// assert_eq!(t[((5, 0), 1, 1)], 5 + 8 + 16);
    /// ```
    pub fn retile<T: Tiled>(self, _tiled: T) -> Out<L::Kind, E, Partition<T, Retile, L>> {
        <L::Kind as Kind>::tensor(self.engine, Partition::new(self.layout), self.offset)
    }
}

macro_rules! layout_ops {
    ($($(#[$m:meta])* $f:ident => $op:ident;)+) => {
        impl<E, L: LayoutLike> Tensor<E, L> {$(
            $(#[$m])*
            pub fn $f<B: Operand>(self, b: B) -> Out<Join<L::Kind, B::Kind>, E, Expr<op::$op, (L, B)>> {
                <Join<L::Kind, B::Kind> as Kind>::tensor(self.engine, Expr::new((self.layout, b)), self.offset)
            }
        )+}
    };
}

layout_ops! {
    /// CuTe's `composition(tensor, b)`: the tensor seen through `b` (`R(c) = T(b(c))`).
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor};
    /// let data: Vec<u32> = (0..12).collect();
    /// let t = make_tensor(&data[..], layout!((4,3):(3,1))).unwrap();   // row-major 4x3
    /// let row0 = t.compose(layout!(3:4));                              // indices 0, 4, 8: (0,j)
    /// assert_eq!(row0.iter().copied().collect::<Vec<_>>(), [0, 1, 2]);
    /// ```
    compose => Composition;
    /// CuTe's `logical_divide(tensor, tiler)`: `((tile),(rest))`.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor, LayoutLike};
    /// let data: Vec<u32> = (0..16).collect();
    /// let t = make_tensor(&data[..], layout!(16:1)).unwrap().logical_divide(layout!(4:2));
    /// assert_eq!(t.layout().to_string(), "(4,(2,2)):(2,(1,8))");
    /// assert_eq!(t[(3, (1, 1))], 6 + 1 + 8);
    /// ```
    logical_divide => LogicalDivide;
    /// CuTe's `zipped_divide(tensor, tiler)`: `((tile modes),(rest modes))`.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor, tuple, LayoutLike};
    /// let data: Vec<u32> = (0..48).collect();
    /// let t = make_tensor(&data[..], layout!((8,6):(1,8))).unwrap().zipped_divide(tuple!((2,3)));
    /// assert_eq!(t.layout().to_string(), "((2,3),(4,2)):((1,8),(2,24))");
    /// assert_eq!(t[((1, 2), (3, 1))], 1 + 16 + 6 + 24);
    /// ```
    zipped_divide => ZippedDivide;
    /// CuTe's `tiled_divide(tensor, tiler)`: `((tile modes),rest0,rest1,...)`.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor, tuple, LayoutLike};
    /// let data: Vec<u32> = (0..48).collect();
    /// let t = make_tensor(&data[..], layout!((8,6):(1,8))).unwrap().tiled_divide(tuple!((2,3)));
    /// assert_eq!(t.layout().to_string(), "((2,3),4,2):((1,8),2,24)");
    /// assert_eq!(t[((1, 2), 3, 1)], 1 + 16 + 6 + 24);
    /// ```
    tiled_divide => TiledDivide;
    /// CuTe's `flat_divide(tensor, tiler)`: `(tile0,tile1,...,rest0,rest1,...)`.
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor, tuple, LayoutLike};
    /// let data: Vec<u32> = (0..48).collect();
    /// let t = make_tensor(&data[..], layout!((8,6):(1,8))).unwrap().flat_divide(tuple!((2,3)));
    /// assert_eq!(t.layout().to_string(), "(2,3,4,2):(1,8,2,24)");
    /// assert_eq!(t[(1, 2, 3, 1)], 1 + 16 + 6 + 24);
    /// ```
    flat_divide => FlatDivide;
}
