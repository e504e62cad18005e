//! Results of tiled operations as layout types: a thread-value layout ([`TvLayout`]) and a
//! thread's partition of a layout ([`Partition`]), static when their inputs are.

use super::tiled_copy_desc::{CopySide, TiledCopyDesc};
use super::tiled_mma_desc::{MmaOperand, TiledMmaDesc};
use super::Res2;
use crate::algebra::{err, Res};
use crate::error::{Condition, LayoutError};
use crate::operand::eval::DYNAMIC;
use crate::operand::kind::{Kind, Static};
use crate::operand::layout_like::LayoutLike;
use crate::operand::Operand;
use crate::value::Value;
use core::marker::PhantomData;

/// A tiled MMA or tiled copy as values.
// Both variants are large plain values built in `const`, where nothing can be boxed.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
/// let d = mma.desc();
/// let desc = Desc::Mma(d);
/// assert!(desc.layout_tv(Part::Copy(CopySide::S)).is_err());
/// ```
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Desc {
    /// A `TiledMMA`.
    Mma(TiledMmaDesc),
    /// A `TiledCopy`.
    Copy(TiledCopyDesc),
}

/// Which layout of a tiled operation: an MMA operand, a copy side, or a copy's retile.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
/// let d = mma.desc();
/// assert_eq!(Desc::Mma(d).layout_tv(PartB::PART).unwrap(), mma.layout_b_tv().value());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// An MMA operand (A, B or C).
    Mma(MmaOperand),
    /// A copy's source or destination.
    Copy(CopySide),
    /// A copy's `retile`.
    Retile,
}

const fn wrong() -> LayoutError {
    err("partition", Condition::WrongOperand, 0, 0)
}

impl Desc {
    /// The thread-value layout of `part` (CuTe's `get_layoutA_TV`, ..., `get_layoutS_TV`).
    ///
    /// @pre `part` is A, B or C of an MMA, or S or D of a copy.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let d = mma.desc();
    /// assert_eq!(Desc::Mma(d).layout_tv(Part::Mma(MmaOperand::A)).unwrap(), mma.layout_a_tv().value());
    /// ```
    pub const fn layout_tv(&self, part: Part) -> Res {
        match (self, part) {
            (Desc::Mma(m), Part::Mma(op)) => m.layout_tv(op),
            (Desc::Copy(c), Part::Copy(side)) => c.layout_tv(side),
            _ => Err(wrong()),
        }
    }

    /// Thread `thr_idx`'s partition of `l` (`partition_A`, ..., `partition_S`, `retile`;
    /// a retile's offset is 0).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let d = mma.desc();
    /// let l = layout!((64,32):(1,64)).value();
    /// assert_eq!(Desc::Mma(d).partition(PartA::PART, &l, 5).unwrap().1, 129);
    /// ```
    pub const fn partition(&self, part: Part, l: &Value, thr_idx: usize) -> Res2 {
        match (self, part) {
            (Desc::Mma(m), Part::Mma(op)) => m.partition(op, l, thr_idx),
            (Desc::Copy(c), Part::Copy(side)) => c.partition(side, l, thr_idx),
            (Desc::Copy(c), Part::Retile) => match c.retile(l) {
                Ok(v) => Ok((v, 0)),
                Err(e) => Err(e),
            },
            _ => Err(wrong()),
        }
    }
}

/// A tiled operation type: its description as a constant.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// fn tile<T: Tiled>(_: T) -> bool { matches!(T::DESC, Desc::Mma(_)) }
/// assert!(tile(make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((1,1,1):(0,0,0)), ())));
/// ```
pub trait Tiled: Copy + Default {
    /// The description, computed by rustc.
    const DESC: Desc;
}

/// Names a [`Part`] at the type level.
///
/// ```
/// use ferrocute_layout::atom::*;
/// assert_eq!(PartS::PART, Part::Copy(CopySide::S));
/// ```
pub trait PartOf: Copy + Default {
    /// The part.
    const PART: Part;
}

