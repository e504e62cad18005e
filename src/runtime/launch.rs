//! Checked launch shapes and arguments, and [`launch`]: the one `unsafe` driver call of
//! [`crate::runtime`].

use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaStream};

use ferrocute_kernels::{block_shape_ok, GRID_LIMITS, SMEM_LIMIT};

use super::{Error, Function};

/// A kernel argument, by value: a device address or a scalar of the C++ parameter's type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg {
    /// A device address (`T*` / `const T*`).
    Ptr(sys::CUdeviceptr),
    /// `int32_t`.
    I32(i32),
    /// `uint32_t`.
    U32(u32),
    /// `int64_t`.
    I64(i64),
    /// `uint64_t`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
}

/// The integer type a dimension is passed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    /// `int32_t`.
    I32,
    /// `uint32_t`.
    U32,
    /// `int64_t`.
    I64,
    /// `uint64_t`.
    U64,
}

impl Arg {
    /// Dimension `param` = `value` as `ty`, or [`Error::OutOfRange`] where it does not fit.
    ///
    /// ```
    /// use ferrocute::runtime::{Arg, ArgType, Error};
    /// assert_eq!(Arg::dim(ArgType::I32, "m", 7), Ok(Arg::I32(7)));
    /// assert_eq!(
    ///     Arg::dim(ArgType::I32, "m", 1 << 31),
    ///     Err(Error::OutOfRange { param: "m", value: 1 << 31, limit: i32::MAX as u64 })
    /// );
    /// ```
    pub fn dim(ty: ArgType, param: &'static str, value: usize) -> Result<Arg, Error> {
        let (limit, arg) = match ty {
            ArgType::I32 => (i32::MAX as u64, i32::try_from(value).ok().map(Arg::I32)),
            ArgType::U32 => (u32::MAX as u64, u32::try_from(value).ok().map(Arg::U32)),
            ArgType::I64 => (i64::MAX as u64, i64::try_from(value).ok().map(Arg::I64)),
            ArgType::U64 => (u64::MAX, u64::try_from(value).ok().map(Arg::U64)),
        };
        arg.ok_or(Error::OutOfRange {
            param,
            value: value as u64,
            limit,
        })
    }

    /// Where the driver reads the value from (it copies it at launch).
    fn as_mut_ptr(&mut self) -> *mut c_void {
        match self {
            Arg::Ptr(v) => v as *mut sys::CUdeviceptr as *mut c_void,
            Arg::I32(v) => v as *mut i32 as *mut c_void,
            Arg::U32(v) => v as *mut u32 as *mut c_void,
            Arg::I64(v) => v as *mut i64 as *mut c_void,
            Arg::U64(v) => v as *mut u64 as *mut c_void,
            Arg::F32(v) => v as *mut f32 as *mut c_void,
            Arg::F64(v) => v as *mut f64 as *mut c_void,
        }
    }
}

/// `Ok` when a buffer of `len` elements holds the `needed` a kernel may access (`None`:
/// the size overflowed, [`Error::Overflow`]); else [`Error::BufferTooShort`].
///
/// ```
/// use ferrocute::runtime::{check_len, Error};
/// assert!(check_len("x", Some(8), 8).is_ok());
/// assert_eq!(check_len("x", Some(9), 8), Err(Error::BufferTooShort { param: "x", needed: 9, len: 8 }));
/// assert_eq!(check_len("x", None, 8), Err(Error::Overflow { what: "x" }));
/// ```
pub fn check_len(param: &'static str, needed: Option<u64>, len: usize) -> Result<(), Error> {
    let needed = needed.ok_or(Error::Overflow { what: param })?;
    if (len as u64) < needed {
        return Err(Error::BufferTooShort { param, needed, len });
    }
    Ok(())
}

/// `Ok` when `buffer` (a buffer's stream) belongs to the context of `stream`, else
/// [`Error::ContextMismatch`]: an address of another context means nothing to the kernel.
pub fn same_context(
    stream: &CudaStream,
    buffer: &CudaStream,
    param: &'static str,
) -> Result<(), Error> {
    if **stream.context() == **buffer.context() {
        Ok(())
    } else {
        Err(Error::ContextMismatch { param })
    }
}

