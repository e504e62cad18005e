// The floor under a memory-bound GEMM, timed the way `cargo bench --bench gemm` times
// kernels: how long a plain read of B (32 MiB for m x 4096 x 4096 bf16) takes on this GPU,
// launched 10 times back to back between CUDA events over buffers rotated beyond L2, as
// plain launches and as programmatic dependent launches (which may overlap the next
// launch's start with this one's drain), next to cuBLAS's 16 and 128 x 4096 x 4096 GEMMs
// (TN and NN) timed the same way.
// Build (here): nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 read_floor.cu
//               -L<toolchain>/nvidia/cu13/lib -cudart static -ldl -o read_floor
// Run (GPU):    FERROCUTE_CUBLAS=/path/libcublas.so.13 ./read_floor
#include "probe_timing.h"

int main() {
  uint32_t* out;
  CK(cudaMalloc(&out, 4));
  for (size_t mib : {32, 128}) {
    const size_t bytes = mib << 20;
    const int nbuf = int(std::max<size_t>(2, (160 << 20) / bytes + 1));
    std::vector<void*> bufs(nbuf);
    for (auto& b : bufs) {
      CK(cudaMalloc(&b, bytes));
      CK(cudaMemset(b, 1, bytes));
    }
    for (int ctas : {264, 528, 1056}) {
      const float us = time_us([&](int i) { read_all<<<ctas, 512>>>((const uint4*)bufs[i], bytes / 16, out); }, nbuf, 20);
      printf("read %3zu MiB, %4d x 512 threads: %7.2f us  %5.0f GB/s\n", mib, ctas, us, bytes / us / 1e3);
    }
    for (int ctas : {132, 264, 528}) {
      const float us = time_us([&](int i) { launch_read_pdl(ctas, bufs[i], bytes, out); }, nbuf, 20);
      printf("read %3zu MiB, %4d x 512 threads, programmatic: %7.2f us  %5.0f GB/s\n", mib, ctas, us,
             bytes / us / 1e3);
    }
    for (auto b : bufs) CK(cudaFree(b));
  }

  Cublas cublas;
  if (!cublas.load()) {
    printf("cuBLAS not loaded (set FERROCUTE_CUBLAS)\n");
    return 0;
  }
  const int n = 4096, k = 4096, max_m = 128;
  const size_t bbytes = size_t(n) * k * 2;
  const int nbuf = int((160 << 20) / bbytes + 1);
  std::vector<void*> bs(nbuf);
  for (auto& b : bs) {
    CK(cudaMalloc(&b, bbytes));
    CK(cudaMemset(b, 0x3c, bbytes));   // bf16 ~0.0115: finite values
  }
  void *a, *d;
  CK(cudaMalloc(&a, size_t(max_m) * k * 2));
  CK(cudaMemset(a, 0x3c, size_t(max_m) * k * 2));
  CK(cudaMalloc(&d, size_t(max_m) * n * 2));
  const float one = 1.f, zero = 0.f;
  for (int m : {16, 128}) {
    for (int tn = 1; tn >= 0; --tn) {
      // CUBLAS_OP_T = 1 / N = 0, CUDA_R_16BF = 14, CUBLAS_COMPUTE_32F = 68, default algo -1.
      const float us = time_us(
          [&](int i) {
            if (cublas.gemm(cublas.handle, tn, 0, m, n, k, &one, a, 14, tn ? k : m, bs[i], 14, k, &zero, d, 14, m, 68, -1))
              exit(1);
          },
          nbuf, 20);
      printf("cuBLAS %dx4096x4096 %s: %7.2f us  %5.0f GB/s\n", m, tn ? "TN" : "NN", us,
             (bbytes + 2.0 * m * k + 2.0 * m * n) / us / 1e3);
    }
  }
  return 0;
}
