// The error of an inner operation reaches the user's line too.
use ferrocute_layout::*;

type Inner = Composition<Layout!(((8),2):((0),1)), Layout!((8,(1,3)):(2,(0,3)))>;
assert_static!(LogicalDivide<Inner, Layout!(2:1)>);

fn main() {}
