//! "Another app" using ferrocute as its GEMM backend: the forward pass of a
//! linear layer `Y = X W^T + b` (PyTorch's `nn.Linear` layout), the bias added by the
//! kernel's fused epilogue (`examples/mlp.rs` adds activations and a residual).
//! Checked against a CPU computation.
//!
//! `cargo run --example backend`; prints a reason and exits 0 without a GPU.

use ferrocute::gemm::{Epilogue, Gemm, MatMut, MatRef, Order, Vector};
use ferrocute::half::bf16;

/// A linear layer whose weights live on the GPU.
struct Linear {
    w: ferrocute::cudarc::driver::CudaSlice<bf16>, // [out, in], row-major
    bias: ferrocute::cudarc::driver::CudaSlice<f32>,
    d_in: usize,
    d_out: usize,
}

impl Linear {
    fn forward(
        &self,
        gemm: &Gemm,
        x: &ferrocute::cudarc::driver::CudaSlice<bf16>, // [batch, in], row-major
        batch: usize,
    ) -> Result<ferrocute::cudarc::driver::CudaSlice<f32>, Box<dyn std::error::Error>> {
        let mut y = gemm.stream().alloc_zeros::<f32>(batch * self.d_out)?; // [batch, out], row-major
        gemm.gemm_with(
            1.0,
            &MatRef::new(x, batch, self.d_in, Order::RowMajor),
            // W is [out, in] row-major; W^T is [in, out].
            &MatRef::new(&self.w, self.d_out, self.d_in, Order::RowMajor).t(),
            0.0,
            &mut MatMut::new(&mut y, batch, self.d_out, Order::RowMajor),
            // One bias element per output feature: per column of Y.
            &Epilogue::new().bias(Vector::cols(&self.bias)),
        )?;
        Ok(y)
    }
}

fn main() {
    if let Err(e) = run() {
        println!("backend example failed: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let gemm = match Gemm::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no CUDA GPU available ({e}); nothing to do");
            return Ok(());
        }
    };
    let (batch, d_in, d_out) = (64, 256, 96);
    let val = |i: usize, scale: f32| ((i * 7919 % 97) as f32 / 97.0 - 0.5) * scale;
    let hx: Vec<bf16> = (0..batch * d_in)
        .map(|i| bf16::from_f32(val(i, 2.0)))
        .collect();
    let hw: Vec<bf16> = (0..d_out * d_in)
        .map(|i| bf16::from_f32(val(i + 3, 0.2)))
        .collect();
    let bias: Vec<f32> = (0..d_out).map(|i| val(i, 1.0)).collect();
    let s = gemm.stream();
    let layer = Linear {
        w: s.clone_htod(&hw)?,
        bias: s.clone_htod(&bias)?,
        d_in,
        d_out,
    };
    let x = s.clone_htod(&hx)?;
    let y = layer.forward(&gemm, &x, batch)?;
    let hy: Vec<f32> = s.clone_dtoh(&y)?;
    let mut max_err = 0.0f64;
    for r in 0..batch {
        for o in 0..d_out {
            let mut acc = bias[o] as f64;
            for i in 0..d_in {
                acc += hx[r * d_in + i].to_f64() * hw[o * d_in + i].to_f64();
            }
            max_err = max_err.max((acc - hy[r * d_out + o] as f64).abs());
        }
    }
    let ok = max_err < 1e-3;
    println!(
        "linear {batch}x{d_in} -> {d_out}: max |GPU - CPU| = {max_err:.2e} -> {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        return Err("result mismatch".into());
    }
    Ok(())
}
