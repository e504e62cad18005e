// left_inverse: the strides, sorted, are 2 then 3; 3 is not a multiple of 2, so the
// inverse cannot step from the first mode to the second (CuTe asserts on this too).
use ferrocute_layout::*;

fn main() {
    let _ = left_inverse(layout!((2,2):(2,3)));
}
