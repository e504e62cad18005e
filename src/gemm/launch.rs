//! The only module of `ferrocute::gemm` with `unsafe`: the kernel parameter
//! block, driver probing, module loading and the raw kernel launch.
//!
//! Everything reaching [`launch_params`] has been validated by
//! [`super::plan::plan`] (shapes, strides, buffer lengths, overlap, i32/i64
//! ranges) and mapped onto the kernel ABI of `src/kernels/gemm_params.h`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::{result, sys, CudaContext, CudaSlice, CudaStream, DeviceRepr};

use super::config::{stage_copy_entry, GridKind, KernelConfig, STAGE_COPY_KERNEL};
use super::error::Error;
use super::stage::Copy2D;

/// Mirror of `struct GemmParams` in `src/kernels/gemm_params.h` (by value).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct GemmParams {
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub d: u64,
    pub lda: i64,
    pub ldb: i64,
    pub ldc: i64,
    pub ldd: i64,
    pub batch_stride_a: i64,
    pub batch_stride_b: i64,
    pub batch_stride_c: i64,
    pub batch_stride_d: i64,
    pub m: i32,
    pub n: i32,
    pub k: i32,
    pub batch: i32,
    pub alpha: f32,
    pub beta: f32,
    pub workspace: u64,
    pub tail_tiles: i32,
    pub tail_splits: i32,
}

// The C struct: 4 pointers + 8 int64 + 4 int32 + 2 float + 1 pointer + 2 int32 = 136
// bytes, align 8.
const _: () = assert!(std::mem::size_of::<GemmParams>() == 136);
const _: () = assert!(std::mem::offset_of!(GemmParams, workspace) == 120);
const _: () = assert!(std::mem::align_of::<GemmParams>() == 8);
const _: () = assert!(std::mem::offset_of!(GemmParams, m) == 96);
const _: () = assert!(std::mem::offset_of!(GemmParams, alpha) == 112);

// # Safety
// - `GemmParams` is `#[repr(C)]`, `Copy`, has no padding and no references;
//   its field order, sizes and offsets match the C struct (checked above;
//   device pointers are 64-bit `u64` = `CUdeviceptr`).
unsafe impl DeviceRepr for GemmParams {}

fn driver_msg(e: result::DriverError) -> String {
    e.to_string()
}

/// Whether the CUDA driver library can be loaded (no panic if not).
pub(crate) fn driver_present() -> bool {
    // # Safety
    // - `is_culib_present` only tries `dlopen` on the candidate library names
    //   and drops the handles; it touches no CUDA state.
    unsafe { sys::is_culib_present() }
}

/// Opens device `ordinal` (primary context) and a new non-default stream.
pub(crate) fn open_stream(ordinal: usize) -> Result<Arc<CudaStream>, Error> {
    if !driver_present() {
        return Err(Error::NoDevice {
            reason: "CUDA driver library (libcuda) not found".into(),
        });
    }
    let ctx = CudaContext::new(ordinal).map_err(|e| Error::NoDevice {
        reason: format!("device {ordinal}: {e}"),
    })?;
    ctx.new_stream().map_err(|e| Error::Driver {
        during: "stream creation",
        reason: driver_msg(e),
    })
}

