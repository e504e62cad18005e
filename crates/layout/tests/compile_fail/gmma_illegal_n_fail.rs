// A GMMA N that is not a multiple of 8 in 8..=256 is rejected at compile time.
use ferrocute_layout::atom::*;
use ferrocute_layout::layout;

fn main() {
    let mma = make_tiled_mma(SM90_64xNx16_F32BF16BF16_SS::<12>, layout!((1,1,1):(0,0,0)), ());
    let _ = mma.tile_size_mnk();
}
