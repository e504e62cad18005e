// composition: right stride 2 < left mode 3 but does not divide it, and B = 4:2 continues
// past that mode. CuTe C++ accepts this and returns a layout that is not A(B(c));
// ferrocute rejects it.
use ferrocute_layout::*;

fn main() {
    let _ = composition(layout!((3,4):(4,1)), layout!(4:2));
}
