//! `--epilogue bias,relu,gelu,gelufast,swiglu,swiglufast|all`: fused epilogues on the
//! row-major linear layer `y = act(x Wᵀ + b)` (and SwiGLU over W's interleaved gate/up
//! rows), raced in one process against
//! - our plain GEMM (what the epilogue costs),
//! - our plain GEMM + a separate pass (what fusing saves),
//! - cuBLASLt's fused epilogue, prepared once (bias, ReLU + bias, GELU + bias, against both
//!   our GELU forms: `gelu` is ours accurate, `gelufast` ours in cuBLASLt's form with the
//!   hardware tanh); for SwiGLU, which cuBLASLt lacks, cuBLAS + the same separate pass.
//!
//! Every fused result is checked against an f64 reference on 512 sampled elements.

use std::sync::Arc;

use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, CudaStream};
use ferrocute::gemm::{Activation, Epilogue, Gemm, MatMut, MatRef, Order, Vector};
use half::bf16;

use crate::lt::{LtEpilogue, LtPlan};
use crate::passes::Passes;
use crate::problem::{cublas, random_bf16, Layout};
use crate::timing::{median, time_ms};
use crate::{Res, ROTATE_BYTES};

/// The epilogues raced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bias,
    Relu,
    Gelu,
    GeluFast,
    SwiGlu,
    SwiGluFast,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Bias,
        Kind::Relu,
        Kind::Gelu,
        Kind::GeluFast,
        Kind::SwiGlu,
        Kind::SwiGluFast,
    ];

    pub fn parse(list: &str) -> Vec<Kind> {
        if list == "all" {
            return Kind::ALL.to_vec();
        }
        list.split(',')
            .filter_map(|s| match s.trim() {
                "bias" => Some(Kind::Bias),
                "relu" => Some(Kind::Relu),
                "gelu" => Some(Kind::Gelu),
                "gelufast" => Some(Kind::GeluFast),
                "swiglu" => Some(Kind::SwiGlu),
                "swiglufast" => Some(Kind::SwiGluFast),
                other => {
                    eprintln!("ignoring epilogue {other} (bias, relu, gelu, gelufast, swiglu, swiglufast)");
                    None
                }
            })
            .collect()
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Bias => "bias",
            Kind::Relu => "bias+relu",
            Kind::Gelu => "bias+gelu",
            Kind::GeluFast => "bias+gelufast",
            Kind::SwiGlu => "swiglu",
            Kind::SwiGluFast => "swiglufast",
        }
    }

    fn activation(self) -> Activation {
        match self {
            Kind::Bias => Activation::Identity,
            Kind::Relu => Activation::Relu,
            Kind::Gelu => Activation::GeluTanh,
            Kind::GeluFast => Activation::GeluTanhFast,
            Kind::SwiGlu => Activation::SwiGlu,
            Kind::SwiGluFast => Activation::SwiGluFast,
        }
    }

    /// The separate pass's activation code (passes.rs).
    fn pass_act(self) -> i32 {
        match self {
            Kind::Relu => 1,
            Kind::Gelu | Kind::GeluFast => 2,
            _ => 0,
        }
    }

    fn gated(self) -> bool {
        self.activation().is_gated()
    }

    fn lt(self) -> Option<LtEpilogue> {
        match self {
            Kind::Bias => Some(LtEpilogue::Bias),
            Kind::Relu => Some(LtEpilogue::ReluBias),
            Kind::Gelu | Kind::GeluFast => Some(LtEpilogue::GeluBias),
            Kind::SwiGlu | Kind::SwiGluFast => None,
        }
    }
}

/// One rotated set: x, W, the GEMM's m x n product and the layer's output.
struct Set {
    x: CudaSlice<bf16>,
    w: CudaSlice<bf16>,
    h: CudaSlice<bf16>,
    y: CudaSlice<bf16>,
}

