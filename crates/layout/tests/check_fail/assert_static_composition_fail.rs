// An invalid static composition named in assert_static! fails `cargo check` at this line.
use ferrocute_layout::*;

type Tile = Layout!((3,4):(4,1));
type Bad = Composition<Tile, Layout!(4:2)>;
assert_static!(Bad);

fn main() {}
