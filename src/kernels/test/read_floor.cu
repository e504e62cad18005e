// The floor under a memory-bound GEMM, timed the way `cargo bench --bench gemm` times
// kernels: how long a plain read of B (32 MiB for 16 x 4096 x 4096 bf16) takes on this GPU,
// launched 10 times back to back between CUDA events over buffers rotated beyond L2, next
// to cuBLAS's 16 x 4096 x 4096 GEMM (TN and NN) timed the same way.
// Build (here): nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 read_floor.cu
//               -cudart static -ldl -o read_floor
// Run (GPU):    FERROCUTE_CUBLAS=/path/libcublas.so.13 ./read_floor
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));    \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

// The load sm90_skinny.cuh streams B with (this probe builds without the CuTe headers).
__device__ __forceinline__ uint4 ld_stream(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Grid-stride read of n 16-byte words; the XOR keeps the loads alive.
__global__ void read_all(const uint4* __restrict__ p, size_t n, uint32_t* out) {
  uint32_t s = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = ld_stream(p + i);
    s ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x9e3779b9u) *out = s;
}

typedef int (*CublasCreateFn)(void**);
typedef int (*CublasGemmExFn)(void*, int, int, int, int, int, const void*, const void*, int, int,
                              const void*, int, int, const void*, void*, int, int, int, int);

// Median over 20 samples of (10 back-to-back launches) / 10, after 10 warm-up launches;
// launch(i) must use buffer set i % nbuf.
template <class F>
static float time_us(F&& launch, int nbuf) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int r = 0;
  for (int i = 0; i < 10; ++i) launch(r++ % nbuf);
  std::vector<float> v;
  for (int s = 0; s < 20; ++s) {
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 10; ++i) launch(r++ % nbuf);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    v.push_back(ms * 100.f);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

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
      const float us = time_us([&](int i) { read_all<<<ctas, 512>>>((const uint4*)bufs[i], bytes / 16, out); }, nbuf);
      printf("read %3zu MiB, %4d x 512 threads: %7.2f us  %5.0f GB/s\n", mib, ctas, us, bytes / us / 1e3);
    }
    for (auto b : bufs) CK(cudaFree(b));
  }

  const char* lib = getenv("FERROCUTE_CUBLAS");
  void* h = dlopen(lib ? lib : "libcublas.so.13", RTLD_NOW);
  CublasCreateFn create = h ? (CublasCreateFn)dlsym(h, "cublasCreate_v2") : nullptr;
  CublasGemmExFn gemm = h ? (CublasGemmExFn)dlsym(h, "cublasGemmEx") : nullptr;
  void* handle = nullptr;
  if (!create || !gemm || create(&handle) != 0) {
    printf("cuBLAS not loaded (set FERROCUTE_CUBLAS)\n");
    return 0;
  }
  const int m = 16, n = 4096, k = 4096;
  const size_t bbytes = size_t(n) * k * 2;
  const int nbuf = int((160 << 20) / bbytes + 1);
  std::vector<void*> bs(nbuf);
  for (auto& b : bs) {
    CK(cudaMalloc(&b, bbytes));
    CK(cudaMemset(b, 0x3c, bbytes));   // bf16 ~0.0115: finite values
  }
  void *a, *d;
  CK(cudaMalloc(&a, size_t(m) * k * 2));
  CK(cudaMemset(a, 0x3c, size_t(m) * k * 2));
  CK(cudaMalloc(&d, size_t(m) * n * 2));
  const float one = 1.f, zero = 0.f;
  for (int tn = 1; tn >= 0; --tn) {
    // CUBLAS_OP_T = 1 / N = 0, CUDA_R_16BF = 14, CUBLAS_COMPUTE_32F = 68, default algo -1.
    const float us = time_us(
        [&](int i) {
          if (gemm(handle, tn, 0, m, n, k, &one, a, 14, tn ? k : m, bs[i], 14, k, &zero, d, 14, m, 68, -1))
            exit(1);
        },
        nbuf);
    printf("cuBLAS 16x4096x4096 %s: %7.2f us  %5.0f GB/s\n", tn ? "TN" : "NN", us,
           (bbytes + 2.0 * m * k + 2.0 * m * n) / us / 1e3);
  }
  return 0;
}
