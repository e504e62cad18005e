//! The error type of [`crate::gemm`].

use std::fmt;

use cudarc::driver::{sys::CUresult, DriverError};

use super::epilogue::EpilogueVector;

/// Which operand of `C = alpha * A * B + beta * C` an error refers to.
///
/// Operands are named as the caller passed them, before any internal
/// transposition or operand swap.
///
/// ```
/// use ferrocute::gemm::Matrix;
/// assert_eq!(Matrix::A.to_string(), "A");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Matrix {
    /// The left input, logically `m x k`.
    A,
    /// The right input, logically `k x n`.
    B,
    /// The output (and, when `beta != 0`, also an input), logically `m x n`.
    C,
}

impl fmt::Display for Matrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Matrix::A => "A",
            Matrix::B => "B",
            Matrix::C => "C",
        })
    }
}

/// Everything that can go wrong when preparing or enqueuing a GEMM.
///
/// Every variant carries the offending values. Nothing in [`crate::gemm`]
/// panics on user input; all failures surface as one of these.
///
/// ```
/// use ferrocute::gemm::{Error, Matrix};
/// let e = Error::BufferTooShort { operand: Matrix::A, needed: 100, len: 64 };
/// assert!(e.to_string().contains("need 100 elements"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda`) could not be found or initialised,
    /// or there is no device with the requested ordinal.
    NoDevice {
        /// Why (the driver's error text, or "libcuda not found").
        reason: String,
    },
    /// The logical shapes do not compose: `A` is `m x k`, `B` must be
    /// `k x n`, `C` must be `m x n`. Shapes are `(rows, cols)` as passed.
    ShapeMismatch {
        /// `(rows, cols)` of A.
        a: (usize, usize),
        /// `(rows, cols)` of B.
        b: (usize, usize),
        /// `(rows, cols)` of C.
        c: (usize, usize),
    },
    /// Batch counts differ. Inputs may have batch count 1 (broadcast);
    /// otherwise every batch count must equal C's.
    BatchMismatch {
        /// Batch count of A.
        a: usize,
        /// Batch count of B.
        b: usize,
        /// Batch count of C.
        c: usize,
    },
    /// The buffer is shorter than the shape, leading dimension and batch
    /// stride require.
    BufferTooShort {
        /// Which operand.
        operand: Matrix,
        /// Elements required: `(batch-1)*batch_stride + (outer-1)*ld + inner`.
        needed: usize,
        /// Elements available in the view.
        len: usize,
    },
    /// The leading dimension is smaller than the contiguous extent (rows for
    /// column-major, cols for row-major), so columns/rows would overlap.
    LeadingDimension {
        /// Which operand.
        operand: Matrix,
        /// The leading dimension given.
        ld: usize,
        /// The smallest valid leading dimension.
        min: usize,
    },
    /// The output's batch stride is smaller than one matrix's span, so two
    /// batch entries would write the same elements.
    BatchStrideOverlap {
        /// Which operand (always C).
        operand: Matrix,
        /// The batch stride given.
        stride: usize,
        /// The smallest valid batch stride.
        min: usize,
    },
    /// The data is misaligned even for the fallback kernels (which need only
    /// element alignment). Misalignment that only the fastest kernels care
    /// about is not an error: a kernel with narrower reads is used instead.
    Misaligned {
        /// Which operand.
        operand: Matrix,
        /// The device address.
        ptr: u64,
        /// The alignment needed, in bytes.
        align: usize,
    },
    /// The output's memory range overlaps an input's.
    Overlap {
        /// The input that overlaps C.
        input: Matrix,
    },
    /// A view's buffer lives in a different CUDA context than the [`crate::gemm::Gemm`]'s stream.
    ContextMismatch {
        /// Which operand.
        operand: Matrix,
    },
    /// A dimension, index, stride or launch dimension exceeds what the kernel
    /// ABI or the hardware accepts.
    Overflow {
        /// What overflowed (e.g. "m", "lda", "grid.y", "byte size of C").
        what: &'static str,
        /// The value (saturated to `u64::MAX` when it did not even fit).
        value: u64,
        /// The largest accepted value.
        limit: u64,
    },
    /// No kernel in the table runs on this device's architecture.
    UnsupportedArch {
        /// The kernel looked for.
        kernel: String,
        /// Minimum compute capability it needs.
        needed: (i32, i32),
        /// The device's compute capability.
        found: (i32, i32),
    },
    /// The PTX module or the kernel in it could not be loaded.
    KernelLoad {
        /// Module name (a file under `ptx/`).
        module: &'static str,
        /// Kernel entry point name.
        kernel: String,
        /// The driver's reason.
        reason: String,
    },
    /// The driver refused the launch (or a previous asynchronous error
    /// surfaced at launch).
    Launch {
        /// Kernel entry point name.
        kernel: String,
        /// The driver's reason.
        reason: String,
        /// The driver's result code ([`Error::cuda_result`]).
        code: Option<CUresult>,
    },
    /// The handle's stream is capturing a CUDA graph while cudarc tracks events for this
    /// context (its default once the context has a second stream): every operand's
    /// recorded events would make the capture depend on work outside it, which the driver
    /// rejects. Capture with tracking off: call `CudaContext::disable_event_tracking`
    /// before allocating the buffers the graph uses, and order the streams yourself.
    CaptureWithEventTracking,
    /// The call needs a larger workspace than the handle holds (for repacked operands, or
    /// for the partial sums of tiles split along K) while the handle's stream is capturing
    /// a CUDA graph, where memory allocated on it would belong to the graph. Make the call,
    /// or [`crate::gemm::Gemm::prepare`] it, once before the capture.
    WorkspaceInCapture {
        /// What the workspace holds.
        what: &'static str,
        /// The bytes it needs.
        bytes: u64,
    },
    /// An epilogue vector is shorter than the dimension of C it runs along (for a gated
    /// epilogue, B's columns).
    EpilogueLength {
        /// Which vector.
        vector: EpilogueVector,
        /// Its length.
        len: usize,
        /// The elements needed.
        needed: usize,
    },
    /// An epilogue vector's address is not a multiple of its element size.
    EpilogueMisaligned {
        /// Which vector.
        vector: EpilogueVector,
        /// The device address.
        ptr: u64,
        /// The alignment needed, in bytes.
        align: usize,
    },
    /// An epilogue vector overlaps C, which the kernel writes while it reads the vector.
    EpilogueOverlap {
        /// Which vector.
        vector: EpilogueVector,
    },
    /// An epilogue vector lives in a different CUDA context than the Gemm's stream.
    EpilogueContext {
        /// Which vector.
        vector: EpilogueVector,
    },
    /// A gated epilogue ([`crate::gemm::Activation::SwiGlu`]) cannot apply as asked.
    Gated {
        /// What it needs.
        reason: &'static str,
    },
    /// Another CUDA driver call failed.
    Driver {
        /// What was being done.
        during: &'static str,
        /// The driver's reason.
        reason: String,
        /// The driver's result code, where a driver call returned one
        /// ([`Error::cuda_result`]).
        code: Option<CUresult>,
    },
}

