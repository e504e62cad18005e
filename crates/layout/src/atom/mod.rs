//! Atoms and tiled descriptions: CuTe's MMA and copy atoms, `TiledMMA` and `TiledCopy`, as
//! types whose layouts rustc computes.
//!
//! An atom is a zero-sized type carrying CuTe's traits as `const` [`Value`]s
//! ([`MmaAtom`], [`CopyOp`], [`CopyAtom`]). [`make_tiled_mma`] and [`make_tiled_copy`]
//! return zero-sized types ([`TiledMma`], [`TiledCopy`]) whose thread-value layouts and
//! tile sizes are constants computed by the same `const fn`s that partition run-time
//! layouts ([`TiledMmaDesc`], [`TiledCopyDesc`]); every layout equals CuTe C++'s (checked
//! against CuTe by the `atoms_oracle` test).
//!
//! ```
//! use ferrocute_layout::atom::*;
//! use ferrocute_layout::{layout, LayoutLike};
//! let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
//! assert_eq!(mma.tile_size_mnk().to_string(), "(32,16,16)");
//! let (frag, off) = mma.partition_c(layout!((64,32):(1,64)), 5);
//! assert_eq!((frag.to_string(), off), ("((2,2),2,2):((64,8),32,1024)".to_string(), 129));
//! ```

/// Clone, Copy and Default for a zero-sized `name(PhantomData<...>)` (no bounds on the
/// parameters, which `derive` would add).
macro_rules! zst {
    ($name:ident<$($g:ident),+>) => {
        impl<$($g),+> Clone for $name<$($g),+> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($g),+> Copy for $name<$($g),+> {}
        impl<$($g),+> Default for $name<$($g),+> {
            fn default() -> Self {
                $name(PhantomData)
            }
        }
    };
}

mod copy;
mod copy_ops;
mod element;
mod gmma;
mod mma;
mod notation;
mod svg;
mod tiled_copy_desc;
mod tiled_copy_type;
mod tiled_mma_desc;
mod tiled_mma_type;
mod typed;

pub use copy::{CopyAtom, CopyOp, UniversalCopy, SM80_CP_ASYNC_CACHEALWAYS};
pub use copy_ops::*;
pub use element::{Bf16, Element, F16, F32, F64, I8, U128, U16, U32, U64, U8};
pub use gmma::*;
pub use mma::*;
pub use svg::{svg_tiled_copy, svg_tiled_mma};
pub use tiled_copy_desc::{CopySide, CopyTraits, TiledCopyDesc};
pub use tiled_copy_type::{
    make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_copy_c,
};
pub use tiled_copy_type::{MmaTv, ThrVal, TiledCopy, TvSource};
pub use tiled_mma_desc::{MmaOperand, MmaTraits, TiledMmaDesc};
pub use tiled_mma_type::{make_tiled_mma, TiledMma};
pub use typed::{
    Desc, Part, PartA, PartB, PartC, PartD, PartOf, PartS, Partition, Retile, Tiled, TvLayout,
};

use crate::error::LayoutError;
use crate::value::Value;
pub(crate) use typed::partition;

/// A layout and an offset (a thread's partition and where it starts).
///
/// ```
/// use ferrocute_layout::atom::Res2;
/// use ferrocute_layout::{Tup, Value};
/// let r: Res2 = Ok((Value::layout(Tup::leaf(4), Tup::leaf(1)), 8));
/// assert_eq!(r.unwrap().1, 8);
/// ```
pub type Res2 = Result<(Value, usize), LayoutError>;

/// A partition of the layout inside `l`, given `l`'s swizzle and offset back.
const fn swizzled(l: &Value, r: Res2) -> Res2 {
    match r {
        Ok((v, off)) => Ok((l.with_inner(&v), off)),
        Err(e) => Err(e),
    }
}