/// Our fused call.
fn fused(
    g: &Gemm,
    kind: Kind,
    s: &mut Set,
    bias: &CudaSlice<bf16>,
    (m, n, k): (usize, usize, usize),
) -> Res<()> {
    let mut epi = Epilogue::new().activation(kind.activation());
    if !kind.gated() {
        epi = epi.bias(Vector::cols(bias));
    }
    let n_out = if kind.gated() { n / 2 } else { n };
    g.gemm_with(
        1.0,
        &MatRef::new(&s.x, m, k, Order::RowMajor),
        &MatRef::new(&s.w, n, k, Order::RowMajor).t(),
        0.0,
        &mut MatMut::new(&mut s.y, m, n_out, Order::RowMajor),
        &epi,
    )?;
    Ok(())
}

/// Our plain GEMM into the m x n product.
fn plain(g: &Gemm, s: &mut Set, (m, n, k): (usize, usize, usize)) -> Res<()> {
    g.gemm(
        1.0,
        &MatRef::new(&s.x, m, k, Order::RowMajor),
        &MatRef::new(&s.w, n, k, Order::RowMajor).t(),
        0.0,
        &mut MatMut::new(&mut s.h, m, n, Order::RowMajor),
    )?;
    Ok(())
}

/// The f64 value of the layer's output (r, c).
fn reference(
    kind: Kind,
    hx: &[bf16],
    hw: &[bf16],
    hb: &[bf16],
    k: usize,
    r: usize,
    c: usize,
) -> f64 {
    let dot = |col: usize| -> f64 {
        (0..k)
            .map(|kk| hx[r * k + kk].to_f64() * hw[col * k + kk].to_f64())
            .sum()
    };
    let silu = |x: f64| x / (1.0 + (-x).exp());
    match kind {
        Kind::SwiGlu | Kind::SwiGluFast => silu(dot(2 * c)) * dot(2 * c + 1),
        _ => {
            let x = dot(c) + hb[c].to_f64();
            match kind {
                Kind::Relu => x.max(0.0),
                Kind::Gelu | Kind::GeluFast => {
                    0.5 * x
                        * (1.0
                            + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3)))
                                .tanh())
                }
                _ => x,
            }
        }
    }
}

/// Checks `y` (m x n_out) on sampled elements; "ok" or what is off.
fn check(
    y: &[bf16],
    kind: Kind,
    hx: &[bf16],
    hw: &[bf16],
    hb: &[bf16],
    (m, n, k): (usize, usize, usize),
) -> String {
    let n_out = if kind.gated() { n / 2 } else { n };
    let mut bad = 0;
    let mut first = String::new();
    for i in 0..512usize {
        let at = (i * 2654435761) % (m * n_out);
        let (r, c) = (at / n_out, at % n_out);
        let want = reference(kind, hx, hw, hb, k, r, c);
        let got = y[at].to_f64();
        if (got - want).abs() > want.abs() / 64.0 + 2e-2 {
            bad += 1;
            if first.is_empty() {
                first = format!(" first ({r},{c}) got {got} want {want:.4}");
            }
        }
    }
    if bad == 0 {
        "ok".into()
    } else {
        format!("MISMATCH {bad}/512{first}")
    }
}

