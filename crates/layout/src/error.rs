//! Violated preconditions of the layout algebra, as values that `const fn`s can build.
//!
//! For static layouts the error becomes a compile error (a const-evaluation panic whose text
//! is [`LayoutError::message`]); with dynamic leaves the same check returns it as a value.

use core::fmt;

/// Which condition of the algebra was violated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    /// composition: a stride of the right layout neither divides nor is a multiple of the
    /// left mode it lands in (`a` = left mode's shape, `b` = the stride).
    StrideDivisibility,
    /// composition: the shape taken from a left mode does not divide what is left of the
    /// right layout's shape (`a` = remaining shape, `b` = the shape taken).
    ShapeDivisibility,
    /// composition: a right stride smaller than the left mode does not divide it and the
    /// right mode continues past it, which CuTe C++ accepts but computes wrongly
    /// (`a` = left mode's shape, `b` = the stride).
    StrideStraddles,
    /// composition: the right layout's modes, added together, carry from one mode of the
    /// coalesced left layout into the next, so the result would not be `A(B(c))`, though
    /// each mode alone passes (`a` = the left mode's shape, `b` = the largest sum of the
    /// right modes' digits in it).
    ModesCarry,
    /// complement: two elements of the layout map to the same offset (`a` = stride, `b` =
    /// the extent already covered).
    NonInjective,
    /// A tiler has more modes than the layout (`a` = tiler rank, `b` = layout rank).
    TooManyModes,
    /// A profile has more modes than the layout (`a` = profile rank, `b` = layout rank).
    ProfileTooLong,
    /// Two tuples that must have the same rank do not (`a`, `b` = the ranks).
    RankMismatch,
    /// A coordinate is not congruent with the shape it indexes.
    CoordinateMismatch,
    /// left_inverse: a stride is not a multiple of the size already inverted (`a` = stride,
    /// `b` = size).
    LeftInverseDivisibility,
    /// tile_to_shape: the block does not divide the target shape (`a` = target, `b` = block).
    BlockDoesNotDivide,
    /// tile_to_shape: the block has more modes than the target shape (`a`, `b` = the ranks).
    BlockRankTooLarge,
    /// zip: modes of different rank cannot be zipped (`a`, `b` = the ranks).
    ZipRankMismatch,
    /// Swizzle<B,M,S> needs |S| >= B (`a` = B, `b` = |S|).
    SwizzleShift,
    /// A shape and stride that are not congruent.
    NotCongruent,
    /// A mode index out of range (`a` = index, `b` = rank).
    ModeOutOfRange,
    /// The operation is not defined for swizzled (composed) layouts.
    SwizzledOperand,
    /// A result has more nodes than a layout value holds.
    TooLarge,
    /// A shape or stride of zero where CuTe needs a positive integer.
    ZeroShape,
    /// make_tensor: the layout reaches past the engine (`a` = cosize, `b` = engine length).
    EngineTooShort,
    /// copy, recast: two sizes that must match do not (`a`, `b` = the sizes).
    SizeMismatch,
    /// recast: memory not aligned for the new element type (`a` = its size in bytes, `b` =
    /// the byte offset).
    Misaligned,
    /// upcast: a stride neither divides nor is a multiple of the factor (`a` = stride,
    /// `b` = factor).
    UpcastDivisibility,
    /// An atom does not fit its tiling (`a`, `b` = the sizes that must divide: what is
    /// tiled, the atom's).
    AtomDoesNotDivide,
    /// The operand is not one of the tiled operation's (A, B, C of a TiledMMA; S, D and
    /// retile of a TiledCopy).
    WrongOperand,
}

