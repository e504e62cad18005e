// What the standalone GPU probes (read_floor.cu, skinny_probe.cu) share: error checks, the
// bench's timing, cuBLAS loaded at run time, and a plain grid-stride read (the floor).
#pragma once
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

// The load sm90_skinny.cuh streams B with.
__device__ __forceinline__ uint4 ld_stream_256(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Grid-stride read of n 16-byte words; the XOR keeps the loads alive.
__device__ __forceinline__ void read_words(const uint4* __restrict__ p, size_t n, uint32_t* out) {
  uint32_t s = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = ld_stream_256(p + i);
    s ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x9e3779b9u) *out = s;
}

__global__ void read_all(const uint4* __restrict__ p, size_t n, uint32_t* out) {
  read_words(p, n, out);
}

// The same read as a programmatic dependent launch, as the split-K and register-streaming
// kernels go: the next launch's CTAs may start while this one drains, and wait for it
// before their first load.
__global__ void read_all_pdl(const uint4* __restrict__ p, size_t n, uint32_t* out) {
  asm volatile("griddepcontrol.launch_dependents;");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  read_words(p, n, out);
}

// Launches read_all_pdl with programmatic stream serialization on the legacy stream.
static void launch_read_pdl(int ctas, const void* p, size_t bytes, uint32_t* out) {
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(ctas);
  cfg.blockDim = dim3(512);
  cfg.attrs = at;
  cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, read_all_pdl, (const uint4*)p, bytes / 16, out));
}

// cublasGemmEx from the library in FERROCUTE_CUBLAS (default libcublas.so.13), or nothing.
struct Cublas {
  typedef int (*CreateFn)(void**);
  typedef int (*GemmExFn)(void*, int, int, int, int, int, const void*, const void*, int, int,
                          const void*, int, int, const void*, void*, int, int, int, int);
  GemmExFn gemm = nullptr;
  void* handle = nullptr;

  bool load() {
    const char* lib = getenv("FERROCUTE_CUBLAS");
    void* h = dlopen(lib ? lib : "libcublas.so.13", RTLD_NOW);
    CreateFn create = h ? (CreateFn)dlsym(h, "cublasCreate_v2") : nullptr;
    gemm = h ? (GemmExFn)dlsym(h, "cublasGemmEx") : nullptr;
    return create && gemm && create(&handle) == 0;
  }
};

// Timed like `cargo bench --bench gemm`: 10 warm-up launches, then the median over `samples`
// samples of (10 back-to-back launches between CUDA events) / 10, in µs; launch(i) must use
// buffer set i % nbuf.
template <class F>
static float time_us(F&& launch, int nbuf, int samples) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int r = 0;
  for (int i = 0; i < 10; ++i) launch(r++ % nbuf);
  std::vector<float> v;
  for (int s = 0; s < samples; ++s) {
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 10; ++i) launch(r++ % nbuf);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    v.push_back(ms * 100.f);
  }
  CK(cudaGetLastError());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
