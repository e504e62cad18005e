//! Loading kernel modules (the embedded artifact that runs on the device, decompressed
//! once per context) and their functions, cached per context for the life of the process.

use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::{result, sys, CudaContext, CudaStream};

use super::driver_msg;
use super::enqueue::{cluster_attr, launch_config};
use crate::gemm::error::Error;
use crate::gemm::registry::{module_artifacts, KernelConfig};

/// A loaded `CUmodule`, unloaded on drop (the context is kept alive by `ctx`).
#[derive(Debug)]
struct LoadedModule {
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
    pub(super) raw: sys::CUfunction,
    _module: Arc<LoadedModule>,
}

// # Safety
// - A `CUfunction` is an immutable handle owned by its module, which `Func`
//   keeps alive; using it from several threads is allowed by the driver.
unsafe impl Send for Func {}
unsafe impl Sync for Func {}

/// Per-context cache of loaded modules and functions, shared by all
/// [`super::Gemm`] handles of the same context.
#[derive(Debug)]
pub(crate) struct ModuleCache {
    ctx: Arc<CudaContext>,
    modules: Mutex<HashMap<&'static str, Arc<LoadedModule>>>,
    funcs: Mutex<HashMap<String, Func>>,
    /// Resident clusters per (function handle, cluster size), from the driver.
    clusters: Mutex<HashMap<(usize, u32), u32>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One cache per context, kept for the life of the process: a loaded module must outlive
/// every kernel still queued on a stream and every CUDA graph that captured one of its
/// functions, which the host cannot know about without synchronising.
static REGISTRY: Mutex<Vec<Arc<ModuleCache>>> = Mutex::new(Vec::new());

impl ModuleCache {
    /// The cache for `ctx`, created on first use; one per live context.
    pub(crate) fn for_context(ctx: &Arc<CudaContext>) -> Arc<ModuleCache> {
        let mut reg = lock(&REGISTRY);
        if let Some(c) = reg.iter().find(|c| *c.ctx == **ctx) {
            return c.clone();
        }
        let c = Arc::new(ModuleCache {
            ctx: ctx.clone(),
            modules: Mutex::new(HashMap::new()),
            funcs: Mutex::new(HashMap::new()),
            clusters: Mutex::new(HashMap::new()),
        });
        reg.push(c.clone());
        c
    }

