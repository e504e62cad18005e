//! `make_fragment_like` and host `copy`.

use super::engine::{HostEngine, HostEngineMut};
use super::Tensor;
use crate::error::{Condition, LayoutError};
use crate::operand::expr::Expr;
use crate::operand::kind::{Kind, Static};
use crate::operand::layout_like::LayoutLike;
use crate::ops::MakeLayoutOf;

/// A register-style fragment: `N` elements in an array, laid out compactly
/// (column-major) over `L`'s shape.
///
/// `N` must equal `L::SIZE`; it is a parameter because stable Rust cannot size an array
/// from a generic `L` (`[T; L::SIZE]` needs `generic_const_exprs`). A function generic over
/// `L` takes `const N: usize` beside it, and the equality is checked when it is
/// instantiated; where `L` is concrete, [`crate::fragment!`] writes `N` for you.
///
/// Unlike CuTe, whose fragment keeps the order of the source's strides beyond mode 0, the
/// fragment is always column-major over the shape.
///
/// ```
/// use ferrocute_layout::{make_fragment_like, Layout, LayoutLike};
/// type ThrTile = Layout!((2,(2,2)):(2,(16,64)));
/// fn clear<L: LayoutLike + Default, const N: usize>() -> f32 {
///     let frag = make_fragment_like::<f32, L, N>(L::default());
///     frag.iter().sum()
/// }
/// assert_eq!(clear::<ThrTile, { <ThrTile as LayoutLike>::SIZE }>(), 0.0);
/// let f = ferrocute_layout::fragment!(f32, ThrTile);
/// assert_eq!(f.layout().to_string(), "(2,(2,2)):(1,(2,4))");
/// ```
pub fn make_fragment_like<T: Default + Copy, L: LayoutLike, const N: usize>(
    layout: L,
) -> Tensor<[T; N], MakeLayoutOf<L>> {
    const {
        assert!(
            N == L::SIZE,
            "make_fragment_like: N must be the layout's size"
        )
    };
    let compact = <Static as Kind>::finish(Expr::new((layout,)));
    Tensor::from_parts([T::default(); N], compact, 0)
}

/// CuTe's `copy(src, dst)` on the host: element `i` of `dst` becomes element `i` of `src`,
/// for every 1-D coordinate `i`.
///
/// @pre `size(src) == size(dst)`
///
/// ```
/// use ferrocute_layout::{copy, layout, make_tensor};
/// let src: Vec<u32> = (0..6).collect();
/// let mut dst = vec![0u32; 6];
/// let s = make_tensor(&src[..], layout!((2,3):(3,1))).unwrap();         // row-major 2x3
/// let mut d = make_tensor(&mut dst[..], layout!((2,3):(1,2))).unwrap();  // column-major
/// copy(&s, &mut d).unwrap();
/// assert_eq!(dst, [0, 3, 1, 4, 2, 5]);
/// ```
pub fn copy<E1, L1, E2, L2>(
    src: &Tensor<E1, L1>,
    dst: &mut Tensor<E2, L2>,
) -> Result<(), LayoutError>
where
    E1: HostEngine,
    E2: HostEngineMut<Elem = E1::Elem>,
    E1::Elem: Clone,
    L1: LayoutLike,
    L2: LayoutLike,
{
    if src.size() != dst.size() {
        return Err(LayoutError::new(
            "copy",
            Condition::SizeMismatch,
            src.size(),
            dst.size(),
        ));
    }
    for i in 0..src.size() {
        *dst.at_mut(i) = src.at(i).clone();
    }
    Ok(())
}
