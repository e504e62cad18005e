//! Helpers shared by the GPU test binaries: random operands, an f64 reference, NaN-poisoned
//! outputs, and the probe that skips GPU tests where no kernel can run.
#![allow(dead_code)] // each test binary uses its own subset

use cudarc::driver::{CudaSlice, DeviceRepr};
use ferrocute::gemm::geometry::TailSplit;
use ferrocute::gemm::{
    Gemm, GemmDesc, InputElem, MatMut, MatRef, MatShape, OperandDesc, Order, OutputElem,
};
use half::{bf16, f16};

pub mod epilogue;

pub fn od(rows: usize, cols: usize, layout: Order, ptr: u64) -> OperandDesc {
    OperandDesc {
        shape: MatShape::packed(rows, cols, layout),
        len: rows * cols,
        ptr,
    }
}

pub fn desc(m: usize, n: usize, k: usize) -> GemmDesc {
    GemmDesc {
        a: od(m, k, Order::RowMajor, 0x10_0000),
        b: od(k, n, Order::ColMajor, 0x20_0000),
        c: od(m, n, Order::ColMajor, 0x30_0000),
        in_bytes: 2,
        out_bytes: 4,
    }
}

pub struct Rng(pub u64);
impl Rng {
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_f32() + 1.0) * 0.5 * n as f32) as usize % n.max(1)
    }
    /// `n` values drawn from [-1, 1), rounded to `T`.
    pub fn values<T: Host>(&mut self, n: usize) -> Vec<T> {
        (0..n).map(|_| T::from_f32(self.next_f32())).collect()
    }
}

pub trait Host: Copy + DeviceRepr + Default + Unpin + 'static {
    fn from_f32(x: f32) -> Self;
    fn to_f64(self) -> f64;
    fn nan() -> Self;
    fn is_nan_val(self) -> bool;
    const EPS: f64;
}
macro_rules! host_half {
    ($t:ty, $eps:expr) => {
        impl Host for $t {
            fn from_f32(x: f32) -> Self {
                <$t>::from_f32(x)
            }
            fn to_f64(self) -> f64 {
                self.to_f64()
            }
            fn nan() -> Self {
                <$t>::NAN
            }
            fn is_nan_val(self) -> bool {
                self.is_nan()
            }
            const EPS: f64 = $eps;
        }
    };
}
host_half!(bf16, 1.0 / 256.0);
host_half!(f16, 1.0 / 2048.0);
impl Host for f32 {
    fn from_f32(x: f32) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn nan() -> Self {
        f32::NAN
    }
    fn is_nan_val(self) -> bool {
        self.is_nan()
    }
    const EPS: f64 = 1.0 / (1u64 << 23) as f64;
}

pub fn idx(s: &MatShape, l: usize, r: usize, c: usize) -> usize {
    let stride = if s.batch == 1 { 0 } else { s.batch_stride };
    l * stride
        + match s.layout {
            Order::RowMajor => r * s.ld + c,
            Order::ColMajor => r + c * s.ld,
        }
}

pub fn needed(s: &MatShape) -> usize {
    if s.outer_extent() == 0 || s.contiguous_extent() == 0 || s.batch == 0 {
        return 1;
    }
    let span = (s.outer_extent() - 1) * s.ld + s.contiguous_extent();
    (s.batch - 1) * s.batch_stride + span
}

/// `pad` value that rounds every leading dimension up to a multiple of 8 elements, so that
/// edge sizes (7, 127, 129, ...) run through the fast (TMA / cp.async) kernels.
pub const ALIGN8: usize = usize::MAX;
/// Like [`ALIGN8`] for A and B, but C gets an odd leading dimension: the kernels store C with
/// predicated stores of any alignment, so this must still take a fast kernel.
pub const ALIGN8_C_ODD: usize = usize::MAX - 1;

pub fn shape(rows: usize, cols: usize, layout: Order, pad: usize, batch: usize) -> MatShape {
    let mut s = MatShape::packed(rows, cols, layout);
    if pad == ALIGN8 || pad == ALIGN8_C_ODD {
        s.ld = s.ld.div_ceil(8) * 8;
    } else {
        s.ld += pad;
    }
    s.batch = batch;
    s.batch_stride = if batch > 1 {
        s.ld * s.outer_extent() + 8
    } else {
        0
    };
    s
}

