//! GEMM on the GPU: `C = alpha * op(A) * op(B) + beta * C` with CuTe kernels
//! launched through `cudarc`.
//!
//! * Inputs `half::bf16` or `half::f16` (same type for A and B), f32
//!   accumulation, output `bf16`, `f16` or `f32`.
//! * Transposes are expressed through views: [`MatRef::t`] flips a view's
//!   layout for free, so `NN`, `NT`, `TN`, `TT` and row-/column-major C are
//!   all the same call.
//! * Strided batched GEMM via [`MatRef::batched`] / [`MatMut::batched`]
//!   (inputs with batch count 1 broadcast).
//! * Work is enqueued on the handle's stream; the host never synchronises,
//!   so calls can be captured in a CUDA graph (with cudarc's event tracking off:
//!   [`Error::CaptureWithEventTracking`]).
//! * Every failure is an [`Error`]; validation is the pure function [`plan`]
//!   (and [`dispatch::dispatch`]), usable without a GPU.
//! * Empty problems: `m == 0`, `n == 0` or batch 0 do nothing; `k == 0`
//!   computes `C = beta * C` (via the simple kernel).
//!
//! ```no_run
//! use ferrocute::gemm::{Gemm, Order, MatMut, MatRef};
//! use ferrocute::half::bf16;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let gemm = Gemm::open(0)?;
//! let s = gemm.stream().clone();
//! let (m, n, k) = (256, 128, 64);
//! let a = s.clone_htod(&vec![bf16::ONE; m * k])?;
//! let b = s.clone_htod(&vec![bf16::ONE; k * n])?;
//! let mut c = s.alloc_zeros::<f32>(m * n)?;
//! // A row-major m x k, B given as n x k row-major and transposed (the "TN" GEMM).
//! let av = MatRef::new(&a, m, k, Order::RowMajor);
//! let bv = MatRef::new(&b, n, k, Order::RowMajor).t();
//! gemm.gemm(1.0, &av, &bv, 0.0, &mut MatMut::new(&mut c, m, n, Order::ColMajor))?;
//! let host = s.clone_dtoh(&c)?;
//! assert_eq!(host[0], k as f32);
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod dispatch;
mod epilogue;
mod error;
pub mod geometry;
mod launch;
mod plan;
pub mod registry;
mod repack;
mod view;

use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceSlice};

pub use dispatch::{Dispatch, Overrides};
pub use epilogue::{
    check_epilogue, Activation, Along, Epilogue, EpilogueDesc, EpilogueVector, KernelEpilogue,
    ScaleAt, Vector, VectorDesc, VectorElem,
};
pub use error::{Error, Matrix};
pub use plan::{plan, plan_gated, GemmDesc, KernelOperand, OperandDesc, Plan};
pub use registry::{KernelConfig, LaunchPath};
pub use repack::{repack, transposes_a, widened_rows, Copy2D, Repack, RepackedOperand, Repacking};
pub use view::{InputElem, MatMut, MatRef, MatShape, Order, OutputElem};

/// Number of CUDA devices; [`Error::NoDevice`] when the driver library is
/// missing or fails to initialise (never panics).
///
/// ```
/// match ferrocute::gemm::device_count() {
///     Ok(n) => println!("{n} CUDA device(s)"),
///     Err(e) => println!("no GPU: {e}"),
/// }
/// ```
pub fn device_count() -> Result<usize, Error> {
    launch::device_count()
}

/// Opens device `ordinal` and creates a new (non-default, graph-capturable)
/// stream on its primary context.
///
/// ```no_run
/// let stream = ferrocute::gemm::open_stream(0)?;
/// # Ok::<(), ferrocute::gemm::Error>(())
/// ```
pub fn open_stream(ordinal: usize) -> Result<Arc<CudaStream>, Error> {
    launch::open_stream(ordinal)
}

