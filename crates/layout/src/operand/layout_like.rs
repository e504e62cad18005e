//! [`LayoutLike`]: the queries and evaluation every layout type offers.

use crate::error::LayoutError;
use crate::flat::Flat;
use crate::operand::int_tuple::IntTuple;
use crate::operand::kind::Kind;
use crate::operand::Operand;
use crate::tup::Tup;

/// Queries and evaluation of a layout (static, dynamic, or an algebra result).
///
/// For a static layout the associated constants are usable in `const` items and `call`
/// compiles to plain index arithmetic.
///
/// ```
/// use ferrocute_layout::{layout, LayoutLike, Layout};
/// let l = layout!((4,(2,2)):(1,(8,4)));
/// assert_eq!((l.size(), l.cosize(), l.rank(), l.depth()), (16, 16, 2, 2));
/// const N: usize = <Layout!((4,(2,2)):(1,(8,4))) as LayoutLike>::COSIZE;
/// assert_eq!(N, 16);
/// assert_eq!(l.at((1, 3)), 1 + 8 + 4);
/// assert_eq!(l.at((1, (1, 1))), 13);
/// assert_eq!(l.shape().to_string(), "(4,(2,2))");
/// ```
pub trait LayoutLike: Operand + core::fmt::Display {
    /// `size` of a static layout (a compile error for one with run-time leaves: call
    /// [`LayoutLike::size`]).
    const SIZE: usize = static_value::<Self>(
        "LayoutLike::SIZE of a layout with run-time leaves: call .size() instead",
    )
    .size();
    /// `cosize` of a static layout (static only, as `SIZE`).
    const COSIZE: usize = static_value::<Self>(
        "LayoutLike::COSIZE of a layout with run-time leaves: call .cosize() instead",
    )
    .cosize();
    /// `rank` of a static layout (static only, as `SIZE`).
    const RANK: usize = static_value::<Self>(
        "LayoutLike::RANK of a layout with run-time leaves: call .rank() instead",
    )
    .rank();
    /// `depth` of a static layout (static only, as `SIZE`).
    const DEPTH: usize = static_value::<Self>(
        "LayoutLike::DEPTH of a layout with run-time leaves: call .depth() instead",
    )
    .depth();
    /// The flat form evaluation runs on (static layouts; internal to `call` and `at`).
    #[doc(hidden)]
    const FLAT: Flat = Flat::of(&Self::VALUE);
    /// The flat form of each top-level mode (static layouts; internal to `at`).
    #[doc(hidden)]
    const MODES: [Flat; 8] = Flat::modes(&Self::VALUE);

    /// Number of coordinates (product of the shape).
    #[inline(always)]
    fn size(&self) -> usize {
        if <Self::Kind as Kind>::STATIC {
            let flat: &'static Flat = &Self::FLAT;
            flat.size()
        } else {
            self.value().size()
        }
    }

    /// One past the largest offset: `L(size(L)-1) + 1`.
    fn cosize(&self) -> usize {
        self.value().cosize()
    }

    /// Number of top-level modes.
    fn rank(&self) -> usize {
        self.value().rank()
    }

    /// Nesting depth of the shape.
    fn depth(&self) -> usize {
        self.value().depth()
    }

    /// The shape.
    fn shape(&self) -> Tup {
        self.value().shape
    }

    /// The stride.
    fn stride(&self) -> Tup {
        self.value().stride
    }

    /// The offset of 1-D index `i` (CuTe's `layout(i)`).
    #[inline(always)]
    fn call(&self, i: usize) -> usize {
        if <Self::Kind as Kind>::STATIC {
            let flat: &'static Flat = &Self::FLAT;
            flat.eval(i)
        } else {
            Flat::of(&self.value()).eval(i)
        }
    }

    /// The offset of a coordinate: 1-D, natural (congruent with the shape) or partial
    /// (an integer standing for a whole mode). A coordinate whose structure does not fit
    /// the shape is a compile error for static layouts. Integers past a mode's extent are
    /// not checked: they run on along the layout, as in CuTe.
    ///
    /// # Panics
    /// For a [`crate::DynLayout`] whose run-time shape does not fit `c`; use
    /// [`LayoutLike::try_at`] to get the error instead.
    #[inline(always)]
    fn at<Cr: IntTuple>(&self, c: Cr) -> usize {
        // Checked here too, so that a mismatch points at the caller's line.
        let () = CoordFits::<Self, Cr>::OK;
        self.post(self.at_raw(c))
    }

    /// [`LayoutLike::at`] for dynamic layouts: a mismatched coordinate is an error.
    fn try_at<Cr: IntTuple>(&self, c: Cr) -> Result<usize, LayoutError> {
        let raw = self.try_at_raw(c)?;
        Ok(self.post(raw))
    }

