// coalesce(layout, profile): a rank-3 profile for a rank-2 layout.
use ferrocute_layout::*;

fn main() {
    let _ = coalesce_profile(layout!((4,3):(1,4)), tuple!((1,1,1)));
}
