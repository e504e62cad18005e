// select<0,5>: mode 5 of a rank-3 layout.
use ferrocute_layout::*;

fn main() {
    let _ = select2::<0, 5, _>(layout!((4,2,3):(1,4,8)));
}