    fn module(&self, name: &'static str, kernel: &str) -> Result<Arc<LoadedModule>, Error> {
        let mut mods = lock(&self.modules);
        if let Some(m) = mods.get(name) {
            return Ok(m.clone());
        }
        let load_err = |reason: String| Error::KernelLoad {
            module: name,
            kernel: kernel.to_string(),
            reason,
        };
        self.ctx
            .bind_to_thread()
            .map_err(|e| load_err(driver_msg(e)))?;
        let cc = self
            .ctx
            .compute_capability()
            .map_err(|e| load_err(driver_msg(e)))?;
        let image = module_image(name, cc).map_err(load_err)?;
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
                let c_text = CString::new(text)
                    .map_err(|_| load_err("PTX text contains a NUL byte".into()))?;
                // # Safety
                // - `c_text` is a NUL-terminated string that outlives the call; the
                //   driver parses it as a PTX image and rejects malformed text with an
                //   error code (it never reads past the terminator).
                // - The context is bound to this thread (above).
                unsafe { result::module::load_data(c_text.as_ptr() as *const c_void) }
            }
        }
        .map_err(|e| load_err(driver_msg(e)))?;
        let m = Arc::new(LoadedModule {
            raw,
            ctx: self.ctx.clone(),
        });
        mods.insert(name, m.clone());
        Ok(m)
    }

    /// Loads (once) and returns the entry point `kernel` of `cfg.module`,
    /// raising its dynamic shared-memory limit when `cfg.smem_bytes > 48 KiB`.
    pub(crate) fn function(&self, cfg: &KernelConfig, kernel: &str) -> Result<Func, Error> {
        if let Some(f) = lock(&self.funcs).get(kernel) {
            return Ok(f.clone());
        }
        let module = self.module(cfg.module, kernel)?;
        let load_err = |reason: String| Error::KernelLoad {
            module: cfg.module,
            kernel: kernel.to_string(),
            reason,
        };
        let c_name = CString::new(kernel).map_err(|_| load_err("name contains NUL".into()))?;
        self.ctx
            .bind_to_thread()
            .map_err(|e| load_err(driver_msg(e)))?;
        // # Safety
        // - `module.raw` is a live module of the bound context (kept alive by
        //   `module`); `c_name` is a valid C string.
        let raw = unsafe { result::module::get_function(module.raw, c_name) }
            .map_err(|e| load_err(driver_msg(e)))?;
        if cfg.smem_bytes > 48 * 1024 {
            let bytes =
                i32::try_from(cfg.smem_bytes).map_err(|_| load_err("smem too large".into()))?;
            // # Safety
            // - `raw` is a function handle just obtained from a live module.
            unsafe {
                result::function::set_function_attribute(
                    raw,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes,
                )
            }
            .map_err(|e| load_err(driver_msg(e)))?;
        }
        let f = Func {
            raw,
            _module: module,
        };
        lock(&self.funcs).insert(kernel.to_string(), f.clone());
        Ok(f)
    }

    /// How many clusters of `cluster` CTAs of `func` (launched with the block and dynamic
    /// shared memory of `cfg`) the device holds at once (`cuOccupancyMaxActiveClusters`; a
    /// cluster stays within one GPC). Asked once per function and cluster size.
    pub(crate) fn max_active_clusters(
        &self,
        stream: &CudaStream,
        func: &Func,
        cfg: &KernelConfig,
        cluster: u32,
    ) -> Result<u32, Error> {
        // Keyed by the function handle, which the cache keeps alive: no allocation per call.
        let key = (func.raw as usize, cluster);
        if let Some(n) = lock(&self.clusters).get(&key) {
            return Ok(*n);
        }
        let err = |e: result::DriverError| Error::Driver {
            during: "cluster occupancy query",
            reason: driver_msg(e),
        };
        stream.context().bind_to_thread().map_err(err)?;
        let mut attrs = [cluster_attr(cluster)];
        let config = launch_config(stream, (cluster.max(1), 1, 1), cfg, &mut attrs);
        let mut n: std::ffi::c_int = 0;
        // # Safety
        // - `config` and `attrs` live on this frame until the call returns; the driver
        //   reads them and writes only `n`.
        // - `func`'s module is alive (held by `func`) and its context is bound; the
        //   function's dynamic shared memory limit was raised when it was loaded.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, func.raw, &config) }
            .result()
            .map_err(err)?;
        let n = n.max(0) as u32;
        lock(&self.clusters).insert(key, n);
        Ok(n)
    }
}

/// What the driver loads for a module.
enum ModuleImage {
    Cubin(Vec<u8>),
    Ptx(Vec<u8>),
}

/// The image of `module` for a GPU of compute capability `cc`: for kernel development,
/// `$FERROCUTE_PTX_DIR/<module>.cubin`, else `<module>.ptx`, when that variable names a
/// folder holding one; else the embedded artifact that runs on the GPU (a cubin where there
/// is one, so no PTX JIT), decompressed.
fn module_image(module: &str, cc: (i32, i32)) -> Result<ModuleImage, String> {
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
    let artifacts = module_artifacts(module).ok_or_else(|| format!("no kernel module {module}"))?;
    let artifact = artifacts.for_device(cc).ok_or_else(|| {
        format!(
            "no cubin or PTX of {module} runs on compute capability {}.{}",
            cc.0, cc.1
        )
    })?;
    let bytes = ferrocute_kernels::decompress(artifact.zst)?;
    Ok(match artifact.target {
        ferrocute_kernels::Target::Cubin(_) => ModuleImage::Cubin(bytes),
        ferrocute_kernels::Target::Ptx(_) => ModuleImage::Ptx(bytes),
    })
}
