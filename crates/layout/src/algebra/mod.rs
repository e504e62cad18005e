//! CuTe's layout algebra as `const fn`s over [`Value`]s.
//!
//! Each function follows CuTe C++ (CUTLASS 4.2, `include/cute/layout.hpp`) step by step, so
//! results print and evaluate exactly as CuTe's do. Static layout types evaluate these in
//! `const` items (a violated precondition is then a compile error); dynamic layouts call them
//! at run time and get the [`LayoutError`] back.

use crate::error::{Condition, LayoutError};
use crate::value::Value;

/// Result of an algebra step.
pub type Res = Result<Value, LayoutError>;

/// `?` for `const fn`s: unwraps or returns the error.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

mod basic;
mod coalesce;
mod complement;
mod composition;
mod divide;
mod inverse;
mod modes;
mod product;
mod recast;
mod tile;

pub use basic::*;
pub use coalesce::*;
pub use complement::*;
pub use composition::*;
pub use divide::*;
pub use inverse::*;
pub use modes::*;
pub use product::*;
pub use recast::*;
pub use tile::*;

pub(crate) const fn err(op: &'static str, c: Condition, a: usize, b: usize) -> LayoutError {
    LayoutError::new(op, c, a, b)
}

/// Rejects swizzled operands for operations CuTe defines on plain layouts only.
pub(crate) const fn plain(op: &'static str, v: &Value) -> Result<(), LayoutError> {
    if v.composed {
        Err(err(op, Condition::SwizzledOperand, 0, 0))
    } else {
        Ok(())
    }
}
