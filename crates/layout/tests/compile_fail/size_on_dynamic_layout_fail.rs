// LayoutLike::SIZE of a layout with a run-time leaf has no value: it must not compile
// (it once gave the placeholder 1 for (4,6):(1,4), whose size is 24).
use ferrocute_layout::*;

fn main() {
    println!("{}", <Layout!((4,dyn):(1,4)) as LayoutLike>::SIZE);
}
