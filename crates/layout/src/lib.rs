//! CuTe's layout algebra as Rust types.
//!
//! A static layout is a zero-sized type: `Layout!((4,(2,2)):(1,(8,4)))`. Every CuTe operation
//! is a free function with CuTe's name (`composition`, `complement`, `logical_divide`,
//! `zipped_divide`, `blocked_product`, `tile_to_shape`, ...) and a type alias for its static
//! result (`Composition<A, B>`, `LogicalDivide<L, T>`, ...), computed by rustc in `const` and
//! equal to CuTe C++'s. A violated precondition of a static operation is a compile error in
//! the algebra's own words; with run-time leaves (`layout!((4,{m}):(1,4))`) the same algebra
//! runs at run time and returns a [`LayoutError`].
//!
//! ```
//! use ferrocute_layout::*;
//!
//! let a = layout!((4,3):(3,1));                       // static: zero-sized
//! let r = composition(a, layout!(16:1));               // a type, computed by rustc
//! assert_eq!(r.to_string(), "(4,4):(3,1)");
//! assert_eq!(r.call(5), 4);
//!
//! let m = 6;                                           // dynamic leaves: checked at run time
//! let d = logical_divide(layout!(({m},8):(1,{m})), tuple!((2,4))).unwrap();
//! assert_eq!(d.to_string(), "((2,3),(4,2)):((1,2),(6,24))");
//! ```
//!
//! The crate has no CUDA dependency; `ferrocute` re-exports it beside its GEMM kernels.
#![warn(missing_docs)]

#[macro_use]
pub mod algebra;
pub mod atom;
mod error;
mod flat;
mod int;
mod layout;
mod macros;
pub mod operand;
mod ops;
mod print;
pub mod render;
mod swizzle;
pub mod tensor;
mod tup;
mod value;

pub use algebra::{shape_tiler, LayoutTv};
pub use error::{Condition, LayoutError};
pub use flat::Flat;
pub use int::{Free, Int, C};
pub use layout::Layout;
pub use operand::dyn_layout::DynLayout;
pub use operand::expr::{Expr, Operands, Operation};
pub use operand::int_tuple::IntTuple;
pub use operand::kind::{self, Dynamic, Static};
pub use operand::layout_like::LayoutLike;
pub use operand::opcode;
pub use operand::Operand;
pub use ops::*;
pub use print::{print_layout, svg_layout, svg_layout_tv, write_svg};
pub use swizzle::Swizzle;
pub use tensor::{copy, make_fragment_like, make_identity_tensor, make_tensor, Tensor};
pub use tup::Tup;
pub use value::{SwizzleFn, Value, ValueKind};
