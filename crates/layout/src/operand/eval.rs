//! The operations a static expression type can stand for, and their evaluation.
//!
//! An expression type ([`crate::Expr`]) names its operation with an [`OpCode`] constant;
//! [`apply`] maps it to the algebra, in `const` for static operands and at run time for
//! dynamic ones.

use crate::algebra::{self, Res};
pub use crate::operand::opcode::OpCode;
use crate::tup::Tup;
use crate::value::{SwizzleFn, Value, ValueKind};

/// A tuple operand read as a tiler (a shape is a by-mode tiler of `n:1`s).
pub const fn as_tiler(v: &Value) -> Value {
    match v.kind {
        ValueKind::Tuple => algebra::shape_tiler(&v.shape),
        ValueKind::Layout => *v,
    }
}

/// Evaluates `op` on `args` (layouts first, then tilers / tuples, as the function takes them).
pub const fn apply(op: OpCode, args: &[Value]) -> Res {
    use algebra as a;
    let x = &args[0];
    match op {
        OpCode::MakeLayout => Ok(a::make_layout(&x.shape)),
        OpCode::MakeLayoutRight => Ok(a::make_layout_right(&x.shape)),
        OpCode::Coalesce => a::coalesce(x),
        OpCode::CoalesceProfile => a::coalesce_profile(x, &args[1].shape),
        OpCode::Filter => a::filter(x),
        OpCode::Composition => a::composition(x, &as_tiler(&args[1])),
        OpCode::Complement => a::complement(x, &args[1].shape),
        OpCode::ComplementCosize => a::complement_cosize(x),
        OpCode::RightInverse => a::right_inverse(x),
        OpCode::LeftInverse => a::left_inverse(x),
        OpCode::MaxCommonLayout => a::max_common_layout(x, &args[1]),
        OpCode::LogicalDivide => a::logical_divide(x, &as_tiler(&args[1])),
        OpCode::ZippedDivide => a::zipped_divide(x, &as_tiler(&args[1])),
        OpCode::TiledDivide => a::tiled_divide(x, &as_tiler(&args[1])),
        OpCode::FlatDivide => a::flat_divide(x, &as_tiler(&args[1])),
        OpCode::LogicalProduct => a::logical_product(x, &as_tiler(&args[1])),
        OpCode::ZippedProduct => a::zipped_product(x, &as_tiler(&args[1])),
        OpCode::TiledProduct => a::tiled_product(x, &as_tiler(&args[1])),
        OpCode::FlatProduct => a::flat_product(x, &as_tiler(&args[1])),
        OpCode::BlockedProduct => a::blocked_product(x, &as_layout(&args[1])),
        OpCode::RakedProduct => a::raked_product(x, &as_layout(&args[1])),
        OpCode::TileToShape => a::tile_to_shape(x, &args[1].shape),
        OpCode::MakeLayoutTv => a::make_layout_tv_layout(x, &as_layout(&args[1])),
        OpCode::Slice => a::slice(&args[1].shape, x),
        OpCode::Get(i) => a::get(x, i),
        OpCode::Take(b, e) => a::take(x, b, e),
        OpCode::GroupModes(b, e) => a::group_modes(x, b, e),
        OpCode::Select(idx) => {
            let mut n = 0;
            while n < 8 && idx[n] != usize::MAX {
                n += 1;
            }
            a::select(x, idx.split_at(n).0)
        }
        OpCode::Append => Ok(a::append(x, &as_layout(&args[1]))),
        OpCode::Prepend => Ok(a::prepend(x, &as_layout(&args[1]))),
        OpCode::Replace(i) => a::replace(x, i, &as_layout(&args[1])),
        OpCode::Flatten => Ok(a::flatten(x)),
        OpCode::ProductEach => Ok(Value::tuple(a::product_each(&x.shape))),
        OpCode::Recast(from, to) => a::recast_layout(x, from, to),
    }
}

/// A tuple operand read as a layout (a shape `s` is `make_layout(s)`).
pub const fn as_layout(v: &Value) -> Value {
    match v.kind {
        ValueKind::Tuple => algebra::make_layout(&v.shape),
        ValueKind::Layout => *v,
    }
}

/// A checked `Swizzle<B,M,S>`.
pub const fn swizzle_fn(b: u32, m: u32, s: i32) -> Result<SwizzleFn, crate::LayoutError> {
    let abs = s.unsigned_abs();
    if abs < b {
        return Err(crate::LayoutError::new(
            "Swizzle",
            crate::Condition::SwizzleShift,
            b as usize,
            abs as usize,
        ));
    }
    Ok(SwizzleFn { b, m, s })
}

/// The placeholder value of a dynamic operand's `VALUE` constant (never read).
pub const DYNAMIC: Value = Value::tuple(Tup::EMPTY);
