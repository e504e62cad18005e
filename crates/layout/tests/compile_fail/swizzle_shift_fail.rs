// Swizzle<3,4,2>: XORs 3 bits shifted by only 2, so the source and target bits overlap
// (CuTe requires |S| >= B).
use ferrocute_layout::*;

fn main() {
    let _ = composition(Swizzle::<3, 4, 2>, layout!((8,64):(64,1)));
}
