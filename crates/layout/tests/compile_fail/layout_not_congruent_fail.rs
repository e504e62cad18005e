// layout!: shape (4,3) and stride (1,(4,2)) have different tuple structure.
use ferrocute_layout::*;

fn main() {
    let _ = layout!((4,3):(1,(4,2)));
}
