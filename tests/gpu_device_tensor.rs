//! Tensors over device memory: `ferrocute::runtime::Device` as an engine describes and checks
//! kernel arguments. Run on a CUDA machine with `cargo test -- --ignored`.

use ferrocute::runtime::{open, Device};
use ferrocute::{layout, make_tensor, tuple, Condition};

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --ignored"]
fn device_tensors_check_their_layout_against_the_buffer() {
    let stream = open(0).expect("a CUDA device");
    let buf = stream.alloc_zeros::<f32>(64 * 48).unwrap();
    let a = make_tensor(Device::new(&buf), layout!((64,48):(1,64))).unwrap();
    // Tile (3,2) of 16x16 starts at row 48, column 32 of the column-major 64x48 matrix.
    let tile = a.local_tile(tuple!((16, 16)), (3usize, 2usize)).unwrap();
    assert_eq!(tile.offset(), 48 + 32 * 64);
    assert_eq!(tile.layout().to_string(), "(16,16):(1,64)");
    // Thread 5 of a 4x8 thread block owns rows 1, 5, 9, 13 of columns 1 and 9 of the tile.
    let mine = tile.local_partition(layout!((4,8):(1,4)), 5).unwrap();
    assert_eq!(mine.offset(), 48 + 32 * 64 + 1 + 64);
    assert_eq!(mine.layout().to_string(), "(4,2):(4,512)");
    // A layout past the end is refused, for slices and views alike.
    let e = make_tensor(Device::new(&buf), layout!((64,64):(1,64))).unwrap_err();
    assert_eq!(
        (e.condition, e.a, e.b),
        (Condition::EngineTooShort, 64 * 64, 64 * 48)
    );
    let view = buf.slice(64..);
    let e = make_tensor(Device::new(&view), layout!((64,48):(1,64))).unwrap_err();
    assert_eq!((e.a, e.b), (64 * 48, 64 * 47));
    assert!(make_tensor(Device::new(&view), layout!((64,47):(1,64))).is_ok());
}
