//! The fused epilogue's f64 reference (the activations, bias and scale vectors) and one
//! checked run of a case on the GPU (`run_epi`), for the epilogue test binaries.

use super::*;
use cudarc::driver::CudaSlice;
use ferrocute::gemm::{
    Activation, Along, Epilogue, Gemm, InputElem, MatMut, MatRef, MatShape, Order, OutputElem,
    ScaleAt, Vector,
};
use half::{bf16, f16};

pub const ACTIVATIONS: [Activation; 9] = [
    Activation::Identity,
    Activation::Relu,
    Activation::GeluTanh,
    Activation::GeluTanhFast,
    Activation::GeluErf,
    Activation::Silu,
    Activation::SiluFast,
    Activation::SwiGlu,
    Activation::SwiGluFast,
];

/// The error an activation's documented accuracy allows at input `x` beyond the f32
/// rounding the others are held to: the hardware tanh of the fast forms, `2.5e-4 |x|` (of
/// the gate's SiLU under `SwiGluFast`).
pub fn act_allowance(act: Activation, x: f64) -> f64 {
    let fast = matches!(
        act,
        Activation::GeluTanhFast | Activation::SiluFast | Activation::SwiGluFast
    );
    if fast && x.is_finite() {
        2.5e-4 * x.abs()
    } else {
        0.0
    }
}

/// The activations in f64 (`GeluTanhFast` as the form it approximates); at `-inf` their
/// limits with the documented signs (`-0` for SiLU and GELU's tanh forms, `+0` for its erf
/// form).
pub fn act_f64(act: Activation, x: f64) -> f64 {
    let silu = |x: f64| {
        if x == f64::NEG_INFINITY {
            -0.0
        } else {
            x / (1.0 + (-x).exp())
        }
    };
    match act {
        Activation::Relu => {
            if x <= 0.0 {
                0.0
            } else {
                x
            }
        }
        Activation::GeluTanh | Activation::GeluTanhFast if x == f64::NEG_INFINITY => -0.0,
        Activation::GeluTanh | Activation::GeluTanhFast => {
            0.5 * x
                * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3))).tanh())
        }
        Activation::GeluErf if x == f64::NEG_INFINITY => 0.0,
        Activation::GeluErf => 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
        Activation::Silu | Activation::SiluFast | Activation::SwiGlu | Activation::SwiGluFast => {
            silu(x)
        }
        Activation::Identity => x,
    }
}

/// erf to about 1e-12 (Abramowitz-Stegun 7.1.26 is too coarse for f32 results): the series
/// below 3, the continued fraction's tail above.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let v = if a < 3.0 {
        // erf(a) = 2/sqrt(pi) * sum_n (-1)^n a^(2n+1) / (n! (2n+1))
        let (mut term, mut sum, mut n) = (a, a, 0.0);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // erfc(a) = exp(-a^2)/sqrt(pi) * 1/(a + 1/2/(a + 1/(a + 3/2/(a + ...))))
        let mut f = a;
        for k in (1..60).rev() {
            f = a + (k as f64 / 2.0) / f;
        }
        1.0 - (-a * a).exp() / (std::f64::consts::PI.sqrt() * f)
    };
    v.copysign(x)
}

/// A host copy of an epilogue vector: its values (as the device's element type rounds
/// them) and where it runs.
pub struct HostVec {
    pub vals: Vec<f64>,
    pub along: Along,
}

impl HostVec {
    pub fn at(&self, r: usize, c: usize) -> f64 {
        self.vals[if self.along == Along::Rows { r } else { c }]
    }
}

/// Device copies of one vector in each element type (the one the case draws is used).
pub enum DevVec {
    F32(CudaSlice<f32>),
    Bf16(CudaSlice<bf16>),
    F16(CudaSlice<f16>),
}

impl DevVec {
    pub fn vector(&self, along: Along) -> Vector<'_> {
        match self {
            DevVec::F32(s) => Vector::from_view(s.as_view(), along),
            DevVec::Bf16(s) => Vector::from_view(s.as_view(), along),
            DevVec::F16(s) => Vector::from_view(s.as_view(), along),
        }
    }
}