/// Number of CUDA devices (0 with no driver).
pub(crate) fn device_count() -> Result<usize, Error> {
    if !driver_present() {
        return Err(Error::NoDevice {
            reason: "CUDA driver library (libcuda) not found".into(),
        });
    }
    result::init().map_err(|e| Error::NoDevice {
        reason: driver_msg(e),
    })?;
    let n = CudaContext::device_count().map_err(|e| Error::NoDevice {
        reason: driver_msg(e),
    })?;
    Ok(n.max(0) as usize)
}

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
    raw: sys::CUfunction,
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
        // Kernel development: `$FERROCUTE_PTX_DIR` replaces the embedded modules.
        let dev_dir = std::env::var_os("FERROCUTE_PTX_DIR").map(PathBuf::from);
        let cubin: Option<Cow<[u8]>> = match &dev_dir {
            Some(dir) => dev_cubin(dir, name).map_err(load_err)?.map(Cow::Owned),
            None => super::config::embedded_cubin(name)
                .filter(|(bytes, arch)| *arch == cc && !bytes.is_empty())
                .map(|(bytes, _)| Cow::Borrowed(bytes)),
        };
        let raw = if let Some(bytes) = cubin {
            // An 8-byte aligned copy: the driver reads the ELF image in place.
            let mut image = vec![0u64; bytes.len().div_ceil(8)];
            // # Safety
            // - `image` has at least `bytes.len()` bytes of storage and does not overlap
            //   `bytes`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    image.as_mut_ptr() as *mut u8,
                    bytes.len(),
                )
            };
            // # Safety
            // - `image` holds a cubin (ELF) and outlives the call: the embedded one, built by
            //   ptxas for exactly this GPU's architecture, or a developer's file from
            //   `FERROCUTE_PTX_DIR`; the driver validates the image and returns an error for
            //   anything malformed or built for another GPU.
            // - The context is bound to this thread (above).
            unsafe { result::module::load_data(image.as_ptr() as *const c_void) }
        } else {
            let text = module_text(dev_dir.as_deref(), name).map_err(load_err)?;
            let c_text =
                CString::new(text).map_err(|_| load_err("PTX text contains a NUL byte".into()))?;
            // # Safety
            // - `c_text` is a NUL-terminated string that outlives the call; the
            //   driver parses it as a PTX image and rejects malformed text with an
            //   error code (it never reads past the terminator).
            // - The context is bound to this thread (above).
            unsafe { result::module::load_data(c_text.as_ptr() as *const c_void) }
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

/// The launch attribute for clusters of `(cluster, 1, 1)` blocks.
fn cluster_attr(cluster: u32) -> sys::CUlaunchAttribute {
    sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value: sys::CUlaunchAttributeValue {
            clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
                x: cluster.max(1),
                y: 1,
                z: 1,
            },
        },
    }
}

/// `cuLaunchKernelEx`'s configuration for `grid` with the block size and dynamic shared
/// memory of `cfg` on `stream`; it points into `attrs`, which must outlive its use.
fn launch_config(
    stream: &CudaStream,
    grid: (u32, u32, u32),
    cfg: &KernelConfig,
    attrs: &mut [sys::CUlaunchAttribute],
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: grid.0,
        gridDimY: grid.1,
        gridDimZ: grid.2,
        blockDimX: cfg.threads,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: cfg.smem_bytes,
        hStream: stream.cu_stream(),
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as u32,
    }
}

/// A developer's cubin for a module, `<dir>/<module>.cubin`, when that file exists
/// (ptxas's code rather than the driver's JIT of `<module>.ptx`).
fn dev_cubin(dir: &Path, module: &str) -> Result<Option<Vec<u8>>, String> {
    let path = dir.join(format!("{module}.cubin"));
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// PTX text for a module: `<dev_dir>/<module>.ptx` when a development folder is given,
/// else the embedded file.
fn module_text(dev_dir: Option<&Path>, module: &str) -> Result<String, String> {
    if let Some(dir) = dev_dir {
        let path = dir.join(format!("{module}.ptx"));
        return std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()));
    }
    super::config::embedded_ptx(module)
        .map(str::to_string)
        .ok_or_else(|| format!("no embedded PTX module named {module}"))
}

