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

/// A fragment for a static layout type: `fragment!(f32, L)` is
/// [`make_fragment_like::<f32, L, { L::SIZE }>`](crate::make_fragment_like)`(L::default())`.
///
/// ```
/// use ferrocute_layout::{fragment, Layout};
/// let mut acc = fragment!(f32, Layout!((4,2):(2,1)));
/// acc[(3, 1)] = 1.0;
/// assert_eq!(acc.engine()[7], 1.0);
/// ```
#[macro_export]
macro_rules! fragment {
    ($t:ty, $l:ty) => {
        $crate::make_fragment_like::<$t, $l, { <$l as $crate::LayoutLike>::SIZE }>(
            <$l as ::core::default::Default>::default(),
        )
    };
}

/// Checks static layout types where they are named: each type's algebra is evaluated in an
/// item of the calling crate, so a violated precondition is an error at this line on
/// `cargo check` (and in rust-analyzer), not only when a function using the type is built.
///
/// ```
/// use ferrocute_layout::{assert_static, Composition, Layout, Swizzle, TileToShape, Tuple};
/// type SmemA = TileToShape<Composition<Swizzle<3, 4, 3>, Layout!((8,64):(64,1))>, Tuple!((128,64))>;
/// assert_static!(SmemA);
/// ```
///
/// ```compile_fail
/// use ferrocute_layout::{assert_static, Composition, Layout};
/// assert_static!(Composition<Layout!((3,4):(4,1)), Layout!(4:2)>);   // stride 2 straddles mode 3
/// ```
#[macro_export]
macro_rules! assert_static {
    ($($t:ty),+ $(,)?) => {$(
        const _: () = {
            if !<<$t as $crate::Operand>::Kind as $crate::kind::Kind>::STATIC {
                ::core::panic!("assert_static!: the layout has run-time leaves");
            }
            if let ::core::result::Result::Err(e) = <$t as $crate::Operand>::RESULT {
                e.raise()
            }
        };
    )+};
}