#[allow(clippy::too_many_arguments)]
pub fn race(
    g: &Gemm,
    blas: &CudaBlas,
    stream: &Arc<CudaStream>,
    kinds: &[Kind],
    shapes: &[(usize, usize, usize, &'static str)],
    iters: usize,
    rounds: usize,
    sms: u32,
) -> Res<()> {
    let passes = Passes::new(stream, sms)?;
    println!(
        "(per launch, us: median of {iters} samples of 10 launches, median of {rounds} alternating rounds; \
         fused = ours with the epilogue, plain = ours without (its overhead in %), unfused = plain + a \
         separate pass, Lt = cuBLASLt's fused epilogue prepared once (SwiGLU: cuBLAS + the pass); \
         ratio = Lt / fused)"
    );
    println!(
        "{:>18} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} {:>6}  check",
        "m x n x k", "epilogue", "fused", "plain", "cost", "unfused", "Lt", "ratio"
    );
    let mut seed = 0x2545_f491_u64;
    for &(m, n, k, _) in shapes {
        // The separate pass runs on whole 16-byte pieces of a row (SwiGLU's of n / 2).
        if !n.is_multiple_of(16) {
            println!("{m:>6}x{n}x{k}: skipped, the separate pass needs n a multiple of 16");
            continue;
        }
        let dims = (m, n, k);
        let hx = random_bf16(&mut seed, m * k);
        let hw = random_bf16(&mut seed, n * k);
        let hb = random_bf16(&mut seed, n);
        let bias = stream.clone_htod(&hb)?;
        let bytes = (m * k + n * k + 2 * m * n) * 2;
        let nsets = ROTATE_BYTES.div_ceil(bytes).clamp(2, 64);
        let mut sets: Vec<Set> = (0..nsets)
            .map(|_| {
                Ok(Set {
                    x: stream.clone_htod(&hx)?,
                    w: stream.clone_htod(&hw)?,
                    h: stream.alloc_zeros(m * n)?,
                    y: stream.alloc_zeros(m * n)?,
                })
            })
            .collect::<Res<_>>()?;
        for &kind in kinds {
            let swiglu = kind.gated();
            let mut lt = match kind.lt() {
                Some(e) => Some(LtPlan::new(stream, dims, e, &bias)?),
                None => None,
            };
            fused(g, kind, &mut sets[0], &bias, dims)?;
            let y: Vec<bf16> = stream.clone_dtoh(&sets[0].y)?;
            let mut verdict = check(&y, kind, &hx, &hw, &hb, dims);
            if let Some(lt) = lt.as_mut() {
                let s0 = &mut sets[0];
                lt.run(&s0.x, &s0.w, &mut s0.y)?;
                let y: Vec<bf16> = stream.clone_dtoh(&sets[0].y)?;
                verdict += &format!(", Lt {}", check(&y, kind, &hx, &hw, &hb, dims));
            }
            let mut fused_f = |s: &mut Set| fused(g, kind, s, &bias, dims);
            let mut plain_f = |s: &mut Set| plain(g, s, dims);
            let mut unfused_f = |s: &mut Set| {
                plain(g, s, dims)?;
                if swiglu {
                    passes.swiglu(stream, &mut s.y, &s.h)
                } else {
                    passes.bias_act(stream, &mut s.h, &bias, n, kind.pass_act())
                }
            };
            let mut theirs_f = |s: &mut Set| match lt.as_mut() {
                Some(lt) => lt.run(&s.x, &s.w, &mut s.y),
                None => {
                    cublas(blas, Layout::Rm, &s.x, &s.w, &mut s.h, dims)?;
                    passes.swiglu(stream, &mut s.y, &s.h)
                }
            };
            let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
            for r in 0..rounds {
                let mut order: [usize; 4] = [0, 1, 2, 3];
                if r % 2 == 1 {
                    order.reverse();
                }
                for i in order {
                    let ms = match i {
                        0 => time_ms(stream, iters, false, &mut sets, &mut fused_f)?,
                        1 => time_ms(stream, iters, false, &mut sets, &mut plain_f)?,
                        2 => time_ms(stream, iters, false, &mut sets, &mut unfused_f)?,
                        _ => time_ms(stream, iters, false, &mut sets, &mut theirs_f)?,
                    };
                    t[i].push(ms * 1e3);
                }
            }
            let ratios: Vec<f32> = t[3].iter().zip(&t[0]).map(|(l, f)| l / f).collect();
            let [f, p, u, l] = t.map(median);
            println!(
                "{:>18} {:>9} {f:9.1} {p:9.1} {:6.1}% {u:9.1} {l:9.1} {:6.2}  {verdict}",
                format!("{m}x{n}x{k}"),
                kind.name(),
                100.0 * (f / p - 1.0),
                median(ratios),
            );
        }
    }
    Ok(())
}
