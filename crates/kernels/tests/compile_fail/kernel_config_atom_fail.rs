// A kernel configuration whose K-major swizzle atom (8x64) does not tile the BK = 32 slab:
// tile_to_shape rejects it at compile time.
use ferrocute_kernels::sm80::{Sm80Config, Sm80Layouts};
use ferrocute_layout::{Composition, Layout, Swizzle};

struct BadAtom;
impl Sm80Config for BadAtom {
    const NAME: &'static str = "bad_atom";
    const STRUCT: &'static str = "BadAtom";
    const TILE: [usize; 3] = [128, 128, 32];
    const STAGES: usize = 3;
    const WARPS: [usize; 2] = [2, 2];
    const RASTER_GROUP: usize = 8;
    type SmemAtomK = Composition<Swizzle<3, 3, 3>, Layout!((8,64):(64,1))>;
    type SmemAtomMN = Composition<Swizzle<3, 3, 3>, Layout!((64,8):(1,64))>;
}

fn main() {
    const L: Sm80Layouts = <BadAtom as Sm80Config>::LAYOUTS;
    println!("{}", L.smem_a_k);
}
