// slice: a rank-3 coordinate for a rank-2 layout.
use ferrocute_layout::*;

fn main() {
    let _ = slice(tuple!((_,2,1)), layout!((4,3):(1,4)));
}
