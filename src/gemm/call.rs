//! A GEMM call after its arguments: the checks, the dispatch, the repacking of operands TMA
//! cannot read in place, the workspaces, and the launch ([`Gemm::gemm_with`]) or only what
//! precedes it ([`Gemm::prepare`]).

use cudarc::driver::{DevicePtr, DevicePtrMut, DeviceSlice};

use super::dispatch::{self, Dispatch};
use super::epilogue::{self, Epilogue, EpilogueDesc};
use super::error::{Error, Matrix};
use super::plan::{self, GemmDesc, OperandDesc};
use super::registry::{self, KernelConfig, LaunchPath};
use super::repack::{self, Copy2D, Repack};
use super::view::{InputElem, MatMut, MatRef, OutputElem};
use super::{geometry, launch, Gemm};

impl Gemm {
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

    /// [`Gemm::gemm_with`] or [`Gemm::prepare`], as `mode` says.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run<TI: InputElem, TO: OutputElem>(
        &self,
        alpha: f32,
        a: &MatRef<'_, TI>,
        b: &MatRef<'_, TI>,
        beta: f32,
        c: &mut MatMut<'_, TO>,
        epilogue: &Epilogue<'_>,
        mode: Mode,
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
        if ctx.is_managing_stream_synchronization() && launch::capturing(&self.stream)? {
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
        if let Some((st, repacked)) = self.repack_for::<TI, TO>(&d)? {
            // Kernel loads and workspace growth, which can fail, before the copies.
            let (mut repacked, func) = self.ready(repacked)?;
            let mut lock = self.workspace.lock().unwrap_or_else(|e| e.into_inner());
            let ws = launch::workspace(
                &self.stream,
                &mut lock,
                st.workspace_bytes,
                "repacked operands",
            )?;
            // The guard records the workspace's write event after the copies below.
            let (base, _gw) = ws.device_ptr_mut(&self.stream);
            let [copy_a, copy_b, copy_d] = st.copies(base);
            for c in [copy_a, copy_b].iter().flatten() {
                self.repack(c, mode)?;
            }
            // The repacked problem may run transposed (`dispatch_plan` chose so for the copy
            // placed at 0): place it at `base` the same way.
            let placed = st.apply(&d.plan, base);
            repacked.plan = if placed.d_n_major == repacked.plan.d_n_major {
                placed
            } else {
                placed.transposed()
            };
            let d = match (func, mode) {
                (Some(f), Mode::Launch) => {
                    self.enqueue::<TI, TO>(repacked, &f, alpha, beta, &epi)?
                }
                _ => repacked,
            };
            if let Some(c) = copy_d {
                self.repack(&c, mode)?;
            }
            return Ok(d);
        }
        match self.ready(d)? {
            (d, Some(f)) if mode.launch() => self.enqueue::<TI, TO>(d, &f, alpha, beta, &epi),
            (d, _) => Ok(d),
        }
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

    /// Enqueues one repacking copy, or with [`Mode::Prepare`] only loads its kernel.
    fn repack(&self, c: &Copy2D, mode: Mode) -> Result<(), Error> {
        let func = self.cache.function(
            &registry::REPACK_KERNEL,
            registry::repack_entry(c.elem_bytes, c.transpose),
        )?;
        match mode {
            Mode::Launch => launch::repack(&self.stream, &func, c, self.sm_count),
            Mode::Prepare => Ok(()),
        }
    }

    /// A dispatched problem made ready to launch, all that can fail before the launch done:
    /// its kernel loaded (`None` for an empty problem, which launches nothing), a split-K
    /// kernel's clusters fitted to the device, the partial sums' workspace grown.
    fn ready(&self, d: Dispatch) -> Result<(Dispatch, Option<launch::Func>), Error> {
        let Some(cfg) = d.config else {
            return Ok((d, None));
        };
        let func = self.cache.function(cfg, &d.kernel)?;
        let d = self.resident_clusters(d, cfg, &func)?;
        if let Some(bytes) = self.partial_bytes(&d) {
            let mut slot = self.partials.lock().unwrap_or_else(|e| e.into_inner());
            launch::workspace(&self.stream, &mut slot, bytes, "partial sums")?;
        }
        Ok((d, Some(func)))
    }

    /// The partial sums' workspace a launch needs: only tiles split along K take one (a
    /// split tail, stream-K, the register-streaming kernel's parts).
    fn partial_bytes(&self, d: &Dispatch) -> Option<u64> {
        let cfg = d.config?;
        (d.tail.splits > 0).then(|| geometry::tail_split_workspace_bytes(cfg, d.grid.0, d.tail))
    }

    /// Launches a problem made [`ready`](Gemm::ready) with its kernel `func` (its operands'
    /// guards held by the caller).
    fn enqueue<TI: InputElem, TO: OutputElem>(
        &self,
        d: Dispatch,
        func: &launch::Func,
        alpha: f32,
        beta: f32,
        epilogue: &EpilogueDesc,
    ) -> Result<Dispatch, Error> {
        let Some(cfg) = d.config else {
            return Ok(d);
        };
        let p = &d.plan;
        // The partial sums' workspace, grown by `ready`; its guard records the workspace's
        // use after the launch below.
        let mut partials = self.partial_bytes(&d).map(|bytes| {
            (
                bytes,
                self.partials.lock().unwrap_or_else(|e| e.into_inner()),
            )
        });
        let (workspace, _gw) = match partials.as_mut() {
            Some((bytes, slot)) => {
                let (ptr, guard) = launch::workspace(&self.stream, slot, *bytes, "partial sums")?
                    .device_ptr_mut(&self.stream);
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
                func,
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
            launch::launch_params(&self.stream, func, &d.kernel, d.grid, cfg, &params)?;
        }
        Ok(d)
    }
}

/// What a call does after its checks and dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Enqueue the work ([`Gemm::gemm_with`]).
    Launch,
    /// Only load the kernel and grow the workspaces ([`Gemm::prepare`]).
    Prepare,
}

impl Mode {
    fn launch(self) -> bool {
        self == Mode::Launch
    }
}
