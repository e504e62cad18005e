// layout(coord): a rank-3 coordinate for a rank-2 layout.
use ferrocute_layout::*;

fn main() {
    let _ = layout!((4,3):(1,4)).at((1, 2, 3));
}
