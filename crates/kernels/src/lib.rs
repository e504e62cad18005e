//! ferrocute's kernel side without CUDA: the GEMM kernel configurations as layout types
//! (one module per kernel family, mirroring `src/kernels/`), the registry of kernel
//! modules, the embedded-artifact types, and the build scheme ([`build`]) that renders
//! the configurations to C++, compiles them with nvcc when their sources change, and
//! commits compressed artifacts so that dependents build with Rust alone.
//!
//! `ferrocute`'s `build.rs` uses it as a build-dependency; its run-time tables use it as a
//! dependency. Crates with CuTe kernels of their own can use [`build`] the same way.
#![warn(missing_docs)]

pub mod abi;
mod artifact;
pub mod build;
mod common;
pub mod registry;
pub mod sm80;
pub mod sm90_gemm;
pub mod sm90_skinny;
pub mod sm90_splitk;

pub use artifact::{decompress, Artifact, ModuleArtifacts, Target};
pub use common::{block_shape_ok, GRID_LIMITS, SMEM_LIMIT};
