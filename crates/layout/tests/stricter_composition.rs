//! The inputs CuTe C++ accepts although its result is not `A(B(c))` (its weak divisibility
//! check; tests/oracle/rejected_compositions.txt, found by the oracle generator) are
//! rejected by ferrocute with the stride-divisibility error, at run time for dynamic
//! layouts (the static path is covered by tests/compile_fail).

use ferrocute_layout::{algebra, Condition, Tup, Value};

/// Parses CuTe notation: `4`, `(4,(2,2))`.
fn tup(s: &str) -> (Tup, &str) {
    if let Some(mut rest) = s.strip_prefix('(') {
        let mut t = Tup::EMPTY;
        loop {
            let (x, r) = tup(rest);
            t.push(&x);
            match r.as_bytes()[0] {
                b',' => rest = &r[1..],
                b')' => return (t, &r[1..]),
                c => panic!("unexpected {}", c as char),
            }
        }
    }
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    (Tup::leaf(s[..end].parse().unwrap()), &s[end..])
}

/// Parses a layout `shape:stride` or a by-mode tiler `[l0,l1,...]`.
fn value(s: &str) -> Value {
    if let Some(inner) = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let mut parts = Vec::new();
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(value(&inner[start..i]));
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(value(&inner[start..]));
        return Value::tiler(&parts);
    }
    let (shape, rest) = tup(s);
    let (stride, rest) = tup(rest.strip_prefix(':').expect("shape:stride"));
    assert!(rest.is_empty(), "trailing text in {s}");
    Value::layout(shape, stride)
}

#[test]
fn cute_accepted_but_wrong_compositions_are_rejected() {
    let mut checked = 0;
    for line in include_str!("oracle/rejected_compositions.txt").lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('|').collect();
        // Only the entries where the oracle found an index with R(i) != A(B(i)); the others
        // flag by-mode tilers whose tiles outgrow a mode, where 1-D indices of R and A do
        // not correspond and CuTe's result (which ferrocute reproduces) is not wrong.
        if !f[f.len() - 1].starts_with("i=") {
            continue;
        }
        let (op, a, b) = (f[1], value(f[2]), value(f[3]));
        let r = match op {
            "composition" | "composition_tiler" => algebra::composition(&a, &b),
            "logical_divide" | "logical_divide_tiler" => algebra::logical_divide(&a, &b),
            "zipped_divide" | "zipped_divide_tiler" => algebra::zipped_divide(&a, &b),
            "tiled_divide" | "tiled_divide_tiler" => algebra::tiled_divide(&a, &b),
            "flat_divide" | "flat_divide_tiler" => algebra::flat_divide(&a, &b),
            _ => continue,
        };
        let e = r.expect_err(&format!(
            "{op}({a}, {b}) should be rejected: CuTe gives {}",
            f[4]
        ));
        assert!(
            matches!(
                e.condition,
                Condition::StrideStraddles | Condition::StrideDivisibility
            ),
            "{op}({a}, {b}): {e}"
        );
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} rejected cases checked");
}

#[test]
fn weak_check_example_message() {
    let a = value("(4,2,2):(0,3,32)");
    let b = value("16:3");
    let e = algebra::composition(&a, &b).unwrap_err();
    assert_eq!(e.condition, Condition::StrideStraddles);
    assert!(e
        .to_string()
        .starts_with("composition: stride divisibility condition violated"));
}
