// get<2>: mode 2 of a rank-2 layout.
use ferrocute_layout::*;

fn main() {
    let _ = get::<2, _>(layout!((4,3):(1,4)));
}
