//! Fused epilogues on every kernel: each kernel the dispatch tables hold, and the simple one,
//! is forced on problems it takes (small M for the split-K tiles and the register-streaming
//! kernel, several tiles with M a multiple of 8 for the persistent tiles' TMA store, edge
//! sizes for all), under every activation with random bias and scale vectors
//! (each axis, element type and, for scales, position), against an f64 reference of the
//! epilogue's formula. Every element of C is checked and its padding must keep its NaN.
//! The special values of the activations are checked on their own.

use cudarc::driver::CudaSlice;
use ferrocute::gemm::{
    registry, Activation, Along, Epilogue, Gemm, InputElem, MatMut, MatRef, MatShape, Order,
    OutputElem, Overrides, ScaleAt, Vector,
};
use half::{bf16, f16};

mod common;
use common::*;

const ACTIVATIONS: [Activation; 6] = [
    Activation::Identity,
    Activation::Relu,
    Activation::GeluTanh,
    Activation::GeluErf,
    Activation::Silu,
    Activation::SwiGlu,
];

/// The activations in f64; at `-inf` their limits with the documented signs (`-0` for SiLU
/// and GELU's tanh form, `+0` for its erf form).
fn act_f64(act: Activation, x: f64) -> f64 {
    let silu = |x: f64| {
        if x == f64::NEG_INFINITY {
            -0.0
        } else {
            x / (1.0 + (-x).exp())
        }
    };
    match act {
        Activation::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        Activation::GeluTanh if x == f64::NEG_INFINITY => -0.0,
        Activation::GeluTanh => {
            0.5 * x
                * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3))).tanh())
        }
        Activation::GeluErf if x == f64::NEG_INFINITY => 0.0,
        Activation::GeluErf => 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
        Activation::Silu | Activation::SwiGlu => silu(x),
        Activation::Identity => x,
    }
}

/// erf to about 1e-12 (Abramowitz-Stegun 7.1.26 is too coarse for f32 results): the series
/// below 3, the continued fraction's tail above.
fn erf(x: f64) -> f64 {
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
struct HostVec {
    vals: Vec<f64>,
    along: Along,
}

impl HostVec {
    fn at(&self, r: usize, c: usize) -> f64 {
        self.vals[if self.along == Along::Rows { r } else { c }]
    }
}

/// Device copies of one vector in each element type (the one the case draws is used).
enum DevVec {
    F32(CudaSlice<f32>),
    Bf16(CudaSlice<bf16>),
    F16(CudaSlice<f16>),
}

impl DevVec {
    fn vector(&self, along: Along) -> Vector<'_> {
        match self {
            DevVec::F32(s) => Vector::from_view(s.as_view(), along),
            DevVec::Bf16(s) => Vector::from_view(s.as_view(), along),
            DevVec::F16(s) => Vector::from_view(s.as_view(), along),
        }
    }
}

