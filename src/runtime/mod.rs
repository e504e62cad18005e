//! Launching a crate's own CuTe kernels: the run-time half of
//! [`ferrocute_kernels::build::build_crate`], whose generated launchers (`OUT_DIR/<module>.rs`)
//! call this module.
//!
//! A downstream crate declares its kernels in `build.rs` (parameters, the buffer lengths
//! they need as sizes of the dimensions, block and grid) and includes the generated file;
//! it gets a struct that loads the module ([`Module`]) and a method per kernel that checks
//! every argument and then calls [`launch`]:
//!
//! ```text
//! // in the downstream crate (examples/transpose is one)
//! mod kernels { include!(concat!(env!("OUT_DIR"), "/transpose.rs")); }
//! let stream = ferrocute::runtime::open(0)?;
//! let t = kernels::Transpose::new(stream.clone())?;
//! t.transpose_f32(&src, &mut dst, m, n)?;      // Err(Error::BufferTooShort { .. }), never UB
//! ```
//!
//! # Safety argument
//!
//! [`launch`] is the only `unsafe` entry point; a generated launcher calls it once per
//! kernel, after checking what its contract asks:
//! - the argument types: the generated header declares the kernel's `extern "C"`
//!   prototype from the same description, so a definition with other parameter types does
//!   not compile;
//! - the memory: each buffer is a cudarc buffer ([`DeviceIn`], [`DeviceOut`]: sealed, so
//!   its length and address come from cudarc) of the launcher's context, at least as long
//!   as its declared size at the given dimensions (computed with overflow checks),
//!   borrowed (`&mut` for outputs) with cudarc's event guards until the launch is enqueued;
//! - the launch: dimensions fit their C++ integer types, the grid CUDA's limits.
//!
//! The prototypes hold because nvcc includes the generated header before the crate's
//! source (`--pre-include`), whether or not the source includes it. The kernel images are
//! the crate's committed artifacts, or what `FERROCUTE_PTX_DIR` names: that variable is
//! trusted as `LD_LIBRARY_PATH` is (it exists to try a rebuilt kernel in place).
//!
//! What the checks cannot see is the kernel's body: its author promises, by the
//! declaration in `build.rs`, that with those dimensions it accesses each buffer only
//! within its declared size and no other memory, as one does when writing an `extern`
//! binding.

mod buffer;
mod device_engine;
mod error;
mod launch;
pub(crate) mod load;
mod module;

pub use buffer::{DeviceIn, DeviceOut};
pub use device_engine::Device;
pub use error::Error;
pub use launch::{check_len, launch, same_context, Arg, ArgType, LaunchDims};
pub use module::{Function, Module};

use std::sync::Arc;

use cudarc::driver::CudaStream;

/// Opens device `ordinal` (its primary context) and a new stream on it, or
/// [`Error::NoDevice`] without a driver or device (never a panic, so a program can report
/// that it skipped its GPU work).
///
/// ```no_run
/// match ferrocute::runtime::open(0) {
///     Ok(stream) => println!("{:?}", stream.context().name()),
///     Err(e) => println!("skipped: {e}"),
/// }
/// ```
pub fn open(ordinal: usize) -> Result<Arc<CudaStream>, Error> {
    load::open_stream(ordinal).map_err(|f| Error::NoDevice {
        reason: match f {
            load::OpenFailure::NoDriver => "CUDA driver library (libcuda) not found".into(),
            load::OpenFailure::Device(e) => format!("device {ordinal}: {e}"),
            load::OpenFailure::Stream(e) => format!("device {ordinal}: stream creation: {e}"),
        },
    })
}
