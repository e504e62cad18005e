#![cfg_attr(feature = "gemm", doc = include_str!("../README.md"))]
#![cfg_attr(
    not(feature = "gemm"),
    doc = "CuTe's layout algebra as Rust types (this build has no `gemm` feature): see \
           [`ferrocute_layout`], which this crate re-exports."
)]
#![warn(missing_docs)]

pub use ferrocute_layout::*;

#[cfg(feature = "gemm")]
pub mod gemm;
#[cfg(feature = "gemm")]
pub mod runtime;

/// The CUDA driver bindings ferrocute's GEMM API takes its buffers and streams from.
#[cfg(feature = "gemm")]
pub use cudarc;
/// The kernel configurations, the kernel-module registry and the build scheme.
#[cfg(feature = "gemm")]
pub use ferrocute_kernels as kernels;
/// The `bf16` and `f16` element types.
#[cfg(feature = "gemm")]
pub use half;
