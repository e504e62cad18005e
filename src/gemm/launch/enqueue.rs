//! Enqueueing kernels: launch configuration (clusters, programmatic launches), the
//! parameter blocks by value, the handle's workspaces, and the repacking copies.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaSlice, CudaStream};
use ferrocute_kernels::abi::{GemmParams, RepackParams};

use super::module::Func;
use super::tma::zeroed_tensor_map;
use crate::gemm::error::Error;
use crate::gemm::registry::{repack_entry, GridKind, KernelConfig, REPACK_KERNEL};
use crate::gemm::repack::Copy2D;

/// The launch attribute for clusters of `(cluster, 1, 1)` blocks.
pub(super) fn cluster_attr(cluster: u32) -> sys::CUlaunchAttribute {
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
pub(super) fn launch_config(
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
        code: Some(e.0),
        reason: e.to_string(),
    };
    stream.context().bind_to_thread().map_err(launch_err)?;
    // Not the persistent tiles: their CTAs hold every SM for the whole launch, so the next
    // grid cannot start early, and the attribute measured a cost (NOTES.md).
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
    //   split-K grid in clusters along M or N has `cluster_m * cluster_n` on x).
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

/// Whether `stream` is capturing a CUDA graph.
pub(crate) fn capturing(stream: &CudaStream) -> Result<bool, Error> {
    let status = stream
        .capture_status()
        .map_err(|e| Error::driver("stream capture query", e))?;
    Ok(status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
}

/// A workspace of a GEMM handle: the buffer its calls use, and the buffers it replaced,
/// kept for the handle's life because a CUDA graph captured before may still use them.
/// Each buffer is at least twice the one it replaced, so the kept ones add up to less than
/// the one in use.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    current: Option<CudaSlice<u8>>,
    replaced: Vec<CudaSlice<u8>>,
}

/// The buffer of `slot` (holding `what`), first replaced by one allocated on `stream` when
/// it holds fewer than `bytes` bytes: rounded up to 2 MiB, and at least twice the old one,
/// so that slowly growing problems do not reallocate every call. Not while `stream`
/// captures a graph: the graph would own the new buffer, valid only while it runs, which
/// later calls would use outside it ([`Error::WorkspaceInCapture`]).
pub(crate) fn workspace<'a>(
    stream: &Arc<CudaStream>,
    slot: &'a mut Workspace,
    bytes: u64,
    what: &'static str,
) -> Result<&'a mut CudaSlice<u8>, Error> {
    let held = slot.current.as_ref().map_or(0, |w| w.len() as u64);
    if slot.current.is_none() || held < bytes {
        if capturing(stream)? {
            return Err(Error::WorkspaceInCapture { what, bytes });
        }
        let len = (bytes.div_ceil(2 << 20) * (2 << 20)).max(held.saturating_mul(2));
        let len = usize::try_from(len).map_err(|_| Error::Overflow {
            what: "workspace bytes",
            value: len,
            limit: usize::MAX as u64,
        })?;
        let new = stream
            .alloc_zeros::<u8>(len)
            .map_err(|e| Error::driver("workspace allocation", e))?;
        slot.replaced.extend(slot.current.replace(new));
    }
    slot.current.as_mut().ok_or(Error::Driver {
        during: "workspace allocation",
        reason: "no buffer".into(),
        code: None,
    })
}

/// Enqueues a repacking copy (`c.count` copies as one grid of [`REPACK_KERNEL`], whose
/// entry point for `c.elem_bytes` is `func`), in at most `8 * sm_count` blocks per copy.
pub(crate) fn repack(
    stream: &CudaStream,
    func: &Func,
    c: &Copy2D,
    sm_count: u32,
) -> Result<(), Error> {
    let eb = c.elem_bytes.max(1);
    // A block moves 256 pieces of 16 bytes, or (transposed) 64 x 64 tiles.
    let work = if c.transpose {
        (c.width / eb).div_ceil(64) * c.height.div_ceil(64)
    } else {
        ((c.width / eb).div_ceil(16 / eb) * c.height).div_ceil(256)
    };
    let blocks = work.clamp(1, 8 * sm_count.max(1) as u64) as u32;
    let mut p = RepackParams {
        src: c.src,
        dst: c.dst,
        src_ld: (c.src_pitch / eb) as i64,
        dst_ld: (c.dst_pitch / eb) as i64,
        width: (c.width / eb) as i64,
        height: c.height as i64,
        src_step: (c.src_step / eb) as i64,
        dst_step: (c.dst_step / eb) as i64,
    };
    let mut args = [&mut p as *mut RepackParams as *mut c_void];
    // # Safety
    // - `func` is `ferrocute_repack_b16`, `_b32` or `ferrocute_transpose_b16` for
    //   `c.elem_bytes` and `c.transpose`, whose C signature is `(RepackParams)` by value;
    //   `args` holds one pointer to a `RepackParams` on this frame.
    // - Row r < `height` of copy y < `count` moves elements [0, width) from
    //   `src + y * src_step + r * src_ld` to `dst + y * dst_step + r * dst_ld` (transposed:
    //   element c to `dst + y * dst_step + c * dst_ld + r`), and nothing past them. On the
    //   caller's side (the source of A's and B's copies, the destination of D's) those are
    //   the operand's own elements (with batches a whole number of rows apart, also the
    //   rows between them), all between its first and last element: a span `plan::plan`
    //   checked against the caller's buffer, which stays borrowed (its guard alive) until
    //   every kernel using it is enqueued on this stream. On the workspace side
    //   `repack::repack` laid the copies out within `workspace_bytes` (`ld * height * count`
    //   elements each, transposed `ld * (width / elem_bytes) * count`, from its offset); a
    //   transposing copy (`repack::transposes_a`) has 2-byte elements only; and `workspace`
    //   allocated at least that.
    unsafe {
        enqueue(
            stream,
            func,
            repack_entry(c.elem_bytes, c.transpose),
            (blocks, c.count as u32, 1),
            1,
            &REPACK_KERNEL,
            &mut args,
        )
    }
}
