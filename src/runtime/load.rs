//! Loading compiled modules into a context and looking their functions up: the driver
//! calls ferrocute's GEMM and downstream launchers share (crate-private; the public face is
//! [`super::Module`]).

use std::ffi::{c_void, CString};
use std::path::PathBuf;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaStream, DriverError};
use ferrocute_kernels::{ModuleArtifacts, Target};

/// A loaded `CUmodule`, unloaded on drop (the context is kept alive by `ctx`).
#[derive(Debug)]
pub(crate) struct LoadedModule {
    raw: sys::CUmodule,
    ctx: Arc<CudaContext>,
}

// # Safety
// - A `CUmodule` handle may be used from any thread once its context is bound
//   (we bind before every use); the module is immutable after loading.
unsafe impl Send for LoadedModule {}
unsafe impl Sync for LoadedModule {}

impl Drop for LoadedModule {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // # Safety
            // - `raw` came from a successful `cuModuleLoadData` in `ctx` and is
            //   unloaded exactly once, here; every `Func` holds an `Arc` to
            //   this module, so no function handle outlives it.
            let r = unsafe { result::module::unload(self.raw) };
            self.ctx.record_err(r);
        }
    }
}

/// A kernel entry point; keeps its module loaded.
#[derive(Debug, Clone)]
pub(crate) struct Func {
    pub(crate) raw: sys::CUfunction,
    module: Arc<LoadedModule>,
}

impl Func {
    /// The context the function was loaded in.
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.module.ctx
    }
}

// # Safety
// - A `CUfunction` is an immutable handle owned by its module, which `Func`
//   keeps alive; using it from several threads is allowed by the driver.
unsafe impl Send for Func {}
unsafe impl Sync for Func {}

/// What the driver loads for a module.
pub(crate) enum ModuleImage {
    Cubin(Vec<u8>),
    Ptx(Vec<u8>),
}

