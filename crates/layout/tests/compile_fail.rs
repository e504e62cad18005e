//! Compile-fail tests: each invalid static input under `tests/compile_fail/*_fail.rs` must be
//! rejected by rustc with the algebra's message (snapshots in the `.stderr` files next to
//! them). The pass case makes trybuild run `cargo build` rather than `cargo check`, which is
//! what evaluates the constants that carry the checks.
//!
//! Regenerate snapshots with `TRYBUILD=overwrite cargo test --test compile_fail`.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.pass("tests/compile_fail/pass_*.rs");
    t.compile_fail("tests/compile_fail/*_fail.rs");
}
