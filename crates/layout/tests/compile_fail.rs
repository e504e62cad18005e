//! Compile-fail tests: each invalid static input under `tests/compile_fail/*_fail.rs` must be
//! rejected by rustc with the algebra's message (snapshots in the `.stderr` files next to
//! them). The pass case makes trybuild run `cargo build` rather than `cargo check`, which is
//! what evaluates the constants that carry the checks.
//!
//!
//! `check_fail/` holds what must fail already on `cargo check` (no pass case in that run,
//! so trybuild checks instead of building): `assert_static!` evaluates the algebra in the
//! user's own item, and the error points there.
//!
//! Regenerate snapshots with `TRYBUILD=overwrite cargo test --test compile_fail`.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.pass("tests/compile_fail/pass_*.rs");
    t.compile_fail("tests/compile_fail/*_fail.rs");
}

#[test]
fn check_fail() {
    trybuild::TestCases::new().compile_fail("tests/check_fail/*_fail.rs");
}
