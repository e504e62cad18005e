//! Compile-fail tests: a kernel configuration whose derived layouts break the algebra's or
//! the GPU's rules is rejected by rustc (snapshots in `tests/compile_fail/*.stderr`).
//!
//! Regenerate snapshots with `TRYBUILD=overwrite cargo test -p ferrocute-kernels --test compile_fail`.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.pass("tests/compile_fail/pass_*.rs");
    t.compile_fail("tests/compile_fail/*_fail.rs");
}
