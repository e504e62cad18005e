//! A `const fn` reader of CuTe's `shape:stride` notation, for the atoms' tables.

use crate::tup::Tup;
use crate::value::Value;

/// The layout written `shape:stride` in CuTe's notation (no spaces, no underscores).
/// A malformed text panics, which in a `const` item is a compile error.
pub(crate) const fn layout(s: &str) -> Value {
    let b = s.as_bytes();
    let (shape, i) = tup(b, 0);
    assert!(i < b.len() && b[i] == b':', "layout notation: expected ':'");
    let (stride, j) = tup(b, i + 1);
    assert!(j == b.len(), "layout notation: trailing text");
    assert!(shape.congruent(&stride), "layout notation: not congruent");
    Value::layout(shape, stride)
}

/// Reads an integer or a parenthesised tuple at `i`; returns it and the index after it.
const fn tup(b: &[u8], i: usize) -> (Tup, usize) {
    if b[i] == b'(' {
        let mut t = Tup::EMPTY;
        let mut i = i + 1;
        loop {
            let (x, j) = tup(b, i);
            t.push(&x);
            i = j;
            if b[i] == b',' {
                i += 1;
            } else {
                assert!(b[i] == b')', "layout notation: expected ')'");
                return (t, i + 1);
            }
        }
    }
    let mut v = 0;
    let mut j = i;
    while j < b.len() && b[j].is_ascii_digit() {
        v = v * 10 + (b[j] - b'0') as usize;
        j += 1;
    }
    assert!(j > i, "layout notation: expected a digit");
    (Tup::leaf(v), j)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_cute_notation() {
        let l = super::layout("((4,8),(2,2,2)):((32,1),(16,8,128))");
        assert_eq!(l.to_string(), "((4,8),(2,2,2)):((32,1),(16,8,128))");
        assert_eq!(super::layout("32:1").to_string(), "32:1");
    }
}
