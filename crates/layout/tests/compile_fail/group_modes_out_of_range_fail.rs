// group<1,3>: modes [1,3) of a rank-2 layout.
use ferrocute_layout::*;

fn main() {
    let _ = group_modes::<1, 3, _>(layout!((4,3):(1,4)));
}
