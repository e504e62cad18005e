// Valid static inputs for every operation the compile-fail cases misuse: this must build
// (and its presence makes trybuild run `cargo build`, so const evaluation runs).
use ferrocute_layout::*;

fn main() {
    let _ = composition(layout!((4,3):(3,1)), layout!(16:1));
    let _ = composition(layout!((4,6):(6,1)), layout!(2:4));
    let _ = composition(layout!((4,3):(1,4)), tuple!((2,3)));
    let _ = logical_divide(layout!((4,3):(1,4)), tuple!((2,3)));
    let _ = logical_product(layout!((2,2):(1,2)), tuple!((2,2)));
    let _ = complement(layout!((2,2):(1,2)), tuple!(8));
    let _ = left_inverse(layout!((2,2):(1,2)));
    let _ = tile_to_shape(layout!((4,4):(1,4)), tuple!((8,8)));
    let _ = blocked_product(layout!((4):(1)), layout!((4):(1)));
    let _ = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
    let l = layout!((4,3):(1,4));
    assert_eq!(l.at((1, 2)), 9);
    let _ = get::<1, _>(l);
    let _ = take::<0, 2, _>(l);
    let _ = select2::<1, 0, _>(l);
    let _ = group_modes::<0, 2, _>(l);
    let _ = coalesce_profile(layout!(((2,2),(3,1)):((1,2),(4,0))), tuple!((1,1)));
    let _ = slice(tuple!((_,2)), l);
}