impl Condition {
    /// The condition in the algebra's own words.
    pub const fn text(self) -> &'static str {
        match self {
            Condition::StrideDivisibility => "stride divisibility condition violated: the stride of the right layout neither divides nor is a multiple of the left mode",
            Condition::ShapeDivisibility => "shape divisibility condition violated: the shape taken from the left mode does not divide the remaining right shape",
            Condition::StrideStraddles => "stride divisibility condition violated: the right stride does not divide the left mode and the right mode continues past it (CuTe C++ accepts this and gives a layout that is not A(B(c)); ferrocute rejects it)",
            Condition::ModesCarry => "the right layout's modes add up past a mode of the left layout (their offsets carry into the next left mode), so composing mode by mode does not give A(B(c)) (CuTe C++ accepts this and gives a layout that is not A(B(c)); ferrocute rejects it)",
            Condition::NonInjective => "non-injective layout: two coordinates map to the same offset",
            Condition::TooManyModes => "tiler has more modes than the layout",
            Condition::ProfileTooLong => "profile has more modes than the layout",
            Condition::RankMismatch => "mismatched ranks",
            Condition::CoordinateMismatch => "coordinate is not congruent with the shape",
            Condition::LeftInverseDivisibility => "left inverse divisibility condition violated: a stride is not a multiple of the size already inverted",
            Condition::BlockDoesNotDivide => "block shape does not divide the target shape",
            Condition::BlockRankTooLarge => "rank of the block layout is larger than the rank of the target shape",
            Condition::ZipRankMismatch => "cannot zip the block's modes with the tiler's: a tuple mode meets an integer mode, or their ranks differ",
            Condition::SwizzleShift => "Swizzle<B,M,S> requires |S| >= B",
            Condition::NotCongruent => "shape and stride are not congruent",
            Condition::ModeOutOfRange => "mode index out of range",
            Condition::SwizzledOperand => "not defined for a swizzled (composed) layout",
            Condition::TooLarge => "result too large for a layout value",
            Condition::ZeroShape => "shape must be positive",
            Condition::EngineTooShort => "the layout reaches past the end of the engine",
            Condition::SizeMismatch => "sizes differ",
            Condition::Misaligned => "not aligned for the element type",
            Condition::UpcastDivisibility => "upcast divisibility condition violated: a stride neither divides nor is a multiple of the factor",
            Condition::AtomDoesNotDivide => "the atom's threads or values do not divide the tiling's",
            Condition::WrongOperand => "not an operand of this tiled operation",
        }
    }

    const fn labels(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            Condition::StrideDivisibility | Condition::StrideStraddles => {
                ("left shape", "right stride")
            }
            Condition::ShapeDivisibility => ("remaining shape", "shape taken"),
            Condition::ModesCarry => ("left shape", "largest digit sum"),
            Condition::NonInjective => ("stride", "covered extent"),
            Condition::TooManyModes => ("tiler rank", "layout rank"),
            Condition::LeftInverseDivisibility => ("stride", "inverted size"),
            Condition::BlockDoesNotDivide => ("target", "block"),
            Condition::BlockRankTooLarge => ("block rank", "target rank"),
            Condition::SwizzleShift => ("B", "|S|"),
            Condition::ModeOutOfRange => ("index", "rank"),
            Condition::ProfileTooLong => ("profile rank", "layout rank"),
            Condition::CoordinateMismatch => ("coordinate rank", "shape rank"),
            Condition::ZipRankMismatch => ("block mode rank", "tiler mode rank"),
            Condition::RankMismatch => ("rank", "expected rank"),
            Condition::ZeroShape => ("shape", "mode"),
            Condition::EngineTooShort => ("cosize", "engine length"),
            Condition::SizeMismatch => ("size", "expected size"),
            Condition::Misaligned => ("element bytes", "byte offset"),
            Condition::UpcastDivisibility => ("stride", "factor"),
            Condition::AtomDoesNotDivide => ("tiled", "atom"),
            Condition::NotCongruent
            | Condition::SwizzledOperand
            | Condition::TooLarge
            | Condition::WrongOperand => return None,
        })
    }
}

/// A violated precondition: the operation, the condition and the offending values.
///
/// ```
/// use ferrocute_layout::{algebra, Value, Tup};
/// let a = Value::layout(Tup::leaf(6), Tup::leaf(1));
/// let t = Value::tiler(&[a, a, a]);
/// let e = algebra::logical_divide(&a, &t).unwrap_err();
/// assert_eq!(e.to_string(), "logical_divide: tiler has more modes than the layout (tiler rank = 3, layout rank = 1)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutError {
    /// The operation the user called.
    pub op: &'static str,
    /// The condition that failed.
    pub condition: Condition,
    /// First offending value (see [`Condition`]).
    pub a: usize,
    /// Second offending value (see [`Condition`]).
    pub b: usize,
}

/// Longest message [`LayoutError::message`] writes.
pub const MESSAGE_CAP: usize = 320;

impl LayoutError {
    /// A new error.
    pub const fn new(op: &'static str, condition: Condition, a: usize, b: usize) -> Self {
        LayoutError {
            op,
            condition,
            a,
            b,
        }
    }

    /// The same error reported under the operation `op` (for errors raised inside a step).
    pub const fn within(self, op: &'static str) -> Self {
        LayoutError { op, ..self }
    }

    /// The message as bytes, built in a `const fn` so that compile errors can show it.
    pub const fn message(&self) -> ([u8; MESSAGE_CAP], usize) {
        let mut w = Writer {
            buf: [0; MESSAGE_CAP],
            n: 0,
        };
        w.str(self.op);
        w.str(": ");
        w.str(self.condition.text());
        if let Some((la, lb)) = self.condition.labels() {
            w.str(" (");
            w.str(la);
            w.str(" = ");
            w.num(self.a);
            w.str(", ");
            w.str(lb);
            w.str(" = ");
            w.num(self.b);
            w.str(")");
        }
        (w.buf, w.n)
    }

    /// Panics with [`LayoutError::message`]; in a `const` item this is a compile error.
    pub const fn raise(&self) -> ! {
        let (buf, n) = self.message();
        let (bytes, _) = buf.split_at(n);
        match core::str::from_utf8(bytes) {
            Ok(s) => panic!("{}", s),
            Err(_) => panic!("ferrocute: layout error"),
        }
    }
}

struct Writer {
    buf: [u8; MESSAGE_CAP],
    n: usize,
}

impl Writer {
    const fn str(&mut self, s: &str) {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && self.n < MESSAGE_CAP {
            self.buf[self.n] = b[i];
            self.n += 1;
            i += 1;
        }
    }

    const fn num(&mut self, mut v: usize) {
        let mut digits = [0u8; 20];
        let mut k = 0;
        loop {
            digits[k] = b'0' + (v % 10) as u8;
            k += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        while k > 0 && self.n < MESSAGE_CAP {
            k -= 1;
            self.buf[self.n] = digits[k];
            self.n += 1;
        }
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (buf, n) = self.message();
        f.write_str(core::str::from_utf8(&buf[..n]).map_err(|_| fmt::Error)?)
    }
}

impl std::error::Error for LayoutError {}