/// Enqueues `func(args...)` on `stream` without synchronising the host, with the block
/// size and dynamic shared memory of `cfg`, in clusters of `(cluster, 1, 1)` blocks when
/// `cluster > 1`; [`GridKind::SplitK`] and [`GridKind::Skinny`] kernels go as programmatic
/// dependent launches.
///
/// # Safety
/// - `args` holds one pointer per parameter of `func`'s C signature, each pointing at a
///   value of that parameter's type that lives until this returns (the driver copies
///   parameters at launch).
/// - Every address the kernel derives from those values lies inside buffers that stay
///   alive until the kernel completes.
unsafe fn enqueue(
    stream: &CudaStream,
    func: &Func,
    kernel: &str,
    grid: (u32, u32, u32),
    cluster: u32,
    cfg: &KernelConfig,
    args: &mut [*mut c_void],
) -> Result<(), Error> {
    let launch_err = |e: result::DriverError| Error::Launch {
        kernel: kernel.to_string(),
        reason: driver_msg(e),
    };
    stream.context().bind_to_thread().map_err(launch_err)?;
    // Not the persistent tiles: as programmatic launches they ran 2-27% slower (NOTES.md).
    let pdl = matches!(cfg.grid, GridKind::SplitK | GridKind::Skinny);
    if !pdl && cluster <= 1 {
        // # Safety
        // - The arguments are the caller's promise (above).
        // - `func`'s module is alive (held by `func`) and its context is bound; grid, block
        //   and dynamic shared memory come from the kernel table and were range-checked,
        //   and a dynamic shared memory above 48 KiB was enabled when the function was
        //   loaded.
        return unsafe {
            result::launch_kernel(
                func.raw,
                grid,
                (cfg.threads, 1, 1),
                cfg.smem_bytes,
                stream.cu_stream(),
                args,
            )
        }
        .map_err(launch_err);
    }
    // The cluster dimension, then (split-K and skinny kernels) programmatic stream
    // serialization.
    let mut attrs = [
        cluster_attr(cluster),
        sys::CUlaunchAttribute {
            id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
            pad: [0; 4],
            value: sys::CUlaunchAttributeValue {
                programmaticStreamSerializationAllowed: 1,
            },
        },
    ];
    let used = if pdl { 2 } else { 1 };
    let config = launch_config(stream, grid, cfg, &mut attrs[..used]);
    // # Safety
    // - As above; in addition `config` and `attrs` live on this frame until the call
    //   returns, and `grid.0` is a multiple of `cluster` (the split-K grid is
    //   `(splits, tiles, batch)` with `cluster = splits <= 8`, the portable limit; a
    //   clustered persistent grid is `cluster_m` times a CTA-pair count).
    // - Programmatic stream serialization lets the kernel start before the previous one in
    //   the stream has finished: the split-K and skinny kernels execute
    //   `griddepcontrol.wait` before their first global memory access
    //   (src/kernels/sm90_splitk.cuh, sm90_skinny.cuh; both modules are sm_90 code).
    unsafe { sys::cuLaunchKernelEx(&config, func.raw, args.as_mut_ptr(), std::ptr::null_mut()) }
        .result()
        .map_err(launch_err)
}

/// Enqueues `func(params)` on `stream` without synchronising the host.
///
/// The caller (`Gemm::gemm`) must have validated `params` with
/// `plan::plan`, and must hold the `SyncOnDrop` guards of the three buffers
/// until this returns so the buffers' read/write events are recorded after
/// the launch.
pub(crate) fn launch_params(
    stream: &CudaStream,
    func: &Func,
    kernel: &str,
    grid: (u32, u32, u32),
    cfg: &KernelConfig,
    params: &GemmParams,
) -> Result<(), Error> {
    let mut p = *params;
    let mut args = [&mut p as *mut GemmParams as *mut c_void];
    // # Safety
    // - `func` is an entry point whose C signature is `(GemmParams)` by value
    //   (naming convention `ferrocute_<cfg>_<am><bm>_<in>_<out>` fixes the
    //   element types, which the caller derived from the Rust types of the
    //   buffers); `args` holds one pointer to a `GemmParams` on this frame.
    // - Every address and extent in `params` was checked by `plan::plan`:
    //   A, B and C/D cover `(batch-1)*stride + (outer-1)*ld + inner` elements
    //   inside their views, C/D does not overlap A or B, all values fit the
    //   kernel's int32/int64 fields, and the buffers are borrowed (and, via
    //   cudarc's events, kept alive) until the kernel completes.
    unsafe { enqueue(stream, func, kernel, grid, 1, cfg, &mut args) }
}