    /// The offset of a coordinate in the layout inside the swizzle (no offset, no swizzle):
    /// what a tensor over a swizzled layout adds to its offset before the swizzle applies.
    /// Equal to [`LayoutLike::at`] for an unswizzled layout.
    ///
    /// ```
    /// use ferrocute_layout::{composition, layout, LayoutLike, Swizzle};
    /// let sw = composition(Swizzle::<1, 0, 1>, layout!((2,2):(1,2)));
    /// assert_eq!((sw.at_raw((0, 1)), sw.at((0, 1))), (2, 3));
    /// ```
    ///
    /// # Panics
    /// As [`LayoutLike::at`].
    #[inline(always)]
    fn at_raw<Cr: IntTuple>(&self, c: Cr) -> usize {
        let () = CoordFits::<Self, Cr>::OK;
        if <Self::Kind as Kind>::STATIC && Cr::PROFILE.is_leaf() {
            // A 1-D coordinate: the layout's own 1-D evaluation.
            let mut leaves = [0usize; 8];
            c.write_leaves(&mut leaves, &mut 0);
            let flat: &'static Flat = &Self::FLAT;
            return flat.eval_raw(leaves[0]);
        }
        let rank = CoordFits::<Self, Cr>::FLAT_RANK;
        if rank > 0 {
            // A flat coordinate on a static layout: one 1-D evaluation per mode, over
            // promoted constants, so the whole sum folds to index arithmetic.
            let mut leaves = [0usize; 8];
            c.write_leaves(&mut leaves, &mut 0);
            let modes: &'static [Flat; 8] = &Self::MODES;
            let mut r = 0;
            for k in 0..rank {
                r += modes[k].eval(leaves[k]);
            }
            return r;
        }
        self.try_at_raw(c).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`LayoutLike::at_raw`] for dynamic layouts: a mismatched coordinate is an error.
    fn try_at_raw<Cr: IntTuple>(&self, c: Cr) -> Result<usize, LayoutError> {
        let v = self.value();
        crate::algebra::crd2idx(&c.try_value()?.shape, &v.shape, &v.stride)
    }

    /// The layout's own offset and swizzle applied to an offset `r` of the layout inside:
    /// `Sw(offset + r)`, or `r` for an unswizzled layout.
    ///
    /// ```
    /// use ferrocute_layout::{composition, layout, LayoutLike, Swizzle};
    /// let sw = composition(Swizzle::<1, 0, 1>, layout!((2,2):(1,2)));
    /// assert_eq!(sw.post(2), 3);
    /// assert_eq!(layout!(4:1).post(2), 2);
    /// ```
    #[inline(always)]
    fn post(&self, r: usize) -> usize {
        if <Self::Kind as Kind>::STATIC {
            let flat: &'static Flat = &Self::FLAT;
            flat.post(r)
        } else {
            let v = self.value();
            if v.composed {
                v.swizzle.apply(v.offset + r)
            } else {
                r
            }
        }
    }

    /// The CuTe C++ type that denotes this layout.
    fn cpp_type(&self) -> String {
        crate::render::cpp_type(&self.value())
    }
}

struct CoordFits<L, Cr>(L, Cr);

impl<L: LayoutLike, Cr: IntTuple> CoordFits<L, Cr> {
    /// The coordinate's rank when it is flat and the layout static (the fast path), else 0.
    const FLAT_RANK: usize = if <L::Kind as Kind>::STATIC
        && !Cr::PROFILE.is_leaf()
        && Cr::PROFILE.depth() == 1
        && Cr::PROFILE.rank() <= 8
    {
        Cr::PROFILE.rank()
    } else {
        0
    };
    const OK: () = if <L::Kind as Kind>::STATIC && !coord_fits(&Cr::PROFILE, &L::VALUE.shape) {
        LayoutError::new(
            "layout(coord)",
            crate::Condition::CoordinateMismatch,
            Cr::PROFILE.rank(),
            L::VALUE.rank(),
        )
        .raise()
    };
}

/// Whether a coordinate of structure `c` can index `shape`.
pub const fn coord_fits(c: &Tup, shape: &Tup) -> bool {
    if c.is_leaf() {
        return true;
    }
    if shape.is_leaf() || c.rank() != shape.rank() {
        return false;
    }
    let mut i = 0;
    while i < c.rank() {
        if !coord_fits(&c.get(i), &shape.get(i)) {
            return false;
        }
        i += 1;
    }
    true
}

/// The value behind a static layout's associated constants; a layout with run-time leaves
/// has none, and reading one is a compile error rather than a placeholder.
const fn static_value<L: LayoutLike>(message: &'static str) -> crate::value::Value {
    if !<L::Kind as Kind>::STATIC {
        panic!("{}", message);
    }
    L::VALUE
}