/// The handle GPU tests run on. They are `#[ignore]`d (`#[ignore]` with the reason), so this runs
/// only when asked for with `--ignored`: a missing GPU, driver or loadable kernel is then
/// a failure, never a silent pass.
pub fn gpu() -> Gemm {
    let g = Gemm::open(0).unwrap_or_else(|e| panic!("GPU test without a usable CUDA GPU: {e}"));
    // Probe: a 1x1x1 GEMM loads the Ampere-class module.
    let s = g.stream().clone();
    let a = s.clone_htod(&[bf16::ONE]).unwrap();
    let mut c = s.alloc_zeros::<f32>(1).unwrap();
    g.gemm(
        1.0,
        &MatRef::new(&a, 1, 1, Order::RowMajor),
        &MatRef::new(&a, 1, 1, Order::ColMajor),
        0.0,
        &mut MatMut::new(&mut c, 1, 1, Order::ColMajor),
    )
    .unwrap_or_else(|e| panic!("probe GEMM failed: {e}"));
    g
}

/// A Hopper handle, for the tests of the sm_90 kernels: fails on any other GPU.
pub fn hopper() -> Gemm {
    let g = gpu();
    assert_eq!(
        g.compute_capability().0,
        9,
        "this test needs an sm_90 GPU (H100/H200)"
    );
    g
}

pub struct Case {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub la: Order,
    pub lb: Order,
    pub lc: Order,
    pub pad: usize,
    pub batch: usize,
    pub broadcast_b: bool,
    pub alpha: f32,
    pub beta: f32,
}

impl Case {
    /// Case `i` of a kernel sweep in the given layouts: 8-aligned leading dimensions (C's odd
    /// for odd `i`), alpha 1 for every third case else -1.25, beta 0.5 for odd `i`.
    #[allow(clippy::too_many_arguments)]
    pub fn sweep(
        i: usize,
        m: usize,
        n: usize,
        k: usize,
        batch: usize,
        la: Order,
        lb: Order,
        lc: Order,
    ) -> Case {
        Case {
            m,
            n,
            k,
            la,
            lb,
            lc,
            pad: if i.is_multiple_of(2) {
                ALIGN8
            } else {
                ALIGN8_C_ODD
            },
            batch,
            broadcast_b: false,
            alpha: if i.is_multiple_of(3) { 1.0 } else { -1.25 },
            beta: if i.is_multiple_of(2) { 0.0 } else { 0.5 },
        }
    }
}

/// What [`run_case`] leaves for further checks: the device buffers, their shapes and the
/// kernel that ran.
pub struct Ran<TI, TO> {
    pub a: CudaSlice<TI>,
    pub b: CudaSlice<TI>,
    pub c: CudaSlice<TO>,
    pub shapes: [MatShape; 3],
    pub kernel: String,
    /// The cluster size it ran with (the K splits of a split-K kernel).
    pub cluster: u32,
    /// Which of the kernel's A, B and D were repacked in the workspace.
    pub repacked: [bool; 3],
    /// How it split tiles along K across CTAs.
    pub tail: TailSplit,
    /// Whether it ran the transposed problem, writing C N-major.
    pub d_n_major: bool,
}

