#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod algebra;
mod dyn_layout;
mod error;
mod expr;
mod flat;
pub mod gemm;
mod int;
mod int_tuple;
pub mod kernel_config;
pub mod kind;
mod layout;
mod layout_like;
mod macros;
pub mod op;
pub mod opcode;
mod operand;
mod ops;
mod print;
pub mod render;
mod swizzle;
mod tup;
mod value;

pub use algebra::{shape_tiler, LayoutTv};
pub use dyn_layout::DynLayout;
pub use error::{Condition, LayoutError};
pub use expr::{Expr, Operands, Operation};
pub use flat::Flat;
pub use int::{Free, Int, C};
pub use int_tuple::IntTuple;
pub use kind::{Dynamic, Static};
pub use layout::Layout;
pub use layout_like::LayoutLike;
pub use operand::Operand;
pub use ops::*;
pub use print::{print_layout, svg_layout, svg_layout_tv, write_svg};
pub use swizzle::Swizzle;
pub use tup::Tup;
pub use value::{SwizzleFn, Value, ValueKind};
