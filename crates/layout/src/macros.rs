//! `layout!`, `Layout!`, `tuple!` and `Tuple!`: CuTe's `shape:stride` notation.

/// The type of an integer tuple in CuTe notation: `Tuple!((4,(2,2)))`; a literal is static
/// (`C<N>`), `dyn` a run-time `usize`, `_` CuTe's underscore.
///
/// ```
/// use ferrocute_layout::{Tuple, C};
/// let _: Tuple!((4,(2,dyn))) = (C::<4>, (C::<2>, 7usize));
/// ```
#[macro_export]
macro_rules! Tuple {
    (_) => { $crate::Free };
    (dyn) => { usize };
    ($n:literal) => { $crate::C<$n> };
    (($($e:tt),* $(,)?)) => { ($($crate::Tuple!($e),)*) };
}

/// An integer tuple value in CuTe notation: `tuple!((4,(2,{n})))`; a literal is static,
/// `{expr}` a run-time `usize`, `_` CuTe's underscore.
///
/// ```
/// use ferrocute_layout::{tuple, Operand};
/// let n = 3;
/// assert_eq!(tuple!((4,(2,{n}),_)).value().to_string(), "(4,(2,3),_)");
/// ```
#[macro_export]
macro_rules! tuple {
    (_) => { $crate::Free };
    ({$e:expr}) => { ($e) as usize };
    ($n:literal) => { $crate::C::<$n> };
    (($($e:tt),* $(,)?)) => { ($($crate::tuple!($e),)*) };
}

/// The type of a layout in CuTe notation: `Layout!((4,(2,2)):(1,(8,4)))`
/// (`dyn` marks a run-time leaf).
///
/// ```
/// use ferrocute_layout::{Layout, LayoutLike};
/// type SmemA = Layout!((128,64):(64,1));
/// assert_eq!(<SmemA as LayoutLike>::COSIZE, 8192);
/// ```
#[macro_export]
macro_rules! Layout {
    ($s:tt : $d:tt) => { $crate::Layout<$crate::Tuple!($s), $crate::Tuple!($d)> };
}

/// A layout value in CuTe notation: `layout!((4,(2,2)):(1,(8,4)))`, `layout!(8:1)`;
/// `{expr}` is a run-time leaf.
///
/// ```
/// use ferrocute_layout::layout;
/// let m = 5;
/// assert_eq!(layout!((4,{m}):(1,4)).to_string(), "(4,5):(1,4)");
/// assert_eq!(layout!((4):(1)).to_string(), "(4):(1)");
/// ```
#[macro_export]
macro_rules! layout {
    ($s:tt : $d:tt) => {
        $crate::Layout::new($crate::tuple!($s), $crate::tuple!($d))
    };
}
