// take<1,4>: modes [1,4) of a rank-3 layout.
use ferrocute_layout::*;

fn main() {
    let _ = take::<1, 4, _>(layout!((4,2,3):(1,4,8)));
}
