// tile_to_shape: a rank-3 block tiled to a rank-2 shape.
use ferrocute_layout::*;

fn main() {
    let _ = tile_to_shape(layout!((2,2,2):(1,2,4)), tuple!((4,4)));
}