/// Enqueues a TMA kernel `func(params, tma_a, tma_b)`, or `func(params, tma_a, tma_b, tma_d)`
/// when `tma_d` is given, on `stream`.
///
/// Same contract as [`launch_params`]; the tensor maps come from [`tensor_map`] over the
/// very operands `params` describes (a zeroed `tma_d` where the kernel does not store D by
/// TMA).
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch_tma(
    stream: &CudaStream,
    func: &Func,
    kernel: &str,
    grid: (u32, u32, u32),
    cluster: u32,
    cfg: &KernelConfig,
    params: &GemmParams,
    tma_a: &sys::CUtensorMap,
    tma_b: &sys::CUtensorMap,
    tma_d: Option<&sys::CUtensorMap>,
) -> Result<(), Error> {
    let mut p = *params;
    let mut a = *tma_a;
    let mut b = *tma_b;
    let mut d = tma_d.copied().unwrap_or_else(zeroed_tensor_map);
    let mut args = [
        &mut p as *mut GemmParams as *mut c_void,
        &mut a as *mut sys::CUtensorMap as *mut c_void,
        &mut b as *mut sys::CUtensorMap as *mut c_void,
        &mut d as *mut sys::CUtensorMap as *mut c_void,
    ];
    let count = if tma_d.is_some() { 4 } else { 3 };
    // # Safety
    // - `func` is an sm_90a entry point whose C signature is `(GemmParams, const
    //   __grid_constant__ CUtensorMap x 2)` (sm90_splitk.cuh), or with a third map for D
    //   when `tma_d` is given (sm90_gemm.cuh); `args[..count]` points at values of those
    //   types on this frame.
    // - The tensor maps were encoded over the same base pointers, extents and strides as
    //   `params`, all checked by `plan::plan` to lie inside the borrowed buffers; TMA
    //   zero-fills reads past the extents, and clips stores at them (exactly: the kernel
    //   stores D by TMA only where M % 8 == 0); the kernel predicates every other store and
    //   reads `tma_d` only where the caller encoded it (the conditions in sm90_gemm.cuh).
    unsafe { enqueue(stream, func, kernel, grid, cluster, cfg, &mut args[..count]) }
}

/// A tensor map that no kernel reads (passed where a kernel does not store D by TMA).
pub(crate) fn zeroed_tensor_map() -> sys::CUtensorMap {
    // # Safety
    // - `CUtensorMap` is an array of integers, for which all-zero bytes are a valid value.
    unsafe { std::mem::zeroed() }
}

/// One operand's TMA view, as `sm90_gemm.cuh` expects it: dims `{contiguous, outer, L}`,
/// byte strides `{ld, batch}`, a box of `{64, box_outer, 1}` elements, 128-byte swizzle
/// (D's boxes are `{64, 64, 1}`).
pub(crate) struct TmaOperand {
    pub dtype: sys::CUtensorMapDataType,
    pub ptr: u64,
    pub contiguous: u64,
    pub outer: u64,
    pub batch: u64,
    pub ld: u64,
    pub batch_stride: u64,
    pub box_outer: u32,
}

/// Encodes the rank-3 tensor map of one operand (see [`TmaOperand`]).
pub(crate) fn tensor_map(op: &TmaOperand) -> Result<sys::CUtensorMap, Error> {
    let err = |reason: String| Error::Driver {
        during: "cuTensorMapEncodeTiled",
        reason,
    };
    // The TMA kernels take 16-bit elements only (`InputElem` is bf16 or f16).
    const ELEM: u64 = 2;
    if op.batch > 1 && op.batch_stride == 0 {
        return Err(err("several batches need a non-zero batch stride".into()));
    }
    // A single batch still needs a legal, 16-byte multiple stride.
    let batch_stride = if op.batch <= 1 {
        op.ld * op.outer
    } else {
        op.batch_stride
    };
    if op.ptr % 16 != 0 || (op.ld * ELEM) % 16 != 0 || (batch_stride * ELEM) % 16 != 0 {
        return Err(err("TMA needs 16-byte aligned bases and strides".into()));
    }
    let dims = [op.contiguous, op.outer, op.batch.max(1)];
    let strides = [op.ld * ELEM, batch_stride * ELEM];
    let boxes = [64u32, op.box_outer, 1];
    let elem_strides = [1u32; 3];
    let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
    // # Safety
    // - The arrays have `rank` (3) or `rank - 1` entries, as the API requires, and outlive
    //   the call; `map` is writable storage for one CUtensorMap.
    // - The driver only encodes a descriptor here; it does not dereference `ptr`.
    let r = unsafe {
        sys::cuTensorMapEncodeTiled(
            map.as_mut_ptr(),
            op.dtype,
            3,
            op.ptr as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            elem_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    r.result().map_err(|e| err(driver_msg(e)))?;
    // # Safety
    // - `cuTensorMapEncodeTiled` succeeded, so it initialised `map` (zeroed before anyway).
    Ok(unsafe { map.assume_init() })
}

/// The workspace in `slot`, first (re)allocated on `stream` when it holds fewer than
/// `bytes` bytes: rounded up to 2 MiB so that slowly growing problems do not reallocate
/// every call. A replaced buffer is freed in stream order, after the work that used it.
pub(crate) fn workspace<'a>(
    stream: &Arc<CudaStream>,
    slot: &'a mut Option<CudaSlice<u8>>,
    bytes: u64,
) -> Result<&'a mut CudaSlice<u8>, Error> {
    if slot.as_ref().is_none_or(|w| (w.len() as u64) < bytes) {
        let len = bytes.div_ceil(2 << 20) * (2 << 20);
        let len = usize::try_from(len).map_err(|_| Error::Overflow {
            what: "workspace bytes",
            value: len,
            limit: usize::MAX as u64,
        })?;
        *slot = None;
        *slot = Some(stream.alloc_zeros::<u8>(len).map_err(|e| Error::Driver {
            during: "workspace allocation",
            reason: driver_msg(e),
        })?);
    }
    slot.as_mut().ok_or(Error::Driver {
        during: "workspace allocation",
        reason: "no buffer".into(),
    })
}

