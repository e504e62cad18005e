// A tiled copy whose threads hold fewer values than one ldmatrix.x4 moves is rejected.
use ferrocute_layout::atom::*;
use ferrocute_layout::layout;

fn main() {
    let copy = make_tiled_copy(
        CopyAtom::<SM75_U32x4_LDSM_N, Bf16>::new(),
        layout!((32,1):(1,0)),
        layout!((1,4):(0,1)),
    );
    let _ = copy.tiler();
}