/// A GEMM handle bound to one stream. Cheap to clone; kernels are loaded
/// lazily, once per CUDA context, and shared by all handles of the context.
///
/// Back-to-back calls: the small-M and split-K kernels are programmatic dependent
/// launches, so each can start while the kernel before it in the stream drains. cudarc's
/// event tracking (on by default once a context has a non-default stream) makes a call wait
/// on the last write event of each operand. When that write belongs to a call still running
/// that is not the one just before (the same C written every second call, say), the driver
/// has to keep that wait, and the launch loses its overlap: small-M calls that rotate fewer
/// than about six sets of buffers run measurably slower with tracking on, while event
/// records and waits on complete events or on the call just before cost little (measured:
/// see BENCHMARKS.md). The cost is C's wait on its write two calls earlier; an input
/// written by such a call should wait the same way. A program that uses its buffers on one
/// stream can also call `unsafe { ctx.disable_event_tracking() }` before allocating them.
///
/// ```no_run
/// use ferrocute::gemm::Gemm;
/// let stream = ferrocute::gemm::open_stream(0)?;
/// let gemm = Gemm::new(stream)?;
/// println!("sm_{}{}", gemm.compute_capability().0, gemm.compute_capability().1);
/// # Ok::<(), ferrocute::gemm::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Gemm {
    stream: Arc<CudaStream>,
    cache: Arc<launch::ModuleCache>,
    cc: (i32, i32),
    sm_count: u32,
    repacking: Repacking,
    /// Tuning overrides of the dispatch ([`Gemm::with_overrides`]; by default from the
    /// environment).
    overrides: Overrides,
    /// Repacked copies of misaligned operands (grown on demand, shared by clones, which
    /// use the same stream).
    workspace: Arc<Mutex<Option<CudaSlice<u8>>>>,
    /// Arrival counters and partial sums of tiles split along K across CTAs (zeroed when
    /// allocated), shared like `workspace`. Every launch's counters lie in its first KiB
    /// and its partial sums after it (`geometry::SPLIT_COUNTER_BYTES`), and each launch
    /// leaves its counters zero, so they are zero for the next, graph replays included.
    partials: Arc<Mutex<Option<CudaSlice<u8>>>>,
}

impl Gemm {
    /// Binds a handle to `stream`, reading the device's compute capability
    /// and multiprocessor count.
    ///
    /// ```no_run
    /// let gemm = ferrocute::gemm::Gemm::new(ferrocute::gemm::open_stream(0)?)?;
    /// # Ok::<(), ferrocute::gemm::Error>(())
    /// ```
    pub fn new(stream: Arc<CudaStream>) -> Result<Gemm, Error> {
        let ctx = stream.context();
        let driver = |e: cudarc::driver::DriverError| Error::Driver {
            during: "device query",
            reason: e.to_string(),
        };
        let cc = ctx.compute_capability().map_err(driver)?;
        let sm = ctx
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .map_err(driver)?;
        Ok(Gemm {
            cache: launch::ModuleCache::for_context(ctx),
            stream,
            cc,
            sm_count: sm.max(1) as u32,
            repacking: Repacking::default(),
            overrides: Overrides::from_env(),
            workspace: Arc::new(Mutex::new(None)),
            partials: Arc::new(Mutex::new(None)),
        })
    }

    /// This handle with another [`Repacking`] policy for operands TMA cannot read in place
    /// or reads slowly ([`widened_rows`], [`transposes_a`]) (default [`Repacking::Auto`]).
    /// A call that repacks copies A and/or B into the handle's workspace on its stream
    /// before the GEMM (and D out of it to C after), allocating or growing the workspace
    /// when it is too small: make such a call once before capturing a CUDA graph of them.
    ///
    /// ```no_run
    /// use ferrocute::gemm::{Gemm, Repacking};
    /// let gemm = Gemm::open(0)?.with_repacking(Repacking::Never);
    /// assert_eq!(gemm.repacking(), Repacking::Never);
    /// # Ok::<(), ferrocute::gemm::Error>(())
    /// ```
    pub fn with_repacking(mut self, repacking: Repacking) -> Gemm {
        self.repacking = repacking;
        self
    }