impl Error {
    /// The failure of a driver call (through cudarc) made during `during`, with its code
    /// and the driver's description of it (which asks the driver library).
    ///
    /// ```no_run
    /// use ferrocute::gemm::{Error, Gemm};
    /// # fn f(gemm: &Gemm) -> Result<(), Error> {
    /// let buf = gemm.stream().alloc_zeros::<f32>(1 << 20).map_err(|e| Error::driver("alloc", e))?;
    /// # Ok(()) }
    /// ```
    pub fn driver(during: &'static str, e: DriverError) -> Error {
        Error::Driver {
            during,
            reason: e.to_string(),
            code: Some(e.0),
        }
    }

    /// The CUDA driver's result code behind a [`Error::Driver`] or [`Error::Launch`], so
    /// that a caller can tell, say, an allocation that may succeed after freeing memory
    /// from an error that leaves the context unusable (`CUDA_ERROR_ILLEGAL_ADDRESS`, which
    /// a launch reports for an earlier kernel's fault); `None` for every other error.
    ///
    /// ```
    /// use ferrocute::cudarc::driver::sys::CUresult;
    /// use ferrocute::gemm::{Error, Matrix};
    /// let oom = CUresult::CUDA_ERROR_OUT_OF_MEMORY;
    /// let e = Error::Driver { during: "alloc", reason: "out of memory".into(), code: Some(oom) };
    /// assert_eq!(e.cuda_result(), Some(oom));
    /// assert!(e.is_out_of_memory());
    /// assert_eq!(Error::Overlap { input: Matrix::A }.cuda_result(), None);
    /// assert!(!Error::Overlap { input: Matrix::A }.is_out_of_memory());
    /// ```
    pub fn cuda_result(&self) -> Option<CUresult> {
        match self {
            Error::Driver { code, .. } | Error::Launch { code, .. } => *code,
            _ => None,
        }
    }

