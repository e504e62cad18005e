//! Dispatch: which kernel, grid and split a problem runs with, as a pure function of the
//! problem, the device (compute capability, SM count) and explicit [`Overrides`].

use super::error::Error;
use super::geometry::{
    grid_dims, persistent_k_blocks_with, split_k, tile_count, TailSplit, MAX_GRID_X, MAX_GRID_YZ,
};
use super::plan::{GemmDesc, Plan};
use super::registry::{
    all_kernels, kernel_name, runs_on, GridKind, KernelConfig, Weighed, FAST_KERNELS,
    PERSISTENT_KERNELS, SIMPLE_KERNEL, SKINNY_KERNELS, SMALL_M_KERNELS,
};

/// The entry of [`PERSISTENT_KERNELS`] that the weighing picks for `plan`, among those
/// `eligible`, when the smallest tile gives every SM one; `None` otherwise.
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::best_persistent;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let pick = |m: usize, n: usize, k: usize| {
///     let desc = GemmDesc { a: d(m, k, Order::RowMajor, 1 << 36), b: d(k, n, Order::ColMajor, 2 << 36),
///         c: d(m, n, Order::ColMajor, 3 << 36), in_bytes: 2, out_bytes: 2 };
///     best_persistent(&plan(&desc).unwrap(), |_| true, 132).map(|c| c.name)
/// };
/// // 3072³: 576 128x128 tiles are 5 per SM; 384 128x192 tiles are 3 (4.5 units).
/// assert_eq!(pick(3072, 3072, 3072), Some("sm90_128x192x64_s4_pp"));
/// // 2048³: 256 128x128 tiles are 2 per SM; 176 128x192 tiles are 2 (3 units).
/// assert_eq!(pick(2048, 2048, 2048), Some("sm90_128x128x64_s6_pp"));
/// // 4096³: 512 128x256 tiles are 4 per SM (8 units), cheaper per unit than 8 of 128x128.
/// assert_eq!(pick(4096, 4096, 4096), Some("sm90_128x256x64_s4_coop"));
/// // 64 tiles for 132 SMs: not this table's problem.
/// assert_eq!(pick(1024, 1024, 1024), None);
/// // 2^62 elements of C (described, never allocated): weighed without overflow.
/// let big = (1usize << 31) - 1;
/// assert_eq!(pick(big, big, 1), Some("sm90_128x192x64_s4_pp"));
/// ```
pub fn best_persistent(
    plan: &Plan,
    eligible: impl Fn(&KernelConfig) -> bool,
    sm_count: u32,
) -> Option<&'static KernelConfig> {
    best_persistent_with(plan, eligible, sm_count, None)
}

/// [`best_persistent`] with the tail split forced as [`Overrides::tail_split`] says.
fn best_persistent_with(
    plan: &Plan,
    eligible: impl Fn(&KernelConfig) -> bool,
    sm_count: u32,
    tail_split: Option<bool>,
) -> Option<&'static KernelConfig> {
    let sms = sm_count.max(1) as u64;
    let tiles = |c: &KernelConfig| tile_count(plan, c);
    let candidates = PERSISTENT_KERNELS
        .iter()
        .filter(|w| plan.k >= w.min_k && eligible(&w.config));
    // Only problems whose finest tile fills every SM: fewer tiles go to the small tiles.
    if candidates.clone().map(|w| tiles(&w.config)).max()? < sms {
        return None;
    }
    let time = |w: &Weighed| {
        let area = (w.config.tile_m * w.config.tile_n) as u64;
        // Saturating: a described (never allocated) problem may have 2^62 elements.
        persistent_k_blocks_with(plan, &w.config, sm_count, tail_split)
            .0
            .saturating_mul(area)
            .saturating_mul(w.cost)
    };
    let mut best: Option<&Weighed> = None;
    for w in candidates {
        if best.is_none_or(|b| time(w) < time(b)) {
            best = Some(w);
        }
    }
    best.map(|w| &w.config)
}

