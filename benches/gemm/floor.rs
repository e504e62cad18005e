//! What a memory-bound GEMM is compared with: the device-to-device copy bandwidth, and the
//! read floor, the time a plain read of the same weight bytes takes when timed like the
//! GEMMs (`benches/probes/read_floor.cu` measures the same; its kernel is compiled here at
//! run time with NVRTC, so that the crate ships no bench code).

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use half::bf16;

use crate::timing::time_ms;
use crate::Res;

/// Device-to-device copy bandwidth (bytes read + bytes written per second) over 256 MiB
/// buffers: the ceiling a memory-bound GEMM is compared with.
pub fn copy_gbs(stream: &Arc<CudaStream>, iters: usize) -> Res<f64> {
    const BYTES: usize = 256 << 20;
    let src = stream.alloc_zeros::<u8>(BYTES)?;
    let dst = stream.alloc_zeros::<u8>(BYTES)?;
    let mut sets = [(src, dst)];
    let t = time_ms(stream, iters, false, &mut sets, |(src, dst)| {
        stream.memcpy_dtod(src, dst)?;
        Ok(())
    })?;
    Ok(2.0 * BYTES as f64 / (t as f64 * 1e-3) / 1e9)
}

const READ_SRC: &str = r#"
extern "C" __global__ void read_all(const uint4* __restrict__ p, unsigned long long n16,
                                    unsigned* out) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n16;
       i += gridDim.x * blockDim.x) {
    const uint4 v = __ldg(p + i);
    acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
  }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u) *out = 1;
}
"#;

/// The read kernel, compiled once.
pub struct ReadFloor {
    func: CudaFunction,
    sink: CudaSlice<u32>,
}

impl ReadFloor {
    pub fn new(stream: &Arc<CudaStream>) -> Res<ReadFloor> {
        let ptx = cudarc::nvrtc::compile_ptx(READ_SRC)?;
        let module = stream.context().load_module(ptx)?;
        Ok(ReadFloor {
            func: module.load_function("read_all")?,
            sink: stream.alloc_zeros(1)?,
        })
    }

    /// The shortest median time (ms) of reading each of `bufs` whole, over 2, 4 and 8
    /// CTAs of 512 threads per SM.
    pub fn time_ms(
        &mut self,
        stream: &Arc<CudaStream>,
        sms: u32,
        iters: usize,
        bufs: &mut [CudaSlice<bf16>],
    ) -> Res<f32> {
        let mut best = f32::INFINITY;
        for per_sm in [2, 4, 8] {
            let cfg = LaunchConfig {
                grid_dim: (per_sm * sms, 1, 1),
                block_dim: (512, 1, 1),
                shared_mem_bytes: 0,
            };
            let (func, sink) = (&self.func, &mut self.sink);
            let t = time_ms(stream, iters, false, bufs, |b| {
                let n16 = (b.len() * 2 / 16) as u64;
                let mut launch = stream.launch_builder(func);
                launch.arg(&*b).arg(&n16).arg(&mut *sink);
                // SAFETY: read_all reads n16 16-byte words of b (its length rounded down)
                // and writes at most one u32 of sink.
                unsafe { launch.launch(cfg) }?;
                Ok(())
            })?;
            best = best.min(t);
        }
        Ok(best)
    }
}