/// The image of `module` for a GPU of compute capability `cc`: for kernel development,
/// `$FERROCUTE_PTX_DIR/<module>.cubin`, else `<module>.ptx`, when that variable names a
/// folder holding one; else the embedded artifact of `artifacts` that runs on the GPU (a
/// cubin where there is one, so no PTX JIT), decompressed.
pub(crate) fn module_image(
    module: &str,
    artifacts: Option<&ModuleArtifacts>,
    cc: (i32, i32),
) -> Result<ModuleImage, String> {
    if let Some(dir) = std::env::var_os("FERROCUTE_PTX_DIR").map(PathBuf::from) {
        for (ext, image) in [
            ("cubin", ModuleImage::Cubin as fn(_) -> _),
            ("ptx", ModuleImage::Ptx),
        ] {
            let path = dir.join(format!("{module}.{ext}"));
            match std::fs::read(&path) {
                Ok(bytes) => return Ok(image(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
    }
    let artifacts = artifacts.ok_or_else(|| format!("no kernel module {module}"))?;
    let artifact = artifacts.for_device(cc).ok_or_else(|| {
        format!(
            "no cubin or PTX of {module} runs on compute capability {}.{}",
            cc.0, cc.1
        )
    })?;
    let bytes = ferrocute_kernels::decompress(artifact.zst)?;
    Ok(match artifact.target {
        Target::Cubin(_) => ModuleImage::Cubin(bytes),
        Target::Ptx(_) => ModuleImage::Ptx(bytes),
    })
}

/// Loads `image` into `ctx`, which this binds to the calling thread.
pub(crate) fn load(ctx: &Arc<CudaContext>, image: ModuleImage) -> Result<LoadedModule, String> {
    ctx.bind_to_thread().map_err(|e| e.to_string())?;
    let raw = match image {
        ModuleImage::Cubin(bytes) => {
            // An 8-byte aligned copy: the driver reads the ELF image in place.
            let mut aligned = vec![0u64; bytes.len().div_ceil(8)];
            // # Safety
            // - `aligned` has at least `bytes.len()` bytes of storage and does not
            //   overlap `bytes`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    aligned.as_mut_ptr() as *mut u8,
                    bytes.len(),
                )
            };
            // # Safety
            // - `aligned` holds a cubin (ELF) and outlives the call: the embedded one
            //   whose target runs on this GPU, or a developer's file from
            //   `FERROCUTE_PTX_DIR`; the driver validates the image and returns an error
            //   for anything malformed or built for another GPU.
            // - The context is bound to this thread (above).
            unsafe { result::module::load_data(aligned.as_ptr() as *const c_void) }
        }
        ModuleImage::Ptx(text) => {
            let c_text =
                CString::new(text).map_err(|_| "PTX text contains a NUL byte".to_string())?;
            // # Safety
            // - `c_text` is a NUL-terminated string that outlives the call; the
            //   driver parses it as a PTX image and rejects malformed text with an
            //   error code (it never reads past the terminator).
            // - The context is bound to this thread (above).
            unsafe { result::module::load_data(c_text.as_ptr() as *const c_void) }
        }
    }
    .map_err(|e| e.to_string())?;
    Ok(LoadedModule {
        raw,
        ctx: ctx.clone(),
    })
}

/// The entry point `kernel` of `module`, its dynamic shared-memory limit raised to
/// `smem_bytes` when that is above the default 48 KiB.
pub(crate) fn function(
    module: &Arc<LoadedModule>,
    kernel: &str,
    smem_bytes: u32,
) -> Result<Func, String> {
    let c_name = CString::new(kernel).map_err(|_| "name contains NUL".to_string())?;
    module.ctx.bind_to_thread().map_err(|e| e.to_string())?;
    // # Safety
    // - `module.raw` is a live module of the bound context (kept alive by
    //   `module`); `c_name` is a valid C string.
    let raw =
        unsafe { result::module::get_function(module.raw, c_name) }.map_err(|e| e.to_string())?;
    if smem_bytes > 48 * 1024 {
        let bytes = i32::try_from(smem_bytes).map_err(|_| "smem too large".to_string())?;
        // # Safety
        // - `raw` is a function handle just obtained from a live module.
        unsafe {
            result::function::set_function_attribute(
                raw,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes,
            )
        }
        .map_err(|e| e.to_string())?;
    }
    Ok(Func {
        raw,
        module: module.clone(),
    })
}

/// Whether the CUDA driver library can be loaded. cudarc panics on a missing library when
/// it loads the driver dynamically, and has no probe when the application links it, so the
/// library is looked up here, the same way in both cases.
pub(crate) fn driver_present() -> bool {
    const NAMES: &[&str] = if cfg!(windows) {
        &["nvcuda.dll"]
    } else {
        &["libcuda.so.1", "libcuda.so"]
    };
    NAMES.iter().any(|name| {
        // # Safety
        // - Loading the driver library runs no initialisation code of CUDA's beyond the
        //   library's own constructors, which cudarc runs the same way on first use; the
        //   handle is dropped at once (the library stays mapped while the process uses it).
        unsafe { libloading::Library::new(*name) }.is_ok()
    })
}

/// Why [`open_stream`] found no stream.
pub(crate) enum OpenFailure {
    /// No CUDA driver library.
    NoDriver,
    /// The device's primary context could not be had.
    Device(DriverError),
    /// The context could not make a stream.
    Stream(DriverError),
}

/// Opens device `ordinal` (its primary context) and a new non-default stream, without
/// panicking where there is no driver (the GEMM and `runtime::open` word the failure each
/// in their own error type).
pub(crate) fn open_stream(ordinal: usize) -> Result<Arc<CudaStream>, OpenFailure> {
    if !driver_present() {
        return Err(OpenFailure::NoDriver);
    }
    let ctx = CudaContext::new(ordinal).map_err(OpenFailure::Device)?;
    ctx.new_stream().map_err(OpenFailure::Stream)
}
