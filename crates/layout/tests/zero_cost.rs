//! Fully static layouts, and the results of the algebra on them, are zero-sized, and their
//! queries are usable in `const` items.

use ferrocute_layout::*;
use std::mem::size_of;

type A = Layout!((4,(2,2)):(1,(8,4)));
type Smem = TileToShape<Composition<Swizzle<3, 3, 3>, Layout!((8,64):(64,1))>, Tuple!((128, 64))>;

const SIZE: usize = <Smem as LayoutLike>::SIZE;
const COSIZE: usize = <Composition<A, Layout!(16:1)> as LayoutLike>::COSIZE;
const RANK: usize = <LogicalDivide<A, Layout!(2:1)> as LayoutLike>::RANK;

#[test]
fn static_layouts_and_results_are_zero_sized() {
    assert_eq!(size_of::<A>(), 0);
    assert_eq!(size_of::<Smem>(), 0);
    assert_eq!(size_of::<Composition<A, Layout!(16:1)>>(), 0);
    assert_eq!(
        size_of_val(&logical_divide(layout!((8,6):(1,8)), tuple!((2, 3)))),
        0
    );
    // A dynamic leaf makes it a value.
    let m = 8;
    assert!(size_of_val(&layout!(({m},6):(1,{m}))) > 0);
}

#[test]
fn queries_are_constants() {
    assert_eq!(SIZE, 128 * 64);
    assert_eq!(COSIZE, 16);
    assert_eq!(RANK, 2);
    const S: [usize; SIZE / 4096] = [0; 2];
    assert_eq!(S.len(), 2);
}

#[test]
fn coordinates_on_swizzled_static_layouts_are_swizzled() {
    let sw = tile_to_shape(
        composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1))),
        tuple!((128, 64)),
    );
    for m in 0..128 {
        for n in 0..64 {
            assert_eq!(sw.at((m, n)), sw.call(m + 128 * n), "at ({m},{n})");
            assert_eq!(sw.at((m, n)), sw.try_at((m, n)).unwrap());
        }
    }
}
