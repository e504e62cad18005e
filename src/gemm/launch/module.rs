//! Loading kernel modules (the embedded artifact that runs on the device, decompressed
//! once per context) and their functions, cached per context for the life of the process.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::{sys, CudaContext, CudaStream};

use super::enqueue::{cluster_attr, launch_config};
use crate::gemm::error::Error;
use crate::gemm::registry::{module_artifacts, KernelConfig};
pub(crate) use crate::runtime::load::Func;
use crate::runtime::load::{self, LoadedModule};

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
            .map_err(|e| load_err(e.to_string()))?;
        let cc = self
            .ctx
            .compute_capability()
            .map_err(|e| load_err(e.to_string()))?;
        let image = load::module_image(name, module_artifacts(name), cc).map_err(load_err)?;
        let m = Arc::new(load::load(&self.ctx, image).map_err(load_err)?);
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
        let f = load::function(&module, kernel, cfg.smem_bytes).map_err(load_err)?;
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
        let err = |e| Error::driver("cluster occupancy query", e);
        stream.context().bind_to_thread().map_err(err)?;
        let mut attrs = [cluster_attr(cluster)];
        let config = launch_config(stream, (cluster.max(1), 1, 1), cfg, &mut attrs);
        let mut n: c_int = 0;
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
