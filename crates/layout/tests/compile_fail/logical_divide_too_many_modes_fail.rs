// logical_divide: a by-mode tiler of rank 3 applied to a rank-2 layout.
use ferrocute_layout::*;

fn main() {
    let _ = logical_divide(layout!((4,3):(1,4)), tuple!((2,3,1)));
}
