//! The launcher's checks, without a GPU: every bad argument is a typed error (the generated
//! method runs exactly these checks before it touches the driver).

use ferrocute::runtime::Error;
use ferrocute_example_transpose::kernels::{Transpose, THREADS, TILE};

#[test]
fn good_shapes_give_the_declared_launch() {
    let d = Transpose::check_transpose_f32(7 * 129, 7 * 129, 7, 129).unwrap();
    assert_eq!(d.grid(), [129_u32.div_ceil(TILE), 1, 1]);
    assert_eq!(d.block(), [THREADS, 1, 1]);
    assert_eq!(d.smem_bytes(), 0);
    // Longer buffers are fine; an empty matrix launches nothing.
    assert!(!Transpose::check_transpose_f32(100, 100, 1, 1)
        .unwrap()
        .is_empty());
    assert!(Transpose::check_transpose_f32(0, 0, 0, 5)
        .unwrap()
        .is_empty());
}

#[test]
fn short_buffers_are_refused() {
    assert_eq!(
        Transpose::check_transpose_f32(5, 6, 2, 3),
        Err(Error::BufferTooShort {
            param: "src",
            needed: 6,
            len: 5
        })
    );
    assert_eq!(
        Transpose::check_transpose_f32(6, 0, 2, 3),
        Err(Error::BufferTooShort {
            param: "dst",
            needed: 6,
            len: 0
        })
    );
}

#[test]
fn dimensions_must_fit_the_kernels_int() {
    let big = i32::MAX as usize + 1;
    assert_eq!(
        Transpose::check_transpose_f32(usize::MAX, usize::MAX, 1, big),
        Err(Error::OutOfRange {
            param: "n",
            value: big as u64,
            limit: i32::MAX as u64
        })
    );
}

#[test]
fn grids_beyond_cudas_limits_are_refused() {
    // 65536 tiles of rows: grid y over 65535.
    let m = 65536 * TILE as usize;
    assert_eq!(
        Transpose::check_transpose_f32(m, m, m, 1),
        Err(Error::GridTooLarge {
            axis: 1,
            blocks: 65536,
            limit: 65535
        })
    );
}

#[test]
fn errors_read_well() {
    let e = Transpose::check_transpose_f32(5, 6, 2, 3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "src: the kernel needs 6 elements, the buffer holds 5"
    );
}

#[test]
fn each_dimension_is_checked_against_its_own_type() {
    use ferrocute_example_transpose::echo::Echo;
    let (u32_max, i64_max) = (u32::MAX as usize, i64::MAX as usize);
    assert!(Echo::check_echo_args(3, 7, 3, u32_max, i64_max, usize::MAX).is_ok());
    assert_eq!(
        Echo::check_echo_args(3, 7, 3, u32_max + 1, 0, 0),
        Err(Error::OutOfRange {
            param: "b",
            value: u32_max as u64 + 1,
            limit: u32::MAX as u64
        })
    );
    assert_eq!(
        Echo::check_echo_args(3, 7, 3, 0, i64_max + 1, 0),
        Err(Error::OutOfRange {
            param: "c",
            value: i64_max as u64 + 1,
            limit: i64::MAX as u64
        })
    );
    assert_eq!(
        Echo::check_echo_args(3, 6, 3, 0, 0, 0),
        Err(Error::BufferTooShort {
            param: "out",
            needed: 7,
            len: 6
        })
    );
}