/// Picks the kernel for a validated plan on a device of compute capability
/// `cc` with `sm_count` multiprocessors.
///
/// Rules: fast kernels need `k > 0`, the architecture and the alignment. For `m <= 16` with
/// a K-major B, `k % 4 == 0` and at most [`SKINNY_MAX_B`] elements of B (any number
/// where rows start on 8 bytes only), a [`SKINNY_KERNELS`] entry wins (the 8-warp one when
/// its CTAs fill every SM, else the 16-warp one). For `m <= 128` the first eligible
/// [`SMALL_M_KERNELS`] entry whose tile holds all of M wins; when the preferred fast tile
/// would fill under half the SMs, the last eligible one. Where the Hopper tiles fill every
/// SM, [`best_persistent`] weighs [`PERSISTENT_KERNELS`]. Otherwise the first eligible
/// kernel's family (its PTX module: the TMA kernels on Hopper, the Ampere-class ones
/// elsewhere) is used; within it the first tile in table order that yields at least one
/// block per SM wins, else the one with the most blocks. Otherwise the simple kernel.
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::select;
/// use ferrocute::gemm::registry::SIMPLE_KERNEL;
/// let d = |r, c, ptr| OperandDesc { shape: MatShape::packed(r, c, Order::ColMajor), len: r * c, ptr };
/// // 7 rows: ld 7 is odd, so the Ampere-class tile that reads single elements is chosen.
/// let p = plan(&GemmDesc { a: d(7, 8, 0x1000), b: d(8, 8, 0x2000), c: d(7, 8, 0x3000),
///     in_bytes: 2, out_bytes: 4 }).unwrap();
/// assert_eq!(select(&p, (9, 0), 132).unwrap().name, "sm80_128x128x32_s3_v1");
/// // k = 0 (C = beta C): the simple kernel.
/// let p = plan(&GemmDesc { a: d(8, 0, 0x1000), b: d(0, 8, 0x2000), c: d(8, 8, 0x3000),
///     in_bytes: 2, out_bytes: 4 }).unwrap();
/// assert_eq!(select(&p, (9, 0), 132).unwrap().name, SIMPLE_KERNEL.name);
/// ```
pub fn select(plan: &Plan, cc: (i32, i32), sm_count: u32) -> Result<&'static KernelConfig, Error> {
    select_with(plan, cc, sm_count, &Overrides::default())
}

/// [`select`] under `ov`.
pub fn select_with(
    plan: &Plan,
    cc: (i32, i32),
    sm_count: u32,
    ov: &Overrides,
) -> Result<&'static KernelConfig, Error> {
    if plan.k > 0 {
        let eligible = |c: &&KernelConfig| {
            runs_on(c, cc)
                && plan.fast_aligned(c.align_elems, c.extent_align_elems)
                && (!c.path.tma() || tma_ok(plan))
                && (c.grid != GridKind::Skinny || skinny_ok(plan, c))
        };
        if let Some(cfg) = ov.kernel.filter(eligible) {
            return Ok(cfg);
        }
        let tiles = |c: &KernelConfig| tile_count(plan, c);
        let mut skinny = SKINNY_KERNELS.iter().filter(eligible);
        if let Some(first) = skinny.next() {
            return Ok(if tiles(first) >= sm_count as u64 {
                first
            } else {
                skinny.next_back().unwrap_or(first)
            });
        }
        let first = FAST_KERNELS.iter().find(eligible);
        // Small M, or under half a wave of the 128x128 tile: small tiles (and, for long K,
        // a K split) instead of idle SMs.
        let mut small_m = SMALL_M_KERNELS.iter().filter(eligible);
        let small = if plan.m <= 128 {
            small_m.find(|c| plan.m as u32 <= c.tile_m)
        } else {
            small_m.next_back()
        };
        if let Some(small) = small {
            let few_tiles = first.is_some_and(|big| 2 * tiles(big) <= sm_count as u64);
            // Its grid puts the tiles of one batch on y and the batches on z.
            let fits = tiles(small) / plan.batch.max(1) as u64 <= MAX_GRID_YZ
                && plan.batch as u64 <= MAX_GRID_YZ;
            if (plan.m <= 128 || few_tiles) && fits {
                return Ok(small);
            }
        }
        if let Some(cfg) = best_persistent_with(plan, |c| eligible(&c), sm_count, ov.tail_split) {
            return Ok(cfg);
        }
        // The best kernel family for this GPU (the table lists the fastest first), then
        // within it the first tile (largest first) that still gives every SM a block.
        if let Some(first) = first {
            let mut best: Option<(&'static KernelConfig, u64)> = None;
            for cfg in FAST_KERNELS
                .iter()
                .filter(eligible)
                .filter(|c| c.module == first.module)
            {
                let tiles = tiles(cfg);
                if tiles >= sm_count as u64 {
                    return Ok(cfg);
                }
                if best.is_none_or(|(_, t)| tiles > t) {
                    best = Some((cfg, tiles));
                }
            }
            if let Some((cfg, _)) = best {
                return Ok(cfg);
            }
        }
    }
    if runs_on(&SIMPLE_KERNEL, cc) {
        Ok(&SIMPLE_KERNEL)
    } else {
        Err(Error::UnsupportedArch {
            kernel: SIMPLE_KERNEL.name.to_string(),
            needed: SIMPLE_KERNEL.min_arch,
            found: cc,
        })
    }
}