/// Runs one case; compares with an f64 CPU reference on all (or `samples`)
/// elements and checks that padding of C kept its NaN poison.
pub fn run_case<TI: InputElem + Host, TO: OutputElem + Host>(
    g: &Gemm,
    rng: &mut Rng,
    cs: &Case,
    samples: Option<usize>,
) -> Ran<TI, TO> {
    let s = g.stream();
    let sa = shape(cs.m, cs.k, cs.la, cs.pad, cs.batch);
    let sb = shape(
        cs.k,
        cs.n,
        cs.lb,
        cs.pad,
        if cs.broadcast_b { 1 } else { cs.batch },
    );
    let mut sc = shape(cs.m, cs.n, cs.lc, cs.pad, cs.batch);
    if cs.pad == ALIGN8_C_ODD {
        sc.ld += 1;
        if sc.batch > 1 {
            sc.batch_stride = sc.ld * sc.outer_extent() + 8;
        }
    }
    let ha: Vec<TI> = rng.values(needed(&sa));
    let hb: Vec<TI> = rng.values(needed(&sb));
    let hc: Vec<TO> = poisoned_c(rng, &sc, cs.beta != 0.0);
    let da = s.clone_htod(&ha).unwrap();
    let db = s.clone_htod(&hb).unwrap();
    let mut dc = s.clone_htod(&hc).unwrap();
    let (kernel, cluster, repacked, tail, d_n_major) = {
        let av = MatRef::new(&da, cs.m, cs.k, cs.la)
            .ld(sa.ld)
            .batched(sa.batch, sa.batch_stride);
        let bv = MatRef::new(&db, cs.k, cs.n, cs.lb)
            .ld(sb.ld)
            .batched(sb.batch, sb.batch_stride);
        let mut cv = MatMut::new(&mut dc, cs.m, cs.n, cs.lc)
            .ld(sc.ld)
            .batched(sc.batch, sc.batch_stride);
        let d = g
            .gemm(cs.alpha, &av, &bv, cs.beta, &mut cv)
            .unwrap_or_else(|e| panic!("gemm {}x{}x{}: {e}", cs.m, cs.n, cs.k));
        // With 8-aligned leading dimensions every k > 0 problem must take a fast kernel.
        if (cs.pad == ALIGN8 || cs.pad == ALIGN8_C_ODD) && cs.k > 0 {
            assert!(
                !d.kernel.contains("simple"),
                "{}x{}x{} aligned but dispatched to {}",
                cs.m,
                cs.n,
                cs.k,
                d.kernel
            );
        }
        (d.kernel, d.cluster, d.repacked, d.tail, d.plan.d_n_major)
    };
    let out: Vec<TO> = s.clone_dtoh(&dc).unwrap();
    let mut logical = vec![false; out.len()];
    let check = |l: usize, r: usize, c: usize| {
        let (mut acc, mut abs) = (0.0f64, 0.0f64);
        for kk in 0..cs.k {
            let x = ha[idx(&sa, l, r, kk)].to_f64() * hb[idx(&sb, l, kk, c)].to_f64();
            acc += x;
            abs += x.abs();
        }
        let ci = idx(&sc, l, r, c);
        let c0 = if cs.beta != 0.0 { hc[ci].to_f64() } else { 0.0 };
        let want = cs.alpha as f64 * acc + cs.beta as f64 * c0;
        let abs_sum = (cs.alpha as f64).abs() * abs + (cs.beta as f64 * c0).abs();
        // f32 accumulation (worst case (k+2) ulps of the absolute sum) + output rounding.
        let tol = TO::EPS * want.abs() + (cs.k as f64 + 2.0) * 6.0e-8 * abs_sum + 1e-6;
        let got = out[ci].to_f64();
        assert!(
            (got - want).abs() <= tol,
            "mismatch at batch {l} ({r},{c}) of {}x{}x{} {:?}{:?}{:?}: got {got}, want {want}, tol {tol}",
            cs.m, cs.n, cs.k, cs.la, cs.lb, cs.lc
        );
    };
    match samples {
        None => {
            for l in 0..cs.batch {
                for r in 0..cs.m {
                    for c in 0..cs.n {
                        check(l, r, c);
                        logical[idx(&sc, l, r, c)] = true;
                    }
                }
            }
            for (i, v) in out.iter().enumerate() {
                assert!(
                    logical[i] || v.is_nan_val(),
                    "padding element {i} of C was written"
                );
            }
        }
        Some(count) => {
            for _ in 0..count {
                check(rng.below(cs.batch), rng.below(cs.m), rng.below(cs.n));
            }
        }
    }
    Ran {
        a: da,
        b: db,
        c: dc,
        shapes: [sa, sb, sc],
        kernel,
        cluster,
        repacked,
        tail,
        d_n_major,
    }
}

pub const LAYOUTS: [Order; 2] = [Order::RowMajor, Order::ColMajor];

/// A host C of shape `sc`: every element NaN (so that a write outside the logical matrix
/// shows), the logical ones random where `read` (beta != 0).
pub fn poisoned_c<TO: Host>(rng: &mut Rng, sc: &MatShape, read: bool) -> Vec<TO> {
    let mut hc: Vec<TO> = vec![TO::nan(); needed(sc)];
    if read {
        for l in 0..sc.batch {
            for r in 0..sc.rows {
                for c in 0..sc.cols {
                    hc[idx(sc, l, r, c)] = TO::from_f32(rng.next_f32());
                }
            }
        }
    }
    hc
}
