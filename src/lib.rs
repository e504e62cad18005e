#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub use ferrocute_layout::*;

#[cfg(feature = "gemm")]
pub mod gemm;

/// The CUDA driver bindings ferrocute's GEMM API takes its buffers and streams from.
#[cfg(feature = "gemm")]
pub use cudarc;
/// The kernel configurations, the kernel-module registry and the build scheme.
#[cfg(feature = "gemm")]
pub use ferrocute_kernels as kernels;
/// The `bf16` and `f16` element types.
#[cfg(feature = "gemm")]
pub use half;