/// The TMA kernels read every batch through one tensor map, so they need real (non-zero)
/// batch strides for A and B when there is more than one batch, and every byte stride of a
/// tensor map must stay below 2^40.
fn tma_ok(plan: &Plan) -> bool {
    const LIMIT: i64 = 1 << 40;
    let strides_ok = |o: &super::plan::KernelOperand| {
        let e = o.elem_bytes as i64;
        o.ld.saturating_mul(e) < LIMIT && o.batch_stride.saturating_mul(e) < LIMIT
    };
    (plan.batch <= 1 || (plan.a.batch_stride > 0 && plan.b.batch_stride > 0))
        && strides_ok(&plan.a)
        && strides_ok(&plan.b)
}

/// What the register-streaming small-M kernels take: `m` within one 16-row tile, a K-major
/// B (16- or 8-byte loads along K) and A of either majorness (the `align_elems` of 4 puts
/// an M-major A's k rows on 8 bytes), `k` a multiple of 4, the batches within `grid.z`,
/// and at most [`SKINNY_MAX_B`] elements of B where the split-K kernel could read B in
/// place (rows on 16 bytes); any size where it would need a repacked copy of B.
fn skinny_ok(plan: &Plan, c: &KernelConfig) -> bool {
    plan.m <= c.tile_m as i32
        && plan.b.k_major
        && plan.k % 4 == 0
        && plan.batch as u64 <= MAX_GRID_YZ
        && (plan.n as u64 * plan.k as u64 * plan.batch as u64 <= SKINNY_MAX_B
            || !plan.b.fast_aligned(8, 1, plan.batch > 1))
}

/// Elements of B (all batches) up to which [`SKINNY_KERNELS`] are used where B's rows start
/// on 16 bytes: 32 Mi (64 MiB of bf16); beyond it the split-K kernel reads B faster on an
/// H100 (measured: see BENCHMARKS.md, optimisation ledger). Rows on 8 bytes only would cost
/// the split-K kernel a repacked copy of B, so there the register-streaming kernel takes
/// any size.
pub const SKINNY_MAX_B: u64 = 1 << 25;

/// What [`dispatch`] decided for one problem.
///
/// ```
/// # use ferrocute::gemm::dispatch::Dispatch;
/// fn show(d: &Dispatch) -> String { format!("{:?} grid {:?}", d.kernel, d.grid) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// The validated, kernel-convention problem.
    pub plan: Plan,
    /// Chosen configuration; `None` for a no-op (m, n or batch 0).
    pub config: Option<&'static KernelConfig>,
    /// Entry point name; empty for a no-op.
    pub kernel: String,
    /// Grid dimensions (blocks).
    pub grid: (u32, u32, u32),
    /// CTAs per cluster along x (1: no cluster): the K splits of a [`GridKind::SplitK`]
    /// kernel, or [`KernelConfig::cluster_m`].
    pub cluster: u32,
    /// Whether the kernel's A and B (`plan.a`, `plan.b`: the caller's B and A when
    /// `plan.swapped`) were copied into the handle's workspace with aligned leading
    /// dimensions first, and whether D was written there and copied out to C
    /// ([`super::Repacking`]); `dispatch` itself never repacks.
    pub repacked: [bool; 3],
    /// How the last round's tiles are split along K
    /// ([`persistent_k_blocks`](super::geometry::persistent_k_blocks)); the default: not at
    /// all.
    pub tail: TailSplit,
}

/// Tuning overrides of the dispatcher, passed explicitly: the default overrides nothing.
/// [`Overrides::from_env`] reads them from `FERROCUTE_KERNEL`, `FERROCUTE_SPLIT_K` and
/// `FERROCUTE_TAIL_SPLIT`, as [`super::Gemm::open`] does once per handle.
///
/// ```
/// use ferrocute::gemm::dispatch::Overrides;
/// let o = Overrides::parse(Some("sm90_128x128x64_s6_pp"), Some("2"), Some("0"));
/// assert_eq!(o.kernel.map(|c| c.name), Some("sm90_128x128x64_s6_pp"));
/// assert_eq!((o.split_k, o.tail_split), (Some(2), Some(false)));
/// assert_eq!(Overrides::parse(Some("nope"), Some("3"), Some("x")), Overrides::default());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Use this kernel wherever it is eligible.
    pub kernel: Option<&'static KernelConfig>,
    /// The K split (1, 2, 4 or 8) of split-K kernels.
    pub split_k: Option<u32>,
    /// Never split a persistent kernel's last round (`false`), or always into the most
    /// parts (`true`).
    pub tail_split: Option<bool>,
}