macro_rules! parts {
    ($($(#[$m:meta])* $name:ident = $part:expr;)+) => {$(
        $(#[$m])*
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use ferrocute_layout::atom::*;"]
        #[doc = concat!("assert_eq!(", stringify!($name), "::PART, ", stringify!($part), ");")]
        #[doc = "```"]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl PartOf for $name {
            const PART: Part = $part;
        }
    )+};
}

parts! {
    /// Operand A of a tiled MMA.
    PartA = Part::Mma(MmaOperand::A);
    /// Operand B of a tiled MMA.
    PartB = Part::Mma(MmaOperand::B);
    /// Operand C of a tiled MMA.
    PartC = Part::Mma(MmaOperand::C);
    /// Source of a tiled copy.
    PartS = Part::Copy(CopySide::S);
    /// Destination of a tiled copy.
    PartD = Part::Copy(CopySide::D);
    /// A tiled copy's `retile`.
    Retile = Part::Retile;
}

/// A thread-value layout of a tiled operation as a static layout type (zero-sized).
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike};
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((1,1,1):(0,0,0)), ());
/// let c = mma.layout_c_tv();
/// assert_eq!(c.to_string(), "((4,8),((2,2),(1,1))):((32,1),((16,8),(0,0)))");
/// assert_eq!(core::mem::size_of_val(&c), 0);
/// ```
pub struct TvLayout<T, P>(PhantomData<(T, P)>);

impl<T, P> Clone for TvLayout<T, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, P> Copy for TvLayout<T, P> {}
impl<T, P> Default for TvLayout<T, P> {
    fn default() -> Self {
        TvLayout(PhantomData)
    }
}

impl<T: Tiled, P: PartOf> Operand for TvLayout<T, P> {
    type Kind = Static;
    const VALUE: Value = match T::DESC.layout_tv(P::PART) {
        Ok(v) => v,
        Err(e) => e.raise(),
    };
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::VALUE)
    }
}

impl<T: Tiled, P: PartOf> LayoutLike for TvLayout<T, P> {}

impl<T: Tiled, P: PartOf> core::fmt::Display for TvLayout<T, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&Self::VALUE, f)
    }
}

/// The layout of one thread's partition of a layout `L` by a tiled operation: a static
/// layout type when `L` is static (the layout does not depend on the thread; only the
/// offset does), a run-time one otherwise.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
/// let d = mma.desc();
/// let (p, _) = mma.partition_c(layout!((32,16):(1,32)), 0);
/// assert_eq!(core::mem::size_of_val(&p), 0);
/// assert_eq!(p.to_string(), "((2,2),1,1):((32,8),0,0)");
/// ```
pub struct Partition<T, P, L> {
    l: L,
    t: PhantomData<(T, P)>,
}

impl<T, P, L: Copy> Clone for Partition<T, P, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, P, L: Copy> Copy for Partition<T, P, L> {}

impl<T, P, L> Partition<T, P, L> {
    pub(crate) const fn new(l: L) -> Self {
        Partition { l, t: PhantomData }
    }
}

impl<T: Tiled, P: PartOf, L: Operand> Operand for Partition<T, P, L> {
    type Kind = L::Kind;
    const VALUE: Value = match Self::RESULT {
        Ok(v) => v,
        Err(e) => e.raise(),
    };
    const RESULT: Result<Value, LayoutError> = if <L::Kind as Kind>::STATIC {
        match L::RESULT {
            Ok(l) => match T::DESC.partition(P::PART, &l, 0) {
                Ok((v, _)) => Ok(v),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        }
    } else {
        Ok(DYNAMIC)
    };
    fn try_value(&self) -> Result<Value, LayoutError> {
        if <L::Kind as Kind>::STATIC {
            return Ok(Self::VALUE);
        }
        T::DESC
            .partition(P::PART, &self.l.try_value()?, 0)
            .map(|r| r.0)
    }
}

impl<T: Tiled, P: PartOf, L: Operand> LayoutLike for Partition<T, P, L> {}

impl<T: Tiled, P: PartOf, L: Operand> core::fmt::Display for Partition<T, P, L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.value(), f)
    }
}

/// What a partition returns: the layout (a type, or a checked run-time value) and the
/// thread's offset.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand, Tup, Value};
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
/// let d = mma.desc();
/// let n = 32;
/// let (p, off) = mma.partition_c(layout!(({n},16):(1,{n})), 33);
/// assert_eq!((p.unwrap().to_string(), off), ("((2,2),1,1):((32,8),0,0)".to_string(), 80));
/// ```
pub type PartitionOut<T, P, L> = (
    <<L as Operand>::Kind as Kind>::Out<Partition<T, P, L>>,
    usize,
);

/// Partitions `l` for thread `thr_idx`: the layout (see [`Partition`]) and the offset (0
/// when a dynamic partition fails; its error is in the layout's `Result`).
pub(crate) fn partition<T: Tiled, P: PartOf, L: Operand>(
    l: L,
    thr_idx: usize,
) -> PartitionOut<T, P, L> {
    let off = l
        .try_value()
        .and_then(|v| T::DESC.partition(P::PART, &v, thr_idx))
        .map_or(0, |r| r.1);
    (<L::Kind as Kind>::finish(Partition::new(l)), off)
}
