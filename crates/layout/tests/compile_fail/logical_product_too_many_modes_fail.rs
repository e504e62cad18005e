// logical_product: a by-mode tiler of rank 3 applied to a rank-2 block.
use ferrocute_layout::*;

fn main() {
    let _ = logical_product(layout!((2,2):(1,2)), tuple!((2,2,2)));
}