/// A checked launch shape: grid within CUDA's limits, block of at most 1024 threads,
/// dynamic shared memory of at most 227 KiB (the device's own limit is the driver's check).
///
/// ```
/// use ferrocute::runtime::{Error, LaunchDims};
/// let d = LaunchDims::new([Some(4), Some(2), Some(1)], [32, 8, 1], 0).unwrap();
/// assert_eq!((d.grid(), d.block(), d.is_empty()), ([4, 2, 1], [32, 8, 1], false));
/// assert!(LaunchDims::new([Some(0), Some(1), Some(1)], [32, 1, 1], 0).unwrap().is_empty());
/// assert_eq!(
///     LaunchDims::new([Some(1), Some(65536), Some(1)], [32, 1, 1], 0),
///     Err(Error::GridTooLarge { axis: 1, blocks: 65536, limit: 65535 })
/// );
/// assert_eq!(
///     LaunchDims::new([None, Some(1), Some(1)], [32, 1, 1], 0),
///     Err(Error::Overflow { what: "grid" })
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchDims {
    grid: [u32; 3],
    block: [u32; 3],
    smem_bytes: u32,
}

impl LaunchDims {
    /// Checks `grid` (`None`: its computation overflowed), `block` and `smem_bytes`.
    pub fn new(grid: [Option<u64>; 3], block: [u32; 3], smem_bytes: u32) -> Result<Self, Error> {
        let mut g = [0u32; 3];
        for (axis, (blocks, limit)) in grid.into_iter().zip(GRID_LIMITS).enumerate() {
            let blocks = blocks.ok_or(Error::Overflow { what: "grid" })?;
            if blocks > limit {
                return Err(Error::GridTooLarge {
                    axis,
                    blocks,
                    limit,
                });
            }
            g[axis] = blocks as u32;
        }
        if !block_shape_ok(block) || smem_bytes as usize > SMEM_LIMIT {
            return Err(Error::BadBlock { block, smem_bytes });
        }
        Ok(LaunchDims {
            grid: g,
            block,
            smem_bytes,
        })
    }

    /// Blocks along x, y, z.
    pub fn grid(&self) -> [u32; 3] {
        self.grid
    }

    /// Threads per block along x, y, z.
    pub fn block(&self) -> [u32; 3] {
        self.block
    }

    /// Dynamic shared memory per block, bytes.
    pub fn smem_bytes(&self) -> u32 {
        self.smem_bytes
    }

    /// Whether the grid has no block (nothing to launch).
    pub fn is_empty(&self) -> bool {
        self.grid.contains(&0)
    }
}

/// Enqueues `func(args...)` on `stream` with `dims`, without synchronising the host.
/// Generated launchers call it after their checks; an empty grid is not launched. A stream
/// of another context than `func`'s is [`Error::ContextMismatch`], and shared memory above
/// what `func` was looked up with is [`Error::BadBlock`].
///
/// # Safety
/// - `args` match `func`'s C++ parameters one for one: an [`Arg::Ptr`] for each pointer,
///   the variant of the exact integer or floating type for each scalar.
/// - With these arguments and `dims`, the kernel accesses only memory inside buffers of
///   `stream`'s context that stay allocated until it completes (cudarc frees a buffer in
///   stream order, so a buffer borrowed through its event guards until this returns is).
/// - Buffers written by the kernel are not read or written by other work that may run at
///   the same time (a `&mut` borrow of them until this returns is enough with cudarc's
///   event tracking or a single stream).
pub unsafe fn launch(
    stream: &CudaStream,
    func: &Function,
    dims: &LaunchDims,
    args: &[Arg],
) -> Result<(), Error> {
    if dims.is_empty() {
        return Ok(());
    }
    if **stream.context() != **func.func.context() {
        return Err(Error::ContextMismatch { param: "stream" });
    }
    if dims.smem_bytes > func.smem_bytes.max(48 * 1024) {
        return Err(Error::BadBlock {
            block: dims.block,
            smem_bytes: dims.smem_bytes,
        });
    }
    let launch_err = |e: result::DriverError| Error::Launch {
        kernel: func.name.clone(),
        reason: e.to_string(),
    };
    stream.context().bind_to_thread().map_err(launch_err)?;
    // The driver reads each parameter through a pointer; these copies outlive the call.
    let mut values = args.to_vec();
    let mut pointers: Vec<*mut c_void> = values.iter_mut().map(Arg::as_mut_ptr).collect();
    let [gx, gy, gz] = dims.grid;
    let [bx, by, bz] = dims.block;
    // # Safety
    // - The arguments and the memory they reach are the caller's promise (above);
    //   `pointers` holds one pointer per argument into `values`, alive across the call.
    // - `func`'s module is alive (held by `func`) and belongs to the bound context, the
    //   stream's (checked above); `dims` is within CUDA's limits (`LaunchDims::new`), and
    //   its dynamic shared memory within what the function was enabled for (checked above).
    unsafe {
        result::launch_kernel(
            func.func.raw,
            (gx, gy, gz),
            (bx, by, bz),
            dims.smem_bytes,
            stream.cu_stream(),
            &mut pointers,
        )
    }
    .map_err(launch_err)
}
