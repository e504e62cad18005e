//! Conformance with CuTe C++: every case of tests/oracle/corpus.txt (expected values computed
//! by CuTe itself, see tests/oracle/gen.py) recomputed through ferrocute's static layout
//! types, compared by printed form and by evaluation at every index, plus CuTe's own
//! postconditions (composition, complement, inverses) over every coordinate.
//!
//! With `FERROCUTE_ROUNDTRIP_OUT=FILE`, each layout result is also written as
//! `ID|C++ type|display|evals` for tests/oracle/roundtrip.sh to compile against CuTe.

use ferrocute_layout::*;
use std::collections::HashMap;
use std::fmt::Display;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

struct Expected {
    result: String,
    evals: String,
}

fn corpus() -> &'static HashMap<usize, Expected> {
    static C: OnceLock<HashMap<usize, Expected>> = OnceLock::new();
    C.get_or_init(|| {
        include_str!("oracle/corpus.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("ID|") && !l.is_empty())
            .map(|l| {
                let f: Vec<&str> = l.split('|').collect();
                let id = f[0].parse().expect("corpus id");
                let n = f.len();
                (
                    id,
                    Expected {
                        result: f[n - 2].to_string(),
                        evals: f[n - 1].to_string(),
                    },
                )
            })
            .collect()
    })
}

fn roundtrip_line(line: String) {
    static OUT: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();
    let out = OUT.get_or_init(|| {
        std::env::var_os("FERROCUTE_ROUNDTRIP_OUT").map(|p| {
            Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .expect("open FERROCUTE_ROUNDTRIP_OUT"),
            )
        })
    });
    if let Some(f) = out {
        writeln!(f.lock().unwrap(), "{line}").unwrap();
    }
}

fn evals_of<L: LayoutLike>(r: &L) -> String {
    (0..r.size())
        .map(|i| r.call(i).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A layout result: printed form and every evaluation (through the static fast path and
/// the general one) equal CuTe's.
fn lay<L: LayoutLike>(id: usize, r: L) {
    let e = &corpus()[&id];
    assert_eq!(r.to_string(), e.result, "case {id}: printed form");
    if !e.evals.is_empty() {
        let got = evals_of(&r);
        assert_eq!(got, e.evals, "case {id}: evaluations of {}", e.result);
        let v = r.value();
        for i in 0..r.size() {
            assert_eq!(
                v.eval(i),
                r.call(i),
                "case {id}: general vs static eval at {i}"
            );
        }
        if !r.to_string().contains("1099511627776") {
            roundtrip_line(format!("{id}|{}|{}|{}", r.cpp_type(), r, got));
        }
    }
}

/// An integer or tuple result.
fn int(id: usize, r: impl Display) {
    assert_eq!(r.to_string(), corpus()[&id].result, "case {id}");
}

/// `slice_and_offset`: `layout ; offset`.
fn pair<L: LayoutLike>(id: usize, r: L, off: usize) {
    let e = &corpus()[&id];
    assert_eq!(format!("{r} ; {off}"), e.result, "case {id}");
    if !e.evals.is_empty() {
        assert_eq!(evals_of(&r), e.evals, "case {id}: evaluations");
    }
}

/// `make_layout_tv`: `tiler ; layout`.
fn tv<L: LayoutLike>(id: usize, tiler: &Tup, r: L) {
    let e = &corpus()[&id];
    assert_eq!(format!("{tiler} ; {r}"), e.result, "case {id}");
    if !e.evals.is_empty() {
        assert_eq!(evals_of(&r), e.evals, "case {id}: evaluations");
    }
}

/// CuTe's composition postcondition: `R(i) == A(B(i))` for every index of `B`.
fn post_composition<A: LayoutLike, B: LayoutLike, R: LayoutLike>(a: &A, b: &B, r: &R) {
    assert_eq!(
        r.size(),
        b.size(),
        "composition keeps B's size: {a} o {b} = {r}"
    );
    for i in 0..b.size() {
        assert_eq!(r.call(i), a.call(b.call(i)), "({a}) o ({b}) at {i}");
    }
}

/// CuTe's complement postconditions: `R` is injective and never hits an offset of `A`
/// other than 0, and `R(0) == 0`.
fn post_complement<A: LayoutLike, R: LayoutLike>(a: &A, r: &R) {
    let hit: std::collections::HashSet<usize> = (0..a.size()).map(|i| a.call(i)).collect();
    let mut seen = std::collections::HashSet::new();
    assert_eq!(r.call(0), 0, "complement({a}) = {r} starts at 0");
    for i in 0..r.size().min(4096) {
        let x = r.call(i);
        assert!(
            seen.insert(x),
            "complement({a}) = {r} is not injective at {i}"
        );
        assert!(
            i == 0 || !hit.contains(&x) || a.size() == 1,
            "complement({a}) = {r} overlaps A at {x}"
        );
    }
}

/// `L(R(i)) == i` for every index of `R`.
fn post_right_inverse<L: LayoutLike, R: LayoutLike>(l: &L, r: &R) {
    for i in 0..r.size() {
        assert_eq!(l.call(r.call(i)), i, "right_inverse({l}) = {r} at {i}");
    }
}

/// `R(L(i)) == i` for every index of an injective `L`.
fn post_left_inverse<L: LayoutLike, R: LayoutLike>(l: &L, r: &R) {
    let offs: Vec<usize> = (0..l.size()).map(|i| l.call(i)).collect();
    let mut sorted = offs.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() == offs.len() {
        for (i, o) in offs.iter().enumerate() {
            assert_eq!(r.call(*o), i, "left_inverse({l}) = {r} at {i}");
        }
    }
}

include!("oracle/cases.rs");