/// A random vector of `len` elements in a random type, values in [lo, hi).
fn random_vec(
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

struct EpiCase {
    m: usize,
    n: usize,
    k: usize,
    la: Order,
    lb: Order,
    lc: Order,
    batch: usize,
    alpha: f32,
    beta: f32,
    act: Activation,
    bias: Option<Along>,
    scale: Option<(Along, ScaleAt)>,
}

/// Runs one case on `g` and checks every element of C; returns the kernel that ran.
fn run_epi<TI: InputElem + Host, TO: OutputElem + Host>(
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
                        1.2 * eg * u.abs() + eu * sg.abs() + 1e-6 * (sg * u).abs(),
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
                    (so * y, so * (1.2 * e + 1e-6 * (x.abs() + c0.abs())))
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

/// Shapes (m, n, k) a kernel is checked on: its own range of M, edge sizes, n even (SwiGLU
/// halves it).
fn shapes_for(name: &str) -> &'static [(usize, usize, usize)] {
    if name.contains("_mc") {
        // Clusters along M: a cluster's last tiles past M (150, 120), and full clusters.
        &[
            (150, 130, 200),
            (200, 64, 520),
            (120, 96, 264),
            (256, 256, 136),
        ]
    } else if name.contains("splitk") {
        &[(7, 130, 200), (33, 64, 520), (64, 256, 136), (120, 96, 264)]
    } else if name.contains("skinny") {
        // K whole, then in parts (few tiles of long K: skinny_parts splits from K = 2048 on)
        &[
            (1, 130, 72),
            (7, 200, 136),
            (16, 66, 520),
            (5, 4224, 64),
            (5, 130, 14336),
        ]
    } else {
        &[
            (7, 130, 72),
            (129, 200, 136),
            (64, 256, 64),
            (200, 66, 520),
            (256, 392, 72),
        ]
    }
}

/// C's extent along its unit-stride mode: m for a column-major C, its columns (n, or n / 2
/// under SwiGLU) for a row-major one (the kernel's M, computed swapped).
fn c_contiguous(cs: &EpiCase) -> usize {
    match cs.lc {
        Order::ColMajor => cs.m,
        _ if cs.act.is_gated() => cs.n / 2,
        _ => cs.n,
    }
}

/// The form of the persistent tiles' fused TMA store (`tma_fused_epilogue` in
/// `sm90/epilogue.cuh`) a case took on kernel `ran`, if it took that store: it needs a
/// 16-bit D, a fused epilogue, beta == 0 and D's contiguous extent (the kernel's M: m for a
/// column-major C, C's columns for a row-major one, computed swapped) a multiple of 8, which
/// `run_epi`'s padding then keeps for the leading dimension. The `_epi` entry points (K-major
/// A and B, D of the input's type) take SwiGLU without a scale (`gated`) and the epilogues
/// without a scale other than GELU's erf form unrolled over each 64-column box
/// (`unrolled`); the rest go through the rolled loop over 16-column groups (`rolled`),
/// SwiGLU in the plain entry points through the general epilogue (no TMA store).
fn tma_store_form<TO>(cs: &EpiCase, ran: &str) -> Option<&'static str> {
    let fused = cs.act != Activation::Identity || cs.bias.is_some() || cs.scale.is_some();
    let tma = fused
        && std::mem::size_of::<TO>() == 2
        && cs.beta == 0.0
        && c_contiguous(cs).is_multiple_of(8);
    let epi = ran.contains("_epi_");
    let unrolled_act = matches!(
        cs.act,
        Activation::Identity | Activation::Relu | Activation::GeluTanh | Activation::Silu
    );
    match () {
        _ if !tma => None,
        _ if cs.act.is_gated() => (epi && cs.scale.is_none()).then_some("gated"),
        _ if epi && unrolled_act && cs.scale.is_none() => Some("unrolled"),
        _ => Some("rolled"),
    }
}

/// Cases that take each form of the persistent tiles' fused TMA store, so that each kernel
/// runs them whatever the random cases drew: SwiGLU with a row-major C (gated along the
/// kernel's M, computed swapped; C's 128 columns a multiple of 8) and a column-major one
/// (along N; 200 rows), GELU's tanh form unrolled, and with a scale the rolled loop; a bias
/// along either axis.
fn epi_tma_cases() -> [EpiCase; 4] {
    let case = |m, n, lc, bias, act| EpiCase {
        m,
        n,
        k: 136,
        la: Order::RowMajor,
        lb: Order::ColMajor,
        lc,
        batch: 2,
        alpha: -0.75,
        beta: 0.0,
        act,
        bias: Some(bias),
        scale: None,
    };
    [
        case(72, 256, Order::RowMajor, Along::Cols, Activation::SwiGlu),
        case(200, 66, Order::ColMajor, Along::Rows, Activation::SwiGlu),
        case(136, 200, Order::ColMajor, Along::Cols, Activation::GeluTanh),
        EpiCase {
            scale: Some((Along::Cols, ScaleAt::Output)),
            ..case(136, 200, Order::ColMajor, Along::Rows, Activation::Silu)
        },
    ]
}

