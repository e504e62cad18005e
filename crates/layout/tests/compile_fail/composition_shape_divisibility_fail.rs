// composition: B = 6:1 takes 4 elements from A's first mode (shape 4), but 4 does not
// divide 6 (CuTe's shape divisibility condition).
use ferrocute_layout::*;

fn main() {
    let _ = composition(layout!((4,3):(3,1)), layout!(6:1));
}
