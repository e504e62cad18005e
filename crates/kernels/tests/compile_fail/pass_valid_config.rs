// A valid configuration builds (and makes trybuild run `cargo build`, which evaluates the
// constants that carry the checks of the failing cases).
use ferrocute_kernels::sm80::{Sm80Config, Sm80Layouts, Sm80_128x128x32S3};

fn main() {
    const L: Sm80Layouts = <Sm80_128x128x32S3 as Sm80Config>::LAYOUTS;
    println!("{}", L.smem_a_k);
}