    /// Whether the device ran out of memory (`CUDA_ERROR_OUT_OF_MEMORY`): a workspace
    /// allocation or a launch's resources; memory freed, the call may succeed. (A module
    /// load's failure, [`Error::KernelLoad`], keeps the driver's text only.)
    pub fn is_out_of_memory(&self) -> bool {
        self.cuda_result() == Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDevice { reason } => write!(f, "no usable CUDA driver/device: {reason}"),
            Error::ShapeMismatch { a, b, c } => write!(
                f,
                "shape mismatch: A is {}x{}, B is {}x{}, C is {}x{} (need A m x k, B k x n, C m x n)",
                a.0, a.1, b.0, b.1, c.0, c.1
            ),
            Error::BatchMismatch { a, b, c } => {
                write!(f, "batch count mismatch: A {a}, B {b}, C {c}")
            }
            Error::BufferTooShort {
                operand,
                needed,
                len,
            } => write!(
                f,
                "buffer of {operand} too short: shape and strides need {needed} elements, view has {len}"
            ),
            Error::LeadingDimension { operand, ld, min } => write!(
                f,
                "leading dimension of {operand} is {ld}, smaller than its contiguous extent {min}"
            ),
            Error::BatchStrideOverlap {
                operand,
                stride,
                min,
            } => write!(
                f,
                "batch stride of {operand} is {stride}, smaller than one matrix span {min}: batches would overlap"
            ),
            Error::Misaligned {
                operand,
                ptr,
                align,
            } => write!(
                f,
                "{operand} at {ptr:#x} is not {align}-byte aligned, which even the simple kernel needs"
            ),
            Error::Overlap { input } => {
                write!(f, "output C overlaps input {input} in device memory")
            }
            Error::ContextMismatch { operand } => write!(
                f,
                "{operand} lives in a different CUDA context than the Gemm's stream"
            ),
            Error::Overflow { what, value, limit } => {
                write!(f, "{what} = {value} exceeds the limit {limit}")
            }
            Error::UnsupportedArch {
                kernel,
                needed,
                found,
            } => write!(
                f,
                "kernel {kernel} needs compute capability {}.{}, device has {}.{}",
                needed.0, needed.1, found.0, found.1
            ),
            Error::KernelLoad {
                module,
                kernel,
                reason,
            } => write!(f, "cannot load kernel {kernel} from module {module}: {reason}"),
            Error::Launch { kernel, reason, .. } => {
                write!(f, "launch of {kernel} failed: {reason}")
            }
            Error::WorkspaceInCapture { what, bytes } => write!(
                f,
                "the call needs a workspace of {bytes} bytes ({what}) while its stream captures \
                 a CUDA graph; prepare the call (Gemm::prepare) before capturing"
            ),
            Error::CaptureWithEventTracking => f.write_str(
                "the stream is capturing a CUDA graph while cudarc tracks events for this context; \
                 disable event tracking before allocating the graph's buffers",
            ),
            Error::EpilogueLength { vector, len, needed } => write!(
                f,
                "{vector} has {len} elements, the dimension of C it runs along needs {needed}"
            ),
            Error::EpilogueMisaligned { vector, ptr, align } => {
                write!(f, "{vector} at {ptr:#x} is not aligned to its {align}-byte elements")
            }
            Error::EpilogueOverlap { vector } => write!(f, "{vector} overlaps C"),
            Error::EpilogueContext { vector } => write!(
                f,
                "{vector} lives in a different CUDA context than the Gemm's stream"
            ),
            Error::Gated { reason } => write!(f, "SwiGLU epilogue: {reason}"),
            Error::Driver { during, reason, .. } => {
                write!(f, "CUDA driver error during {during}: {reason}")
            }
        }
    }
}

impl std::error::Error for Error {}
