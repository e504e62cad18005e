// A kernel configuration whose 4-stage 256x256x64 pipeline needs 256 KiB of shared memory:
// rustc rejects it when the configuration's layouts are derived.
use ferrocute_kernels::sm80::{Sm80Config, Sm80Layouts};
use ferrocute_layout::{Composition, Layout, Swizzle};

struct TooBig;
impl Sm80Config for TooBig {
    const NAME: &'static str = "too_big";
    const STRUCT: &'static str = "TooBig";
    const TILE: [usize; 3] = [256, 256, 64];
    const STAGES: usize = 4;
    const WARPS: [usize; 2] = [2, 4];
    const RASTER_GROUP: usize = 8;
    type SmemAtomK = Composition<Swizzle<3, 3, 3>, Layout!((8,64):(64,1))>;
    type SmemAtomMN = Composition<Swizzle<3, 3, 3>, Layout!((64,8):(1,64))>;
}

fn main() {
    const L: Sm80Layouts = <TooBig as Sm80Config>::LAYOUTS;
    println!("{}", L.smem_a_k);
}
