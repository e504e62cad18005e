//! [`SizeExpr`]: how a buffer length or a grid extent follows from a kernel's dimensions,
//! written in a build script and evaluated (with overflow checks) by the launcher.

use std::ops::{Add, Mul};

/// An unsigned size computed from a kernel's dimensions ([`super::Kernel::dim`]) and
/// constants: sums, products and ceiling divisions by a constant. The generated launcher
/// evaluates it in `u64` with every step checked, so an overflow is an error, not a wrap.
///
/// ```
/// use ferrocute_kernels::build::{dim, SizeExpr};
/// let e = dim("m") * dim("n") + 1;
/// assert_eq!(e.eval(&|d| if d == "m" { 3 } else { 5 }), Some(16));
/// assert_eq!(dim("n").div_ceil(32).eval(&|_| 33), Some(2));
/// assert_eq!((dim("m") * dim("m")).eval(&|_| u64::MAX), None);
/// assert_eq!(SizeExpr::from(7).to_string(), "7");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeExpr {
    /// A constant.
    Lit(u64),
    /// A dimension parameter of the kernel, by name.
    Dim(String),
    /// The sum of two sizes.
    Add(Box<SizeExpr>, Box<SizeExpr>),
    /// The product of two sizes.
    Mul(Box<SizeExpr>, Box<SizeExpr>),
    /// `ceil(size / divisor)`, the divisor a nonzero constant.
    DivCeil(Box<SizeExpr>, u64),
}

/// The dimension parameter `name` as a size.
pub fn dim(name: &str) -> SizeExpr {
    SizeExpr::Dim(name.to_string())
}

impl SizeExpr {
    /// `ceil(self / divisor)`: the number of tiles of `divisor` covering `self`.
    ///
    /// # Panics
    /// If `divisor` is zero.
    pub fn div_ceil(self, divisor: u64) -> SizeExpr {
        assert!(divisor != 0, "SizeExpr::div_ceil by zero");
        SizeExpr::DivCeil(Box::new(self), divisor)
    }

    /// The value with `dim` giving each dimension, `None` on overflow.
    pub fn eval(&self, dim: &dyn Fn(&str) -> u64) -> Option<u64> {
        match self {
            SizeExpr::Lit(v) => Some(*v),
            SizeExpr::Dim(d) => Some(dim(d)),
            SizeExpr::Add(a, b) => a.eval(dim)?.checked_add(b.eval(dim)?),
            SizeExpr::Mul(a, b) => a.eval(dim)?.checked_mul(b.eval(dim)?),
            SizeExpr::DivCeil(a, d) => Some(a.eval(dim)?.div_ceil(*d)),
        }
    }

    /// The dimensions it names.
    pub(crate) fn dims(&self) -> Vec<&str> {
        match self {
            SizeExpr::Lit(_) => vec![],
            SizeExpr::Dim(d) => vec![d.as_str()],
            SizeExpr::Add(a, b) | SizeExpr::Mul(a, b) => {
                let mut v = a.dims();
                v.extend(b.dims());
                v
            }
            SizeExpr::DivCeil(a, _) => a.dims(),
        }
    }

    /// Rust code of an `Option<u64>` (`None` on overflow), the dimensions being `u64`
    /// locals of their own names.
    pub(crate) fn rust(&self) -> String {
        let pair = |a: &SizeExpr, b: &SizeExpr, op: &str| {
            format!(
                "{}.zip({}).and_then(|(x, y)| x.{op}(y))",
                a.rust(),
                b.rust()
            )
        };
        match self {
            SizeExpr::Lit(v) => format!("Some({v}_u64)"),
            SizeExpr::Dim(d) => format!("Some({d})"),
            SizeExpr::Add(a, b) => pair(a, b, "checked_add"),
            SizeExpr::Mul(a, b) => pair(a, b, "checked_mul"),
            SizeExpr::DivCeil(a, d) => format!("{}.map(|x| x.div_ceil({d}))", a.rust()),
        }
    }
}

impl std::fmt::Display for SizeExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeExpr::Lit(v) => write!(f, "{v}"),
            SizeExpr::Dim(d) => f.write_str(d),
            SizeExpr::Add(a, b) => write!(f, "({a} + {b})"),
            SizeExpr::Mul(a, b) => write!(f, "{a} * {b}"),
            SizeExpr::DivCeil(a, d) => write!(f, "ceil({a} / {d})"),
        }
    }
}

impl From<u64> for SizeExpr {
    fn from(v: u64) -> SizeExpr {
        SizeExpr::Lit(v)
    }
}

impl<R: Into<SizeExpr>> Add<R> for SizeExpr {
    type Output = SizeExpr;
    fn add(self, r: R) -> SizeExpr {
        SizeExpr::Add(Box::new(self), Box::new(r.into()))
    }
}

impl<R: Into<SizeExpr>> Mul<R> for SizeExpr {
    type Output = SizeExpr;
    fn mul(self, r: R) -> SizeExpr {
        SizeExpr::Mul(Box::new(self), Box::new(r.into()))
    }
}
