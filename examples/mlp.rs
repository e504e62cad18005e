//! A transformer MLP block on ferrocute's fused epilogues, in PyTorch's `nn.Linear` layout
//! (activations `[tokens, features]` row-major, weights `[out, in]` row-major):
//!
//! ```text
//! GELU:    y = x + (gelu(x W_upᵀ + b_up)) W_downᵀ + b_down
//! SwiGLU:  y = x + (silu(x W_gateᵀ) * (x W_upᵀ)) W_downᵀ + b_down
//! ```
//!
//! Two GEMMs per block and no other kernel: the first applies bias and GELU (or the SwiGLU
//! gate over W_gate and W_up interleaved at load time by `interleave_gate_up`, row 2j of the
//! fused weight W_gate's row j and row 2j + 1 W_up's), the second adds its bias and the
//! residual (`beta = 1` over an output pre-filled with x). Checked against an f64 CPU computation of the same bf16 inputs, the
//! hidden activation rounded to bf16 as the GPU stores it.
//!
//! `cargo run --release --example mlp`; without a GPU it says so and skips the GPU run.

use ferrocute::cudarc::driver::CudaSlice;
use ferrocute::gemm::{
    interleave_gate_up, Activation, Epilogue, Gemm, MatMut, MatRef, Order, Vector,
};
use ferrocute::half::bf16;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// One MLP block's weights, on the host and the device.
struct Mlp {
    d_model: usize,
    d_ff: usize,
    swiglu: bool,
    /// `[d_ff, d_model]`: W_up (GELU) or W_gate (SwiGLU), as a checkpoint stores them.
    w_in: Vec<bf16>,
    /// SwiGLU's W_up, `[d_ff, d_model]` (empty for GELU).
    w_up: Vec<bf16>,
    b_in: Vec<bf16>,
    /// `[d_model, d_ff]`.
    w_down: Vec<bf16>,
    b_down: Vec<bf16>,
}

fn values(len: usize, seed: usize, scale: f32) -> Vec<bf16> {
    (0..len)
        .map(|i| bf16::from_f32((((i + seed) * 7919 % 1013) as f32 / 1013.0 - 0.5) * scale))
        .collect()
}

impl Mlp {
    fn new(d_model: usize, d_ff: usize, swiglu: bool) -> Mlp {
        let w = |seed| values(d_ff * d_model, seed, 4.0 / (d_model as f32).sqrt());
        Mlp {
            d_model,
            d_ff,
            swiglu,
            w_in: w(1),
            w_up: if swiglu { w(6) } else { Vec::new() },
            b_in: if swiglu {
                Vec::new()
            } else {
                values(d_ff, 2, 0.5)
            },
            w_down: values(d_model * d_ff, 3, 4.0 / (d_ff as f32).sqrt()),
            b_down: values(d_model, 4, 0.5),
        }
    }

    /// The block on the GPU: two fused GEMMs.
    fn forward_gpu(&self, gemm: &Gemm, hx: &[bf16], tokens: usize) -> Res<Vec<bf16>> {
        let s = gemm.stream();
        let (d, f) = (self.d_model, self.d_ff);
        let rows_in = if self.swiglu { 2 * f } else { f };
        let x = s.clone_htod(hx)?;
        // SwiGLU's gate and up weights as one [2 d_ff, d_model] weight, rows interleaved.
        let w_in = if self.swiglu {
            s.clone_htod(&interleave_gate_up(&self.w_in, &self.w_up, d)?)?
        } else {
            s.clone_htod(&self.w_in)?
        };
        let w_down = s.clone_htod(&self.w_down)?;
        let b_down = s.clone_htod(&self.b_down)?;
        let mut h: CudaSlice<bf16> = s.alloc_zeros(tokens * f)?;
        // h = act(x W_inᵀ + b_in): [tokens, d_ff].
        let b_in;
        let first = if self.swiglu {
            Epilogue::new().activation(Activation::SwiGlu)
        } else {
            b_in = s.clone_htod(&self.b_in)?;
            Epilogue::new()
                .activation(Activation::GeluTanh)
                .bias(Vector::cols(&b_in))
        };
        gemm.gemm_with(
            1.0,
            &MatRef::new(&x, tokens, d, Order::RowMajor),
            &MatRef::new(&w_in, rows_in, d, Order::RowMajor).t(),
            0.0,
            &mut MatMut::new(&mut h, tokens, f, Order::RowMajor),
            &first,
        )?;
        // y = h W_downᵀ + b_down + x: the residual is C (beta = 1), pre-filled with x.
        let mut y = s.clone_htod(hx)?;
        gemm.gemm_with(
            1.0,
            &MatRef::new(&h, tokens, f, Order::RowMajor),
            &MatRef::new(&w_down, d, f, Order::RowMajor).t(),
            1.0,
            &mut MatMut::new(&mut y, tokens, d, Order::RowMajor),
            &Epilogue::new().bias(Vector::cols(&b_down)),
        )?;
        Ok(s.clone_dtoh(&y)?)
    }