    /// The handle's [`Repacking`] policy.
    ///
    /// ```no_run
    /// # let gemm = ferrocute::gemm::Gemm::open(0)?;
    /// assert_eq!(gemm.repacking(), ferrocute::gemm::Repacking::Auto);
    /// # Ok::<(), ferrocute::gemm::Error>(())
    /// ```
    pub fn repacking(&self) -> Repacking {
        self.repacking
    }

    /// This handle with other dispatch [`Overrides`] (by default those the environment
    /// names when the handle is made, see [`Overrides::from_env`]).
    ///
    /// ```no_run
    /// use ferrocute::gemm::{Gemm, Overrides};
    /// let gemm = Gemm::open(0)?.with_overrides(Overrides { split_k: Some(2), ..Overrides::default() });
    /// assert_eq!(gemm.overrides().split_k, Some(2));
    /// # Ok::<(), ferrocute::gemm::Error>(())
    /// ```
    pub fn with_overrides(mut self, overrides: Overrides) -> Gemm {
        self.overrides = overrides;
        self
    }

    /// The handle's dispatch [`Overrides`].
    pub fn overrides(&self) -> Overrides {
        self.overrides
    }

    /// [`open_stream`] + [`Gemm::new`].
    ///
    /// ```no_run
    /// let gemm = ferrocute::gemm::Gemm::open(0)?;
    /// # Ok::<(), ferrocute::gemm::Error>(())
    /// ```
    pub fn open(ordinal: usize) -> Result<Gemm, Error> {
        Gemm::new(open_stream(ordinal)?)
    }

    /// The stream all work is enqueued on.
    ///
    /// ```no_run
    /// # let gemm = ferrocute::gemm::Gemm::open(0)?;
    /// gemm.stream().synchronize().ok();
    /// # Ok::<(), ferrocute::gemm::Error>(())
    /// ```
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The device's compute capability `(major, minor)`.
    ///
    /// ```no_run
    /// # let gemm = ferrocute::gemm::Gemm::open(0)?;
    /// assert!(gemm.compute_capability() >= (8, 0));
    /// # Ok::<(), ferrocute::gemm::Error>(())
    /// ```
    pub fn compute_capability(&self) -> (i32, i32) {
        self.cc
    }

    /// The device's multiprocessor count, which the dispatch weighs tiles against.
    ///
    /// ```no_run
    /// # let gemm = ferrocute::gemm::Gemm::open(0)?;
    /// assert!(gemm.sm_count() >= 1);
    /// # Ok::<(), ferrocute::gemm::Error>(())
    /// ```
    pub fn sm_count(&self) -> u32 {
        self.sm_count
    }

