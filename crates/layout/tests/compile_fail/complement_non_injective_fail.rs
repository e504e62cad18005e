// complement: (2,2):(1,1) maps (1,0) and (0,1) to the same offset 1.
use ferrocute_layout::*;

fn main() {
    let _ = complement(layout!((2,2):(1,1)), tuple!(8));
}
