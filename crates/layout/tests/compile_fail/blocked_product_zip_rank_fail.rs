// blocked_product: the block (4):(1) is a rank-1 tuple, the tiler 4:1 is an integer mode,
// so their modes cannot be zipped.
use ferrocute_layout::*;

fn main() {
    let _ = blocked_product(layout!((4):(1)), layout!(4:1));
}
