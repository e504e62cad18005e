//! [`Module`]: a downstream crate's kernel module loaded in a context, and its
//! [`Function`]s.

use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaStream};
use ferrocute_kernels::ModuleArtifacts;

use super::load::{self, Func, LoadedModule};
use super::Error;

/// Modules loaded so far, by context and artifacts, kept for the life of the process: a
/// loaded module must outlive every kernel still queued on a stream and every CUDA graph
/// that captured one of its functions, which the host cannot know without synchronising.
type Loaded = (Arc<CudaContext>, usize, Arc<LoadedModule>);
static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());

/// A kernel module (the embedded artifacts a crate's build script produced with
/// `ferrocute_kernels::build::build_crate`) loaded in a stream's context, whose functions
/// are enqueued on that stream. Generated launchers hold one.
///
/// The module is loaded once per context and process (the cubin that runs on the GPU,
/// else the PTX, which the driver JIT-compiles), then shared by every `Module` of it.
#[derive(Debug, Clone)]
pub struct Module {
    name: &'static str,
    module: Arc<LoadedModule>,
    stream: Arc<CudaStream>,
}

/// An entry point of a [`Module`], for [`super::launch`].
#[derive(Debug, Clone)]
pub struct Function {
    pub(super) func: Func,
    pub(super) name: String,
    pub(super) smem_bytes: u32,
}

impl Module {
    /// Loads `artifacts` into `stream`'s context, unless it is loaded there already.
    /// `FERROCUTE_PTX_DIR/<module>.cubin` or `.ptx` replaces the embedded forms when that
    /// variable names a folder holding one (for kernel development).
    ///
    /// Errors: [`Error::KernelLoad`] when no form runs on the GPU or the driver refuses it.
    pub fn load(
        stream: Arc<CudaStream>,
        artifacts: &'static ModuleArtifacts,
    ) -> Result<Module, Error> {
        let name = artifacts.module;
        let load_err = |reason: String| Error::KernelLoad {
            module: name.to_string(),
            kernel: String::new(),
            reason,
        };
        let ctx = stream.context().clone();
        // The address tells two crates' modules of the same name apart.
        let key = artifacts as *const ModuleArtifacts as usize;
        let find = |loaded: &[Loaded]| {
            loaded
                .iter()
                .find(|(c, k, _)| **c == *ctx && *k == key)
                .map(|(_, _, m)| m.clone())
        };
        let cached = find(&LOADED.lock().unwrap_or_else(|p| p.into_inner()));
        let module = match cached {
            Some(m) => m,
            None => {
                // Loaded outside the lock: a PTX JIT takes seconds, and the other modules'
                // loads need not wait for it. Should another thread have loaded the same
                // module meanwhile, its copy is kept and this one dropped (unloaded).
                ctx.bind_to_thread().map_err(|e| load_err(e.to_string()))?;
                let cc = ctx
                    .compute_capability()
                    .map_err(|e| load_err(e.to_string()))?;
                let image = load::module_image(name, Some(artifacts), cc).map_err(load_err)?;
                let m = Arc::new(load::load(&ctx, image).map_err(load_err)?);
                let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
                match find(&loaded) {
                    Some(first) => first,
                    None => {
                        loaded.push((ctx, key, m.clone()));
                        m
                    }
                }
            }
        };
        Ok(Module {
            name,
            module,
            stream,
        })
    }

    /// The entry point `kernel`, launched with `smem_bytes` of dynamic shared memory at
    /// most (above 48 KiB the function's limit is raised; the driver refuses more than
    /// the device has).
    pub fn function(&self, kernel: &str, smem_bytes: u32) -> Result<Function, Error> {
        let func = load::function(&self.module, kernel, smem_bytes).map_err(|reason| {
            Error::KernelLoad {
                module: self.name.to_string(),
                kernel: kernel.to_string(),
                reason,
            }
        })?;
        Ok(Function {
            func,
            name: kernel.to_string(),
            smem_bytes,
        })
    }

    /// The stream launches are enqueued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The module's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl Function {
    /// The entry point's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
