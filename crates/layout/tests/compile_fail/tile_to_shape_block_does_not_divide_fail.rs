// tile_to_shape: a 4x4 block cannot tile a 6x8 target (4 does not divide 6).
use ferrocute_layout::*;

fn main() {
    let _ = tile_to_shape(layout!((4,4):(1,4)), tuple!((6,8)));
}