/// A random vector of `len` elements in a random type, values in [lo, hi).
pub fn random_vec(
    g: &Gemm,
    rng: &mut Rng,
    len: usize,
    along: Along,
    lo: f32,
    hi: f32,
) -> (HostVec, DevVec) {
    let s = g.stream();
    let raw: Vec<f32> = (0..len)
        .map(|_| lo + (rng.next_f32() + 1.0) * 0.5 * (hi - lo))
        .collect();
    match rng.below(3) {
        0 => (
            HostVec {
                vals: raw.iter().map(|&x| x as f64).collect(),
                along,
            },
            DevVec::F32(s.clone_htod(&raw).unwrap()),
        ),
        1 => {
            let h: Vec<bf16> = raw.iter().map(|&x| bf16::from_f32(x)).collect();
            (
                HostVec {
                    vals: h.iter().map(|x| x.to_f64()).collect(),
                    along,
                },
                DevVec::Bf16(s.clone_htod(&h).unwrap()),
            )
        }
        _ => {
            let h: Vec<f16> = raw.iter().map(|&x| f16::from_f32(x)).collect();
            (
                HostVec {
                    vals: h.iter().map(|x| x.to_f64()).collect(),
                    along,
                },
                DevVec::F16(s.clone_htod(&h).unwrap()),
            )
        }
    }
}

/// One fused-epilogue problem: shape, storage orders and batches (the paddings `run_epi`
/// chooses), alpha and beta, and the epilogue drawn.
pub struct EpiCase {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub la: Order,
    pub lb: Order,
    pub lc: Order,
    pub batch: usize,
    pub alpha: f32,
    pub beta: f32,
    pub act: Activation,
    pub bias: Option<Along>,
    pub scale: Option<(Along, ScaleAt)>,
}

