// make_fragment_like's array length must be the layout's size (8 here).
use ferrocute_layout::*;

fn main() {
    let f = make_fragment_like::<f32, Layout!((4,2):(1,4)), 7>(Default::default());
    println!("{}", f.size());
}
