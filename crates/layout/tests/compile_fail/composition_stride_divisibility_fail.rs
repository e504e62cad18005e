// composition: right stride 6 lands in the left mode of shape 4; 6 is neither a divisor
// nor a multiple of 4 (CuTe's stride divisibility condition).
use ferrocute_layout::*;

fn main() {
    let _ = composition(layout!((4,6):(6,1)), layout!(2:6));
}