/// Runs one case on `g` and checks every element of C; returns the kernel that ran.
pub fn run_epi<TI: InputElem + Host, TO: OutputElem + Host>(
    g: &Gemm,
    rng: &mut Rng,
    cs: &EpiCase,
) -> String {
    let s = g.stream();
    let gated = cs.act.is_gated();
    let n_out = if gated { cs.n / 2 } else { cs.n };
    let sa = shape(cs.m, cs.k, cs.la, ALIGN8, cs.batch);
    let sb = shape(cs.k, cs.n, cs.lb, ALIGN8, cs.batch);
    // C's leading dimension: 8 past its contiguous extent where that is a multiple of 8, so
    // that a 16-bit C with beta == 0 and no gating goes out by the persistent tiles' TMA
    // store (which needs 16-byte columns), else 3 past it (the other stores' odd strides).
    let pad = if c_contiguous(cs).is_multiple_of(8) {
        8
    } else {
        3
    };
    let sc: MatShape = shape(cs.m, n_out, cs.lc, pad, cs.batch);
    let ha: Vec<TI> = rng.values(needed(&sa));
    let hb: Vec<TI> = rng.values(needed(&sb));
    let hc: Vec<TO> = poisoned_c(rng, &sc, cs.beta != 0.0);
    let len = |along| if along == Along::Rows { cs.m } else { cs.n };
    let bias = cs
        .bias
        .map(|along| random_vec(g, rng, len(along), along, -1.0, 1.0));
    let scale = cs
        .scale
        .map(|(along, at)| (random_vec(g, rng, len(along), along, 0.25, 2.0), at));
    let da = s.clone_htod(&ha).unwrap();
    let db = s.clone_htod(&hb).unwrap();
    let mut dc = s.clone_htod(&hc).unwrap();
    let mut epi = Epilogue::new().activation(cs.act);
    if let Some((h, d)) = &bias {
        epi = epi.bias(d.vector(h.along));
    }
    if let Some(((h, d), at)) = &scale {
        epi = epi.scale(d.vector(h.along), *at);
    }
    let kernel = g
        .gemm_with(
            cs.alpha,
            &MatRef::new(&da, cs.m, cs.k, cs.la)
                .ld(sa.ld)
                .batched(sa.batch, sa.batch_stride),
            &MatRef::new(&db, cs.k, cs.n, cs.lb)
                .ld(sb.ld)
                .batched(sb.batch, sb.batch_stride),
            cs.beta,
            &mut MatMut::new(&mut dc, cs.m, n_out, cs.lc)
                .ld(sc.ld)
                .batched(sc.batch, sc.batch_stride),
            &epi,
        )
        .unwrap_or_else(|e| panic!("{}x{}x{} {:?}: {e}", cs.m, cs.n, cs.k, cs.act))
        .kernel;
    let out: Vec<TO> = s.clone_dtoh(&dc).unwrap();
    // (alpha * s ⊙ P + bias) for column c of the product, and the bound of its error.
    let pre = |l: usize, r: usize, c: usize| -> (f64, f64) {
        let (mut acc, mut abs) = (0.0f64, 0.0f64);
        for kk in 0..cs.k {
            let x = ha[idx(&sa, l, r, kk)].to_f64() * hb[idx(&sb, l, kk, c)].to_f64();
            acc += x;
            abs += x.abs();
        }
        let s_prod = match &scale {
            Some(((h, _), ScaleAt::Product)) => h.at(r, c),
            _ => 1.0,
        };
        let b = bias.as_ref().map_or(0.0, |(h, _)| h.at(r, c));
        let x = cs.alpha as f64 * s_prod * acc + b;
        let scaled = (cs.alpha as f64 * s_prod).abs();
        (
            x,
            (cs.k as f64 + 4.0) * 6.0e-8 * scaled * abs + 1e-6 * b.abs(),
        )
    };
    let mut logical = vec![false; out.len()];
    for l in 0..cs.batch {
        for r in 0..cs.m {
            for c in 0..n_out {
                let ci = idx(&sc, l, r, c);
                logical[ci] = true;
                let (want, err) = if gated {
                    let ((g, eg), (u, eu)) = (pre(l, r, 2 * c), pre(l, r, 2 * c + 1));
                    let sg = act_f64(Activation::Silu, g);
                    (
                        sg * u,
                        1.2 * eg * u.abs()
                            + eu * sg.abs()
                            + 1e-6 * (sg * u).abs()
                            + act_allowance(cs.act, g) * u.abs(),
                    )
                } else {
                    let (x, e) = pre(l, r, c);
                    let c0 = if cs.beta != 0.0 {
                        cs.beta as f64 * hc[ci].to_f64()
                    } else {
                        0.0
                    };
                    let y = act_f64(cs.act, x + c0);
                    let so = match &scale {
                        Some(((h, _), ScaleAt::Output)) => h.at(r, c),
                        _ => 1.0,
                    };
                    let allowed = act_allowance(cs.act, x + c0);
                    (
                        so * y,
                        so * (1.2 * e + 1e-6 * (x.abs() + c0.abs()) + allowed),
                    )
                };
                let got = out[ci].to_f64();
                let tol = TO::EPS * want.abs() + err + 1e-6;
                assert!(
                    (got - want).abs() <= tol,
                    "{kernel}: batch {l} ({r},{c}) of {}x{}x{} {:?}{:?}{:?} {:?} bias {:?} scale {:?} beta {}: got {got}, want {want}, tol {tol}",
                    cs.m, cs.n, cs.k, cs.la, cs.lb, cs.lc, cs.act, cs.bias, cs.scale, cs.beta
                );
            }
        }
    }
    for (i, v) in out.iter().enumerate() {
        assert!(
            logical[i] || v.is_nan_val(),
            "{kernel}: padding element {i} of C was written"
        );
    }
    kernel
}

/// C's extent along its unit-stride mode: m for a column-major C, its columns (n, or n / 2
/// under SwiGLU) for a row-major one (the kernel's M, computed swapped).
pub fn c_contiguous(cs: &EpiCase) -> usize {
    match cs.lc {
        Order::ColMajor => cs.m,
        _ if cs.act.is_gated() => cs.n / 2,
        _ => cs.n,
    }
}
