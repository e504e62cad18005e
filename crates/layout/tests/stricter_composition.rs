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

#[test]
fn issue_example_carries_across_modes() {
    // Each right mode lands well alone; together 8:2 and 3:3 reach digit 6 + 6 >= 8.
    let a = value("((8),2):((0),1)");
    let b = value("(8,(1,3)):(2,(0,3))");
    let e = algebra::composition(&a, &b).unwrap_err();
    assert_eq!((e.condition, e.a, e.b), (Condition::ModesCarry, 8, 12));
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n) as usize
    }
    /// A layout of 1..=4 leaves, nested at random, shapes 1..=8, strides 0..=24.
    fn layout(&mut self, max_shape: u64, max_stride: u64) -> Value {
        let n = 1 + self.below(4);
        let leaves: Vec<(usize, usize)> = (0..n)
            .map(|_| (1 + self.below(max_shape), self.below(max_stride + 1)))
            .collect();
        if n == 1 {
            return Value::layout(Tup::leaf(leaves[0].0), Tup::leaf(leaves[0].1));
        }
        // Group a random prefix as one nested mode.
        let g = 1 + self.below(n as u64);
        let (mut s, mut d) = (Tup::EMPTY, Tup::EMPTY);
        if g > 1 {
            s.push(&Tup::flat(
                &leaves[..g].iter().map(|l| l.0).collect::<Vec<_>>(),
            ));
            d.push(&Tup::flat(
                &leaves[..g].iter().map(|l| l.1).collect::<Vec<_>>(),
            ));
        }
        for l in &leaves[if g > 1 { g } else { 0 }..] {
            s.push(&Tup::leaf(l.0));
            d.push(&Tup::leaf(l.1));
        }
        Value::layout(s, d)
    }
}

/// `A(x)` for any `x`, the last mode taking what is left (as CuTe evaluates past the size).
fn eval(v: &Value, i: usize) -> usize {
    ferrocute_layout::Flat::of(v).eval(i)
}

/// The whole-layout property on many random inputs: every accepted composition is
/// `A(B(c))` at every coordinate; every `ModesCarry` rejection is an input where adding the
/// right modes' images mode by mode (what composition computes) differs from `A(B(c))`.
#[test]
fn random_compositions_are_a_of_b_or_rejected() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut accepted, mut carries) = (0, 0);
    for _ in 0..40_000 {
        let a = rng.layout(8, 24);
        let b = rng.layout(6, 12);
        let leaves: Vec<(usize, usize)> = (0..b.shape.leaf_count())
            .map(|k| (b.shape.leaf_at(k), b.stride.leaf_at(k)))
            .collect();
        match algebra::composition(&a, &b) {
            Ok(r) => {
                for i in 0..b.size() {
                    assert_eq!(
                        eval(&r, i),
                        eval(&a, eval(&b, i)),
                        "{a} o {b} = {r} differs from A(B(i)) at i = {i}"
                    );
                }
                accepted += 1;
            }
            Err(e) if e.condition == Condition::ModesCarry => {
                // R(c) as composition builds it: each right mode through A alone, summed.
                let by_mode = |mut i: usize| {
                    let mut sum = 0;
                    for &(s, d) in &leaves {
                        sum += eval(&a, (i % s) * d);
                        i /= s;
                    }
                    sum
                };
                assert!(
                    (0..b.size()).any(|i| by_mode(i) != eval(&a, eval(&b, i))),
                    "{a} o {b} rejected ({e}) though mode by mode it is A(B(i))"
                );
                carries += 1;
            }
            Err(_) => {}
        }
    }
    assert!(
        accepted > 5_000 && carries > 200,
        "accepted {accepted}, carries {carries}"
    );
}