impl Overrides {
    /// The overrides the three variables name; values that name nothing are ignored.
    pub fn from_env() -> Overrides {
        let var = |k| std::env::var(k).ok();
        Overrides::parse(
            var("FERROCUTE_KERNEL").as_deref(),
            var("FERROCUTE_SPLIT_K").as_deref(),
            var("FERROCUTE_TAIL_SPLIT").as_deref(),
        )
    }

    /// Overrides from the variables' texts: a kernel name from the tables, a split of 1, 2,
    /// 4 or 8, and `0` or `1`.
    pub fn parse(
        kernel: Option<&str>,
        split_k: Option<&str>,
        tail_split: Option<&str>,
    ) -> Overrides {
        Overrides {
            kernel: kernel.and_then(|name| all_kernels().find(|c| c.name == name)),
            split_k: split_k
                .and_then(|v| v.parse().ok())
                .filter(|s| matches!(s, 1 | 2 | 4 | 8)),
            tail_split: match tail_split {
                Some("0") => Some(false),
                Some("1") => Some(true),
                _ => None,
            },
        }
    }
}

/// Validation + kernel selection + grid, without touching a device.
///
/// ```
/// use ferrocute::gemm::{GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::dispatch;
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let desc = GemmDesc { a: d(256, 64, Order::RowMajor, 0x10000), b: d(64, 256, Order::ColMajor, 0x40000),
///     c: d(256, 256, Order::ColMajor, 0x80000), in_bytes: 2, out_bytes: 2 };
/// let ds = dispatch(&desc, "bf16", "bf16", (8, 0), 1).unwrap();
/// assert_eq!(ds.kernel, "ferrocute_sm80_128x256x32_s4_kk_bf16_bf16");
/// ```
pub fn dispatch(
    desc: &GemmDesc,
    input: &str,
    output: &str,
    cc: (i32, i32),
    sm_count: u32,
) -> Result<Dispatch, Error> {
    dispatch_plan(
        super::plan::plan(desc)?,
        input,
        output,
        cc,
        sm_count,
        &Overrides::default(),
    )
}

/// [`dispatch`] for a plan already validated by [`super::plan::plan`] (or derived from
/// one, as [`super::Repack::apply`] does).
///
/// ```
/// use ferrocute::gemm::{plan, GemmDesc, Order, MatShape, OperandDesc};
/// use ferrocute::gemm::dispatch::{dispatch, dispatch_plan};
/// let d = |r, c, l, ptr| OperandDesc { shape: MatShape::packed(r, c, l), len: r * c, ptr };
/// let desc = GemmDesc { a: d(512, 512, Order::RowMajor, 0x100000), b: d(512, 512, Order::ColMajor, 0x200000),
///     c: d(512, 512, Order::ColMajor, 0x300000), in_bytes: 2, out_bytes: 2 };
/// let p = plan(&desc).unwrap();
/// assert_eq!(dispatch_plan(p, "bf16", "bf16", (9, 0), 132, &Default::default()).unwrap(),
///            dispatch(&desc, "bf16", "bf16", (9, 0), 132).unwrap());
/// ```
pub fn dispatch_plan(
    plan: Plan,
    input: &str,
    output: &str,
    cc: (i32, i32),
    sm_count: u32,
    ov: &Overrides,
) -> Result<Dispatch, Error> {
    if plan.is_noop() {
        return Ok(Dispatch {
            plan,
            config: None,
            kernel: String::new(),
            grid: (0, 0, 0),
            cluster: 1,
            repacked: [false; 3],
            tail: TailSplit::default(),
        });
    }
    let cfg = select_with(&plan, cc, sm_count, ov)?;
    let cluster = match cfg.grid {
        GridKind::SplitK => ov
            .split_k
            .unwrap_or_else(|| split_k(cfg, plan.m, plan.n, plan.k, plan.batch, sm_count)),
        _ => cfg.cluster_m.max(1),
    };
    let tail = match cfg.grid {
        GridKind::Persistent => persistent_k_blocks_with(&plan, cfg, sm_count, ov.tail_split).1,
        _ => TailSplit::default(),
    };
    let grid = if tail.splits > 0 {
        // A CTA per SM, one part each, even where there are fewer tiles than SMs.
        (sm_count.clamp(1, MAX_GRID_X as u32), 1, 1)
    } else {
        grid_dims(cfg, plan.m, plan.n, plan.batch, sm_count, cluster)?
    };
    Ok(Dispatch {
        plan,
        config: Some(cfg),
        kernel: kernel_name(cfg, plan.a.k_major, plan.b.k_major, input, output),
        grid,
        cluster,
        repacked: [false; 3],
        tail,
    })
}
