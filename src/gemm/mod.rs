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
//!   [`Error::CaptureWithEventTracking`]), once [`Gemm::prepare`] has sized the handle's
//!   workspaces for them ([`Error::WorkspaceInCapture`]).
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

mod call;
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

use cudarc::driver::CudaStream;

pub use dispatch::{Dispatch, Overrides};
pub use epilogue::{
    check_epilogue, interleave_gate_up, Activation, Along, Epilogue, EpilogueDesc, EpilogueVector,
    KernelEpilogue, ScaleAt, Vector, VectorDesc, VectorElem,
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
    /// use the same stream; buffers it outgrew kept for the graphs that may use them).
    workspace: Arc<Mutex<launch::Workspace>>,
    /// Arrival counters and partial sums of tiles split along K across CTAs (zeroed when
    /// allocated), shared like `workspace`. Every launch's counters lie in its first KiB
    /// and its partial sums after it (`geometry::SPLIT_COUNTER_BYTES`), and each launch
    /// leaves its counters zero, so they are zero for the next, graph replays included.
    partials: Arc<Mutex<launch::Workspace>>,
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
        let driver = |e| Error::driver("device query", e);
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
            workspace: Arc::new(Mutex::new(launch::Workspace::default())),
            partials: Arc::new(Mutex::new(launch::Workspace::default())),
        })
    }

    /// This handle with another [`Repacking`] policy for operands TMA cannot read in place
    /// or reads slowly ([`widened_rows`], [`transposes_a`]) (default [`Repacking::Auto`]).
    /// A call that repacks copies A and/or B into the handle's workspace on its stream
    /// before the GEMM (and D out of it to C after), allocating or growing the workspace
    /// when it is too small: [`Gemm::prepare`] such a call (or make it once) before
    /// capturing a CUDA graph of it.
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

    /// Enqueues `C = alpha * A * B + beta * C` (per batch entry) on the
    /// handle's stream and returns what was dispatched. `A` is `m x k`, `B`
    /// is `k x n`, `C` is `m x n`, each in any layout (use `.t()` for
    /// transposes). When `beta == 0`, C is not read (NaNs in C are overwritten).
    ///
    /// Errors: see [`Error`]; nothing is enqueued when an error is returned
    /// (except cudarc's stream-ordering waits on the buffers' events, and where operands
    /// are repacked: the copies into the handle's own workspace when the GEMM after them
    /// fails to launch, and the GEMM when the copy of D out of the workspace fails).
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
        self.run(alpha, a, b, beta, c, epilogue, call::Mode::Launch)
    }

    /// What [`Gemm::gemm_with`] does with the same arguments before it enqueues work: the
    /// checks and the dispatch (with their errors), the modules of the GEMM's kernel and of
    /// any repacking copy loaded, and the handle's workspaces grown to what the call needs
    /// (their allocation is the only work enqueued, beside cudarc's event waits and records
    /// where it tracks events). A call so prepared can be captured in a CUDA graph, where a
    /// workspace cannot grow ([`Error::WorkspaceInCapture`]). The workspaces serve every
    /// call of the handle and its clones; a buffer a workspace outgrows is kept while one
    /// of them lives, for the graphs captured with it, so keep a handle as long as its
    /// graphs may run, and prepare the largest call first to keep no outgrown buffer.
    /// C is not written.
    ///
    /// ```no_run
    /// # use ferrocute::gemm::{Epilogue, MatMut, MatRef};
    /// # fn f(gemm: &ferrocute::gemm::Gemm, a: &MatRef<'_, half::bf16>, b: &MatRef<'_, half::bf16>,
    /// #      c: &mut MatMut<'_, half::bf16>) -> Result<(), ferrocute::gemm::Error> {
    /// let ready = gemm.prepare(1.0, a, b, 0.0, c, &Epilogue::new())?;
    /// // ... begin capturing the stream: this call now runs `ready.kernel`.
    /// assert_eq!(gemm.gemm(1.0, a, b, 0.0, c)?.kernel, ready.kernel);
    /// # Ok(()) }
    /// ```
    pub fn prepare<TI: InputElem, TO: OutputElem>(
        &self,
        alpha: f32,
        a: &MatRef<'_, TI>,
        b: &MatRef<'_, TI>,
        beta: f32,
        c: &mut MatMut<'_, TO>,
        epilogue: &Epilogue<'_>,
    ) -> Result<Dispatch, Error> {
        self.run(alpha, a, b, beta, c, epilogue, call::Mode::Prepare)
    }
}