    /// The block in f64, with the hidden activation rounded to bf16 like the GPU's `h`.
    fn forward_cpu(&self, hx: &[bf16], tokens: usize) -> Vec<f64> {
        let (d, f) = (self.d_model, self.d_ff);
        let dot = |w: &[bf16], row: usize, x: &[f64]| -> f64 {
            x.iter()
                .enumerate()
                .map(|(i, xi)| xi * w[row * x.len() + i].to_f64())
                .sum()
        };
        let gelu = |x: f64| {
            0.5 * x
                * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3))).tanh())
        };
        let silu = |x: f64| x / (1.0 + (-x).exp());
        let mut y = Vec::with_capacity(tokens * d);
        for t in 0..tokens {
            let x: Vec<f64> = hx[t * d..(t + 1) * d].iter().map(|v| v.to_f64()).collect();
            let h: Vec<f64> = (0..f)
                .map(|j| {
                    let v = if self.swiglu {
                        silu(dot(&self.w_in, j, &x)) * dot(&self.w_up, j, &x)
                    } else {
                        gelu(dot(&self.w_in, j, &x) + self.b_in[j].to_f64())
                    };
                    bf16::from_f64(v).to_f64()
                })
                .collect();
            for (o, xo) in x.iter().enumerate() {
                y.push(xo + dot(&self.w_down, o, &h) + self.b_down[o].to_f64());
            }
        }
        y
    }
}

fn main() {
    if let Err(e) = run() {
        println!("mlp example failed: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    let gemm = match Gemm::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no CUDA GPU available ({e}): skipped the GPU run of the MLP block");
            return Ok(());
        }
    };
    let (d_model, d_ff) = (512, 1408);
    for swiglu in [false, true] {
        let mlp = Mlp::new(d_model, d_ff, swiglu);
        for tokens in [1, 16, 300] {
            let hx = values(tokens * d_model, 5 + tokens, 2.0);
            let got = mlp.forward_gpu(&gemm, &hx, tokens)?;
            let want = mlp.forward_cpu(&hx, tokens);
            let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
            let max_err = got
                .iter()
                .zip(&want)
                .map(|(g, w)| (g.to_f64() - w).abs() / (w.abs() + rms))
                .fold(0.0, f64::max);
            // bf16 output (2^-8 relative) plus the bf16 hidden activation's rounding, which
            // the GPU and the reference may do on either side of a tie.
            let ok = max_err < 2.0e-2;
            println!(
                "{} MLP, {tokens} tokens, {d_model} -> {d_ff} -> {d_model}: max |GPU - CPU| / (|CPU| + rms) = {max_err:.1e} -> {}",
                if swiglu { "SwiGLU" } else { "GELU" },
                if ok { "OK" } else { "MISMATCH" }
            );
            if !ok {
                return Err("MLP block mismatch".into());
            }
        }
    }
    Ok(())
}