fn check_kernels<TI: InputElem + Host, TO: OutputElem + Host>(seed: u64) {
    let g = hopper();
    let mut rng = Rng(seed);
    let kernels: Vec<&'static registry::KernelConfig> = registry::all_kernels()
        .chain(std::iter::once(&registry::SIMPLE_KERNEL))
        .filter(|c| registry::runs_on(c, g.compute_capability()))
        .collect();
    let mut cases = 0;
    let mut covered = std::collections::BTreeSet::new();
    let mut tma_covered = std::collections::BTreeSet::new();
    for &cfg in &kernels {
        let forced = g.clone().with_overrides(Overrides {
            kernel: Some(cfg),
            ..Overrides::default()
        });
        for (i, &(m, n, k)) in shapes_for(cfg.name).iter().enumerate() {
            for (j, &act) in ACTIVATIONS.iter().enumerate() {
                let pick = |rng: &mut Rng| {
                    if rng.below(2) == 0 {
                        Along::Rows
                    } else {
                        Along::Cols
                    }
                };
                let gated = act.is_gated();
                let cs = EpiCase {
                    m,
                    n,
                    k,
                    la: LAYOUTS[rng.below(2)],
                    // A K-major B (which the register-streaming kernel needs) for every
                    // gated and every plain case, any B for the others.
                    lb: if gated || act == Activation::Identity {
                        Order::ColMajor
                    } else {
                        LAYOUTS[rng.below(2)]
                    },
                    // The small-M kernels take a row-major C transposed: both orders for all.
                    lc: LAYOUTS[(i + j) % 2],
                    batch: 1 + (i + j) % 3 / 2,
                    alpha: if j % 2 == 0 { 1.0 } else { -0.75 },
                    beta: if gated || (i + j) % 3 != 1 { 0.0 } else { 0.5 },
                    act,
                    bias: (rng.below(4) != 0).then(|| pick(&mut rng)),
                    scale: (rng.below(2) == 0).then(|| {
                        let at = if gated || rng.below(2) == 0 {
                            ScaleAt::Product
                        } else {
                            ScaleAt::Output
                        };
                        (pick(&mut rng), at)
                    }),
                };
                // A forced kernel runs where it is eligible (the layouts drawn decide for
                // some); every kernel must have run somewhere (checked below).
                let ran = run_epi::<TI, TO>(&forced, &mut rng, &cs);
                if ran.contains(cfg.name) {
                    covered.insert((cfg.name, gated));
                    if let Some(form) = tma_store_form::<TO>(&cs, &ran) {
                        tma_covered.insert((cfg.name, form));
                    }
                }
                cases += 1;
            }
        }
        if std::mem::size_of::<TO>() == 2 && cfg.path == registry::LaunchPath::TensorMapsAndD {
            for cs in epi_tma_cases() {
                let ran = run_epi::<TI, TO>(&forced, &mut rng, &cs);
                if let Some(form) =
                    tma_store_form::<TO>(&cs, &ran).filter(|_| ran.contains(cfg.name))
                {
                    tma_covered.insert((cfg.name, form));
                }
                cases += 1;
            }
        }
    }
    for cfg in kernels {
        for gated in [false, true] {
            assert!(
                covered.contains(&(cfg.name, gated)),
                "{} never ran (gated: {gated})",
                cfg.name
            );
        }
        // The persistent tiles' fused TMA store (not the staged schedule's) ran somewhere,
        // in each of its forms.
        if std::mem::size_of::<TO>() == 2
            && cfg.path == registry::LaunchPath::TensorMapsAndD
            && !cfg.name.contains("_st")
        {
            for form in ["unrolled", "rolled", "gated"] {
                assert!(
                    tma_covered.contains(&(cfg.name, form)),
                    "{} never took its fused TMA store's {form} form",
                    cfg.name
                );
            }
        }
    }
    println!(
        "{cases} epilogue cases on {} kernels, every element checked",
        covered.len()
    );
}

#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_every_kernel_bf16_to_bf16() {
    check_kernels::<bf16, bf16>(11);
}

#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_every_kernel_f16_to_f32() {
    check_kernels::<f16, f32>(12);
}

/// f16 in and out: the persistent tiles' other `_epi` entry points.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_every_kernel_f16_to_f16() {
    check_kernels::<f16, f16>(13);
}

/// The dispatched kernel (no override) on decode and prefill shapes of a linear layer,
/// row-major as PyTorch stores it: `y = act(x Wᵀ + b)` and SwiGLU.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_linear_layers() {
    let g = hopper();
    let mut rng = Rng(13);
    for &(m, n, k) in &[
        (1, 1024, 512),
        (8, 2048, 1024),
        (16, 512, 4096),
        (48, 768, 512),
        (256, 1024, 256),
        (600, 512, 320),
    ] {
        for act in ACTIVATIONS {
            let cs = EpiCase {
                m,
                n,
                k,
                la: Order::RowMajor,
                lb: Order::ColMajor,
                lc: Order::RowMajor,
                batch: 1,
                alpha: 1.0,
                beta: 0.0,
                act,
                bias: Some(Along::Cols),
                scale: None,
            };
            let kernel = run_epi::<bf16, bf16>(&g, &mut rng, &cs);
            println!("{m}x{n}x{k} {act:?}: {kernel}");
        }
    }
}

/// NaN and ±inf through each activation (the module documentation's promises): the product
/// is 0 and the bias carries the special value (SwiGLU: the gate's, its up's bias 1.5). On
/// the dispatched kernel with an f32 D, and on each persistent tile family forced with a bf16
/// D of 64 rows, which goes out by the fused TMA store (its unrolled or gated form for all
/// but GELU's erf form). C starts as NaN, so an output never written fails.
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_special_values() {
    let g = hopper();
    special_values::<f32>(&g, 8, None);
    for family in [
        "128x128x64_s6_pp",
        "128x192x64_s4_pp",
        "128x256x64_s4_coop",
        "128x256x64_s4_coop_c2",
    ] {
        let cfg = registry::all_kernels()
            .find(|c| c.name == format!("sm90_{family}"))
            .unwrap_or_else(|| panic!("no kernel sm90_{family}"));
        let forced = g.clone().with_overrides(Overrides {
            kernel: Some(cfg),
            ..Overrides::default()
        });
        special_values::<bf16>(&forced, 64, Some(cfg.name));
    }
}