    /// Whether the handle's stream is capturing a CUDA graph.
    fn capturing(&self) -> Result<bool, Error> {
        let status = self.stream.capture_status().map_err(|e| Error::Driver {
            during: "stream capture query",
            reason: e.to_string(),
        })?;
        Ok(status != cudarc::driver::sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
    }

    /// `dispatch` counts clusters of 4 and 8 CTAs on 10/11 of the SMs (an H100's GPCs);
    /// here the driver's count for this device decides: the K split of a split-K kernel is
    /// halved while its grid has more clusters than can be resident at once (the rest
    /// would run as a second wave, at about half the speed). A forced split is kept.
    fn resident_clusters(
        &self,
        mut d: Dispatch,
        cfg: &'static KernelConfig,
        func: &launch::Func,
    ) -> Result<Dispatch, Error> {
        if cfg.grid != registry::GridKind::SplitK
            || cfg.cluster_m > 1
            || cfg.cluster_n > 1
            || self.overrides.split_k.is_some()
        {
            return Ok(d);
        }
        while d.cluster > 1 {
            let fit = self
                .cache
                .max_active_clusters(&self.stream, func, cfg, d.cluster)?;
            if u64::from(d.grid.1) * u64::from(d.grid.2) <= u64::from(fit) {
                break;
            }
            d.cluster /= 2;
            d.grid = geometry::grid_dims(
                cfg,
                d.plan.m,
                d.plan.n,
                d.plan.batch,
                self.sm_count,
                d.cluster,
            )?;
        }
        Ok(d)
    }

    /// Enqueues `C = alpha * A * B + beta * C` (per batch entry) on the
    /// handle's stream and returns what was dispatched. `A` is `m x k`, `B`
    /// is `k x n`, `C` is `m x n`, each in any layout (use `.t()` for
    /// transposes). When `beta == 0`, C is not read (NaNs in C are overwritten).
    ///
    /// Errors: see [`Error`]; nothing is enqueued when an error is returned
    /// (except cudarc's stream-ordering waits on the buffers' events, and repacking copies
    /// into the handle's own workspace when the GEMM after them fails to launch).
    ///
    /// Operands that TMA cannot read in place, or reads slowly, are repacked (see
    /// [`Gemm::with_repacking`]):
    /// the dispatch returned then describes the workspace copies (`plan`, `repacked`).
    ///
    /// ```no_run
    /// use ferrocute::gemm::{Gemm, Order, MatMut, MatRef};
    /// # fn f(gemm: &Gemm, a: &cudarc::driver::CudaSlice<half::f16>,
    /// #      b: &cudarc::driver::CudaSlice<half::f16>, c: &mut cudarc::driver::CudaSlice<half::f16>)
    /// #      -> Result<(), ferrocute::gemm::Error> {
    /// // Row-major everything (C = A B with A 64x32, B 32x16): computed as C^T = B^T A^T.
    /// let d = gemm.gemm(
    ///     1.0,
    ///     &MatRef::new(a, 64, 32, Order::RowMajor),
    ///     &MatRef::new(b, 32, 16, Order::RowMajor),
    ///     0.0,
    ///     &mut MatMut::new(c, 64, 16, Order::RowMajor),
    /// )?;
    /// println!("ran {}", d.kernel);
    /// # Ok(()) }
    /// ```
    pub fn gemm<TI: InputElem, TO: OutputElem>(
        &self,
        alpha: f32,
        a: &MatRef<'_, TI>,
        b: &MatRef<'_, TI>,
        beta: f32,
        c: &mut MatMut<'_, TO>,
    ) -> Result<Dispatch, Error> {
        self.gemm_with(alpha, a, b, beta, c, &Epilogue::new())
    }

    /// [`Gemm::gemm`] with a fused [`Epilogue`]: `C = act(alpha * A * B + beta * C + bias)`
    /// with optional scales, or SwiGLU over interleaved columns, where C then has half of
    /// B's columns ([`Activation::SwiGlu`]). Every kernel applies it at its stores, so the
    /// dispatch is [`Gemm::gemm`]'s. Errors as [`Gemm::gemm`]'s, and the epilogue's own
    /// ([`check_epilogue`], [`plan_gated`]).
    ///
    /// ```no_run
    /// use ferrocute::gemm::{Activation, Epilogue, MatMut, MatRef, Vector};
    /// # fn f(gemm: &ferrocute::gemm::Gemm, a: &MatRef<'_, half::bf16>, b: &MatRef<'_, half::bf16>,
    /// #      c: &mut MatMut<'_, half::bf16>, bias: &cudarc::driver::CudaSlice<f32>)
    /// #      -> Result<(), ferrocute::gemm::Error> {
    /// let epi = Epilogue::new().bias(Vector::cols(bias)).activation(Activation::Relu);
    /// gemm.gemm_with(1.0, a, b, 0.0, c, &epi)?;
    /// # Ok(()) }
    /// ```
    pub fn gemm_with<TI: InputElem, TO: OutputElem>(
        &self,
        alpha: f32,
        a: &MatRef<'_, TI>,
        b: &MatRef<'_, TI>,
        beta: f32,
        c: &mut MatMut<'_, TO>,
        epilogue: &Epilogue<'_>,
    ) -> Result<Dispatch, Error> {
        let ctx = self.stream.context();
        if **a.data.stream().context() != **ctx {
            return Err(Error::ContextMismatch { operand: Matrix::A });
        }
        if **b.data.stream().context() != **ctx {
            return Err(Error::ContextMismatch { operand: Matrix::B });
        }
        if **c.data.stream().context() != **ctx {
            return Err(Error::ContextMismatch { operand: Matrix::C });
        }
        epilogue.check_context(ctx)?;
        if ctx.is_managing_stream_synchronization() && self.capturing()? {
            return Err(Error::CaptureWithEventTracking);
        }
        let (a_len, b_len, c_len) = (a.data.len(), b.data.len(), c.data.len());
        // The guards record the buffers' read/write events on our stream when
        // dropped, i.e. after the launch below.
        let (pa, _ga) = a.data.device_ptr(&self.stream);
        let (pb, _gb) = b.data.device_ptr(&self.stream);
        let (pc, _gc) = c.data.device_ptr_mut(&self.stream);
        let (epi, _gv) = epilogue.describe(&self.stream);
        let desc = GemmDesc {
            a: OperandDesc {
                shape: a.shape,
                len: a_len,
                ptr: pa,
            },
            b: OperandDesc {
                shape: b.shape,
                len: b_len,
                ptr: pb,
            },
            c: OperandDesc {
                shape: c.shape,
                len: c_len,
                ptr: pc,
            },
            in_bytes: std::mem::size_of::<TI>(),
            out_bytes: std::mem::size_of::<TO>(),
        };
        let mut planned = if epi.activation.is_gated() {
            plan::plan_gated(&desc)?
        } else {
            plan::plan(&desc)?
        };
        planned.fused = epi != EpilogueDesc::default();
        epilogue::check_epilogue(
            &epi,
            a.shape.rows,
            b.shape.cols,
            beta,
            pc,
            c_len * std::mem::size_of::<TO>(),
        )?;
        let d = dispatch::dispatch_plan(
            planned,
            TI::NAME,
            TO::NAME,
            self.cc,
            self.sm_count,
            &self.overrides,
        )?;
        if let Some((st, mut repacked)) = self.repack_for::<TI, TO>(&d)? {
            let mut lock = self.workspace.lock().unwrap_or_else(|e| e.into_inner());
            let ws = launch::workspace(&self.stream, &mut lock, st.workspace_bytes)?;
            // The guard records the workspace's write event after the copies below.
            let (base, _gw) = ws.device_ptr_mut(&self.stream);
            let [copy_a, copy_b, copy_d] = st.copies(base);
            for c in [copy_a, copy_b].iter().flatten() {
                self.repack(c)?;
            }
            // The repacked problem may run transposed (`dispatch_plan` chose so for the copy
            // placed at 0): place it at `base` the same way.
            let placed = st.apply(&d.plan, base);
            repacked.plan = if placed.d_n_major == repacked.plan.d_n_major {
                placed
            } else {
                placed.transposed()
            };
            let d = self.enqueue::<TI, TO>(repacked, alpha, beta, &epi)?;
            if let Some(c) = copy_d {
                self.repack(&c)?;
            }
            return Ok(d);
        }
        self.enqueue::<TI, TO>(d, alpha, beta, &epi)
    }

    /// The repacking of a dispatched problem, and the dispatch of the repacked problem (its
    /// plan still to be placed in the workspace): only where the copies let a Hopper kernel
    /// run. D goes through the workspace only with A or B and on the persistent tiles,
    /// whose element-wise stores to such a C cost more than the copy; the split-K tiles
    /// store small Ds, where the copy's launch costs more than it saves (measured: see
    /// BENCHMARKS.md).
    fn repack_for<TI: InputElem, TO: OutputElem>(
        &self,
        d: &Dispatch,
    ) -> Result<Option<(Repack, Dispatch)>, Error> {
        // Repacking moves problems off the Ampere-class fallback; one a Hopper kernel already
        // reads in place (the register-streaming kernel takes rows on 8 bytes, at a third
        // of the bytes a repacked B costs) stays there, unless TMA reads its rows slowly.
        let slow_in_place = |p: &plan::Plan| repack::widened_rows(p) || repack::transposes_a(p);
        let in_place = d.config.filter(|c| c.min_arch >= (9, 0));
        if in_place.is_some_and(|c| !(c.path.tma() && slow_in_place(&d.plan))) {
            return Ok(None);
        }
        let Some(mut st) = repack::repack(&d.plan, self.repacking) else {
            return Ok(None);
        };
        // Neither the workspace's (256-byte aligned) base nor D plays a part in the choice,
        // so this dispatch serves once the plan is placed in the workspace.
        let dispatch_copy = |st: &Repack| {
            dispatch::dispatch_plan(
                st.apply(&d.plan, 0),
                TI::NAME,
                TO::NAME,
                self.cc,
                self.sm_count,
                &self.overrides,
            )
        };
        let mut repacked = dispatch_copy(&st)?;
        // A transposed A pays for its copy only where a small-M tile reads A, in place or
        // from the copy: the persistent tiles read either alike (measured: BENCHMARKS.md).
        // Without one, the in-place kernel runs where it can, else the copies TMA needs
        // keep A's majorness.
        let small_m = |c: &registry::KernelConfig| c.grid == registry::GridKind::SplitK;
        let transposes = st.operands[0].is_some_and(|a| a.copy.transpose);
        if transposes && !in_place.is_some_and(small_m) && !repacked.config.is_some_and(small_m) {
            let plain = in_place
                .is_none()
                .then(|| repack::repack_keeping_majors(&d.plan, self.repacking))
                .flatten();
            let Some(plain) = plain else {
                return Ok(None);
            };
            st = plain;
            repacked = dispatch_copy(&st)?;
        }
        let Some(cfg) = repacked.config.filter(|c| c.min_arch >= (9, 0)) else {
            return Ok(None);
        };
        // D alone is never repacked: without A or B the in-place kernel is kept.
        let Some(without_d) = st.without_d() else {
            return Ok(None);
        };
        // A gated D has half the columns of the copy the repacking would make of it.
        let st = if cfg.grid == registry::GridKind::Persistent && !d.plan.gated {
            st
        } else {
            without_d
        };
        repacked.repacked = st.repacked();
        if repacked.plan.d_n_major != d.plan.d_n_major {
            // Transposed: the kernel's A is the plan's B.
            repacked.repacked.swap(0, 1);
        }
        Ok(Some((st, repacked)))
    }

    /// Enqueues one repacking copy.
    fn repack(&self, c: &Copy2D) -> Result<(), Error> {
        let func = self.cache.function(
            &registry::REPACK_KERNEL,
            registry::repack_entry(c.elem_bytes, c.transpose),
        )?;
        launch::repack(&self.stream, &func, c, self.sm_count)
    }

    /// Launches a dispatched problem (its operands' guards held by the caller).
    fn enqueue<TI: InputElem, TO: OutputElem>(
        &self,
        d: Dispatch,
        alpha: f32,
        beta: f32,
        epilogue: &EpilogueDesc,
    ) -> Result<Dispatch, Error> {
        let Some(cfg) = d.config else {
            return Ok(d);
        };
        let func = self.cache.function(cfg, &d.kernel)?;
        let d = self.resident_clusters(d, cfg, &func)?;
        let p = &d.plan;
        // Only tiles split along K (a split tail, stream-K, the register-streaming kernel's
        // parts) take the partial sums' workspace; its guard records the workspace's use
        // after the launch below.
        let mut partials =
            (d.tail.splits > 0).then(|| self.partials.lock().unwrap_or_else(|e| e.into_inner()));
        let (workspace, _gw) = match partials.as_deref_mut() {
            Some(slot) => {
                let bytes = geometry::tail_split_workspace_bytes(cfg, d.grid.0, d.tail);
                let (ptr, guard) =
                    launch::workspace(&self.stream, slot, bytes)?.device_ptr_mut(&self.stream);
                (ptr, Some(guard))
            }
            None => (0, None),
        };
        // C's rows and columns are the kernel's M and N, or N and M: the plan as launched says.
        let e = epilogue.kernel(p);
        let params = launch::GemmParams {
            a: p.a.ptr,
            b: p.b.ptr,
            c: p.c.ptr,
            d: p.d.ptr,
            lda: p.a.ld,
            ldb: p.b.ld,
            ldc: p.c.ld,
            ldd: p.d.ld,
            batch_stride_a: p.a.batch_stride,
            batch_stride_b: p.b.batch_stride,
            batch_stride_c: p.c.batch_stride,
            batch_stride_d: p.d.batch_stride,
            m: p.m,
            n: p.n,
            k: p.k,
            batch: p.batch,
            alpha,
            beta,
            workspace,
            tail_tiles: d.tail.tiles as i32,
            // Stream-K as a negative split (gemm_params.h).
            tail_splits: if d.tail.stream {
                -1
            } else {
                d.tail.splits as i32
            },
            d_n_major: i32::from(p.d_n_major),
            act: e.act,
            bias: e.bias,
            scale: e.scale,
            bias_axis: e.bias_axis,
            bias_type: e.bias_type,
            scale_axis: e.scale_axis,
            scale_type: e.scale_type,
            scale_at: e.scale_at,
            gated: e.gated,
        };
        if cfg.path.tma() {
            let dtype = TI::TMA_DTYPE;
            let [bn, bk] = [cfg.tile_n as u64, cfg.tile_k as u64];
            // In a cluster of c along M (N) each CTA loads, and multicasts, 1/c of the B (A)
            // tile; a split-K tile wider than M loads only M's rows of A.
            let b_rows = bn / cfg.cluster_m.max(1) as u64;
            let a_rows = geometry::a_box_rows(cfg, p.m);
            let operand = |o: &plan::KernelOperand, dtype, dims: [u64; 2], boxes: [u64; 2]| {
                launch::TmaOperand {
                    dtype,
                    ptr: o.ptr,
                    contiguous: dims[0],
                    outer: dims[1],
                    batch: p.batch as u64,
                    ld: o.ld as u64,
                    batch_stride: o.batch_stride as u64,
                    box_contiguous: boxes[0] as u32,
                    box_outer: boxes[1] as u32,
                }
            };
            let view = |o: &plan::KernelOperand, rows: u64, tile_rows: u64| {
                if o.k_major {
                    operand(o, dtype, [p.k as u64, rows], [64, tile_rows])
                } else {
                    operand(o, dtype, [rows, p.k as u64], [64, bk])
                }
            };
            let ta = launch::tensor_map(&view(&p.a, p.m as u64, a_rows))?;
            let tb = launch::tensor_map(&view(&p.b, p.n as u64, b_rows))?;
            // D's map ({M, N, L}, boxes of 64 x 64) wherever the kernel may store D by TMA
            // (sm90_gemm.cuh: a 16-bit D with 16-byte aligned base and strides and its
            // contiguous extent a multiple of 8; beta == 0 the kernel checks itself); a map the
            // kernel never reads otherwise. A gated D has half the product's rows (pairs along
            // M) or columns (along N), in boxes of half a 64 x 64 box of the product. An
            // N-major D ({N, M, L}) goes by TMA on the plain epilogue only (not gated).
            let (m, n) = (p.m as u64, p.n as u64);
            let (d_dims, d_boxes) = match e.gated {
                _ if p.d_n_major => ([n, m], [64, 64]),
                2 => ([m / 2, n], [32, 64]),
                1 => ([m, n / 2], [64, 32]),
                _ => ([m, n], [64, 64]),
            };
            let td = (cfg.path == LaunchPath::TensorMapsAndD)
                .then(|| match TO::TMA_DTYPE {
                    Some(dtype)
                        if cfg.may_store_d_by_tma()
                            && (!p.d_n_major || cfg.n_major_d)
                            && p.d.fast_aligned(8, 8, p.batch > 1) =>
                    {
                        launch::tensor_map(&operand(&p.d, dtype, d_dims, d_boxes))
                    }
                    _ => Ok(launch::zeroed_tensor_map()),
                })
                .transpose()?;
            launch::launch_tma(
                &self.stream,
                &func,
                &d.kernel,
                d.grid,
                d.cluster,
                cfg,
                &params,
                &ta,
                &tb,
                td.as_ref(),
            )?;
        } else {
            launch::launch_params(&self.stream, &func, &d.kernel, d.grid, cfg, &params)?;
        }
        Ok(d)
    }
}
