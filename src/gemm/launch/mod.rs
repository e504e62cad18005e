//! The only part of `ferrocute::gemm` with `unsafe`: driver probing ([`device`]), module
//! loading ([`module`]), TMA descriptors ([`tma`]) and the raw kernel launch ([`enqueue`]).
//! The kernels' parameter blocks are mirrored in `ferrocute_kernels::abi`, whose layout
//! the generated C++ headers check.
//!
//! Everything reaching a launch has been validated by [`super::plan::plan`] (shapes,
//! strides, buffer lengths, overlap, i32/i64 ranges) and mapped onto the kernel ABI of
//! `src/kernels/gemm_params.h`.

mod device;
mod enqueue;
mod module;
mod tma;

pub(crate) use device::{device_count, open_stream};
pub(crate) use enqueue::{capturing, launch_params, launch_tma, repack, workspace, Workspace};
pub(crate) use ferrocute_kernels::abi::GemmParams;
pub(crate) use module::{Func, ModuleCache};
pub(crate) use tma::{tensor_map, zeroed_tensor_map, TmaOperand};
