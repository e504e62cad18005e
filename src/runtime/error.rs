//! The error type of [`crate::runtime`].

use std::fmt;

/// Everything that can go wrong when loading a module or launching a kernel through a
/// generated launcher. Nothing in [`crate::runtime`] panics on bad input: each check that
/// fails is one of these, with the offending values, and nothing is launched.
///
/// ```
/// use ferrocute::runtime::Error;
/// let e = Error::BufferTooShort { param: "src", needed: 100, len: 64 };
/// assert_eq!(e.to_string(), "src: the kernel needs 100 elements, the buffer holds 64");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA driver library, or no device with the requested ordinal.
    NoDevice {
        /// Why (the driver's error text, or "libcuda not found").
        reason: String,
    },
    /// The module or one of its functions could not be loaded (nothing compiled for this
    /// GPU, a driver too old for the cubin or PTX, a name the module lacks).
    KernelLoad {
        /// The module.
        module: String,
        /// The entry point, or `""` for the module itself.
        kernel: String,
        /// The driver's or the loader's words.
        reason: String,
    },
    /// A buffer belongs to another CUDA context than the launcher's stream.
    ContextMismatch {
        /// The parameter.
        param: &'static str,
    },
    /// A buffer holds fewer elements than the kernel may access at these dimensions.
    BufferTooShort {
        /// The parameter.
        param: &'static str,
        /// Elements the kernel may access.
        needed: u64,
        /// Elements the buffer holds.
        len: usize,
    },
    /// A dimension does not fit the integer type the kernel takes it as.
    OutOfRange {
        /// The parameter.
        param: &'static str,
        /// Its value.
        value: u64,
        /// The largest value the kernel's type holds.
        limit: u64,
    },
    /// A buffer length or grid extent computed from the dimensions overflows `u64`.
    Overflow {
        /// What was being computed.
        what: &'static str,
    },
    /// The grid exceeds CUDA's limits (x: 2^31 - 1 blocks; y and z: 65535).
    GridTooLarge {
        /// The axis: 0, 1 or 2 for x, y, z.
        axis: usize,
        /// Blocks asked for along it.
        blocks: u64,
        /// CUDA's limit along it.
        limit: u64,
    },
    /// The block shape or shared memory are not launchable: not 1 to 1024 threads, more
    /// than 64 along z, more than 227 KiB, or more than the function was looked up with.
    BadBlock {
        /// The block shape.
        block: [u32; 3],
        /// Dynamic shared memory, bytes.
        smem_bytes: u32,
    },
    /// The driver refused the launch.
    Launch {
        /// The entry point.
        kernel: String,
        /// The driver's words.
        reason: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDevice { reason } => write!(f, "no usable CUDA driver/device: {reason}"),
            Error::KernelLoad {
                module,
                kernel,
                reason,
            } => write!(f, "loading {module}::{kernel} failed: {reason}"),
            Error::ContextMismatch { param } => write!(
                f,
                "{param}: the buffer belongs to another CUDA context than the launcher's stream"
            ),
            Error::BufferTooShort { param, needed, len } => write!(
                f,
                "{param}: the kernel needs {needed} elements, the buffer holds {len}"
            ),
            Error::OutOfRange {
                param,
                value,
                limit,
            } => write!(f, "{param} = {value} exceeds the kernel's limit {limit}"),
            Error::Overflow { what } => write!(f, "{what} overflows 64 bits"),
            Error::GridTooLarge {
                axis,
                blocks,
                limit,
            } => write!(
                f,
                "grid of {blocks} blocks along {} exceeds CUDA's {limit}",
                ["x", "y", "z"][(*axis).min(2)]
            ),
            Error::BadBlock { block, smem_bytes } => write!(
                f,
                "block {block:?} with {smem_bytes} bytes of shared memory cannot be launched"
            ),
            Error::Launch { kernel, reason } => write!(f, "launch of {kernel} failed: {reason}"),
        }
    }
}

impl std::error::Error for Error {}
