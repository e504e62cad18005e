//! The unfused alternative a fused epilogue is raced against: the plain GEMM, then a
//! separate element-wise pass over its output (compiled here with NVRTC, so the crate ships
//! no bench code). Both passes move 16 bytes per thread and iteration: bias + activation in
//! place on the row-major `m x n` output, and SwiGLU from the interleaved `m x 2I` product
//! (gate, up adjacent: one 32-bit pair per output) to the `m x I` result.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use half::bf16;

use crate::Res;

const PASS_SRC: &str = r#"
__device__ float bf(unsigned h) { return __uint_as_float(h << 16); }
__device__ unsigned tobf(float f) {
  unsigned u = __float_as_uint(f);
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
__device__ float silu(float x) { return x / (1.f + expf(-x)); }
__device__ float act(float x, int a) {
  if (a == 1) return x < 0.f ? 0.f : x;
  if (a == 2) return 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  return x;
}
// y (rows of n, n % 8 == 0) = act(y + bias[col]), 8 elements per uint4.
extern "C" __global__ void bias_act(uint4* y, const uint4* bias, unsigned long long n8_total,
                                    int n8, int a) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       i < n8_total; i += gridDim.x * (unsigned long long)blockDim.x) {
    uint4 v = y[i];
    const uint4 b = bias[i % n8];
    unsigned* pv = reinterpret_cast<unsigned*>(&v);
    const unsigned* pb = reinterpret_cast<const unsigned*>(&b);
    for (int j = 0; j < 4; ++j) {
      const float lo = act(bf(pv[j] & 0xffffu) + bf(pb[j] & 0xffffu), a);
      const float hi = act(bf(pv[j] >> 16) + bf(pb[j] >> 16), a);
      pv[j] = tobf(lo) | (tobf(hi) << 16);
    }
    y[i] = v;
  }
}
// out[i] = silu(h[2i]) * h[2i + 1], 4 outputs per uint4 of h.
extern "C" __global__ void swiglu(uint2* out, const uint4* h, unsigned long long n4_total) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       i < n4_total; i += gridDim.x * (unsigned long long)blockDim.x) {
    const uint4 v = h[i];
    const unsigned p[4] = {v.x, v.y, v.z, v.w};
    unsigned o[4];
    for (int j = 0; j < 4; ++j) o[j] = tobf(silu(bf(p[j] & 0xffffu)) * bf(p[j] >> 16));
    out[i] = make_uint2(o[0] | (o[1] << 16), o[2] | (o[3] << 16));
  }
}
"#;

/// The two passes, compiled once.
pub struct Passes {
    bias_act: CudaFunction,
    swiglu: CudaFunction,
    grid: u32,
}

impl Passes {
    pub fn new(stream: &Arc<CudaStream>, sms: u32) -> Res<Passes> {
        let ptx = cudarc::nvrtc::compile_ptx(PASS_SRC)?;
        let module = stream.context().load_module(ptx)?;
        Ok(Passes {
            bias_act: module.load_function("bias_act")?,
            swiglu: module.load_function("swiglu")?,
            grid: 4 * sms,
        })
    }

    fn cfg(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.grid, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// `y = act(y + bias)` over rows of `n` (`act`: 0 none, 1 ReLU, 2 GELU tanh).
    pub fn bias_act(
        &self,
        stream: &Arc<CudaStream>,
        y: &mut CudaSlice<bf16>,
        bias: &CudaSlice<bf16>,
        n: usize,
        act: i32,
    ) -> Res<()> {
        assert!(n.is_multiple_of(8) && y.len().is_multiple_of(n) && bias.len() >= n);
        let (total, n8) = ((y.len() / 8) as u64, (n / 8) as i32);
        let mut l = stream.launch_builder(&self.bias_act);
        l.arg(y).arg(bias).arg(&total).arg(&n8).arg(&act);
        // SAFETY: bias_act touches y.len() / 8 uint4s of y and n / 8 of bias, both within
        // the buffers (asserted above).
        unsafe { l.launch(self.cfg()) }?;
        Ok(())
    }

    /// `out[i] = silu(h[2i]) * h[2i + 1]`.
    pub fn swiglu(
        &self,
        stream: &Arc<CudaStream>,
        out: &mut CudaSlice<bf16>,
        h: &CudaSlice<bf16>,
    ) -> Res<()> {
        assert!(h.len().is_multiple_of(8) && out.len() * 2 >= h.len());
        let total = (h.len() / 8) as u64;
        let mut l = stream.launch_builder(&self.swiglu);
        l.arg(out).arg(h).arg(&total);
        // SAFETY: swiglu reads h.len() / 8 uint4s of h and writes as many uint2s of out,
        // which holds at least half of h's elements (asserted above).
        unsafe { l.launch(self.cfg()) }?;
        Ok(())
    }
}