fn special_values<TO: OutputElem + Host>(g: &Gemm, m: usize, kernel: Option<&str>) {
    let s = g.stream();
    let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -3.0, 0.0, 2.5];
    let k = 16;
    let n = specials.len();
    let a = s.clone_htod(&vec![bf16::ZERO; m * k]).unwrap();
    let b = s.clone_htod(&vec![bf16::ZERO; k * 2 * n]).unwrap();
    let bias = s.clone_htod(&specials).unwrap();
    // SwiGLU's bias: gate j the special value, its up 1.5
    let up = 1.5;
    let gated_bias = s
        .clone_htod(&specials.iter().flat_map(|&x| [x, up]).collect::<Vec<f32>>())
        .unwrap();
    for act in ACTIVATIONS {
        let gated = act.is_gated();
        let (epi, cols) = if gated {
            (
                Epilogue::new()
                    .activation(act)
                    .bias(Vector::cols(&gated_bias)),
                2 * n,
            )
        } else {
            (Epilogue::new().activation(act).bias(Vector::cols(&bias)), n)
        };
        let mut c = s.clone_htod(&vec![TO::nan(); m * n]).unwrap();
        let ran = g
            .gemm_with(
                1.0,
                &MatRef::new(&a, m, k, Order::RowMajor),
                &MatRef::new(&b, k, cols, Order::ColMajor),
                0.0,
                &mut MatMut::new(&mut c, m, n, Order::ColMajor),
                &epi,
            )
            .unwrap()
            .kernel;
        if let Some(name) = kernel {
            assert!(ran.contains(name), "forced {name} but {ran} ran");
        }
        let out = s.clone_dtoh(&c).unwrap();
        for (j, &x) in specials.iter().enumerate() {
            let want = if gated {
                act_f64(Activation::Silu, x as f64) * up as f64
            } else {
                act_f64(act, x as f64)
            };
            for r in 0..m {
                let got = out[j * m + r].to_f64();
                assert!(
                    (want.is_nan() && got.is_nan())
                        || got == want
                        || (got - want).abs() <= TO::EPS.max(1e-6) * want.abs(),
                    "{ran}: {act:?}({x}) = {got}, want {want}"
                );
                // a zero keeps the documented sign (D's 16-bit types have a signed zero)
                assert!(
                    want != 0.0 || got.is_sign_negative() == want.is_sign_negative(),
                    "{ran}: {act:?}({x}) = {got:?}, want {want:?}"
                );
            }
        }
    }
}

/// One plain-epilogue and one gated case per kernel family, small enough for
/// compute-sanitizer (memcheck, racecheck, synccheck).
#[test]
#[ignore = "needs an sm_90 GPU (H100/H200): cargo test -- --ignored"]
fn gpu_epilogue_small() {
    let g = hopper();
    let mut rng = Rng(14);
    let families = [
        "skinny16",
        "splitk_64x64",
        "128x128x64_s6_pp",
        "128x256x64_s4_coop",
        "sm80",
        "simple",
    ];
    for family in families {
        let cfg = registry::all_kernels()
            .chain(std::iter::once(&registry::SIMPLE_KERNEL))
            .find(|c| c.name.contains(family))
            .unwrap_or_else(|| panic!("no kernel named like {family}"));
        let forced = g.clone().with_overrides(Overrides {
            kernel: Some(cfg),
            ..Overrides::default()
        });
        // On the persistent tiles (72 rows; a row-major C's 72 columns when gated): GELU's
        // erf form with a scale and SwiGLU without one take the TMA store's rolled and gated
        // forms, SwiGLU with a scale the general epilogue, GELU's tanh form the unrolled one.
        for (act, lc, scale) in [
            (Activation::GeluErf, Order::ColMajor, true),
            (Activation::SwiGlu, Order::RowMajor, true),
            (Activation::SwiGlu, Order::RowMajor, false),
            (Activation::SwiGlu, Order::ColMajor, false),
            (Activation::GeluTanh, Order::ColMajor, false),
        ] {
            let m = match family {
                "skinny16" | "splitk_64x64" => 5,
                _ => 72,
            };
            let cs = EpiCase {
                m,
                n: 144,
                k: 72,
                la: Order::RowMajor,
                lb: Order::ColMajor,
                lc,
                batch: 2,
                alpha: 1.0,
                beta: 0.0,
                act,
                bias: Some(Along::Cols),
                scale: scale.then_some((Along::Rows, ScaleAt::Product)),
            };
            let ran = run_epi::<bf16, bf16>(&forced, &mut rng, &cs);
            assert!(ran.contains(cfg.name), "forced {} but {ran} ran", cfg.name);
        }
    }
}
