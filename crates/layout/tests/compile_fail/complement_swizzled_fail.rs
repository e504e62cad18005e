// complement: not defined for a swizzled (composed) layout.
use ferrocute_layout::*;

fn main() {
    let sw = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
    let _ = complement(sw, tuple!(16384));
}