/// Mirror of `struct StageCopyParams` in `src/kernels/stage_copy.cuh` (by value; lengths
/// in elements).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct StageCopyParams {
    src: u64,
    dst: u64,
    src_ld: i64,
    dst_ld: i64,
    width: i64,
    height: i64,
    src_step: i64,
    dst_step: i64,
}

// 2 pointers + 6 int64, no padding.
const _: () = assert!(std::mem::size_of::<StageCopyParams>() == 64);
const _: () = assert!(std::mem::offset_of!(StageCopyParams, width) == 32);

/// Enqueues a staging copy (`c.count` copies as one grid of [`STAGE_COPY_KERNEL`], whose
/// entry point for `c.elem_bytes` is `func`), in at most `8 * sm_count` blocks per copy.
pub(crate) fn stage_copy(
    stream: &CudaStream,
    func: &Func,
    c: &Copy2D,
    sm_count: u32,
) -> Result<(), Error> {
    let eb = c.elem_bytes.max(1);
    let pieces = (c.width / eb).div_ceil(16 / eb) * c.height;
    let blocks = pieces.div_ceil(256).clamp(1, 8 * sm_count.max(1) as u64) as u32;
    let mut p = StageCopyParams {
        src: c.src,
        dst: c.dst,
        src_ld: (c.src_pitch / eb) as i64,
        dst_ld: (c.dst_pitch / eb) as i64,
        width: (c.width / eb) as i64,
        height: c.height as i64,
        src_step: (c.src_step / eb) as i64,
        dst_step: (c.dst_step / eb) as i64,
    };
    let mut args = [&mut p as *mut StageCopyParams as *mut c_void];
    // # Safety
    // - `func` is `ferrocute_stage_copy_b16` or `_b32` for `c.elem_bytes`, whose C
    //   signature is `(StageCopyParams)` by value; `args` holds one pointer to a
    //   `StageCopyParams` on this frame.
    // - Row r < `height` of copy y < `count` moves elements [0, width) from
    //   `src + y * src_step + r * src_ld` to `dst + y * dst_step + r * dst_ld`, and
    //   nothing past them. On the caller's side (the source of A's and B's copies, the
    //   destination of D's) those are the operand's own elements (with batches a whole
    //   number of rows apart, also the rows between them), all between its first and last
    //   element: a span `plan::plan` checked against the caller's buffer, which stays
    //   borrowed (its guard alive) until every kernel using it is enqueued on this stream.
    //   On the workspace side `stage::stage` laid the copies out within
    //   `workspace_bytes` (`ld * height * count` elements each, from its offset), and
    //   `workspace` allocated at least that.
    unsafe {
        enqueue(
            stream,
            func,
            stage_copy_entry(c.elem_bytes),
            (blocks, c.count as u32, 1),
            1,
            &STAGE_COPY_KERNEL,
            &mut args,
        )
    }
}
