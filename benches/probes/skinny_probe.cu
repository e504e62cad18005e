// Probe for the register-streaming kernel (sm90_skinny.cuh): where its 16 x 4096 x 4096 time
// goes against a plain read of B, timed like the bench, next to cuBLAS in one process.
// Each variant is the kernel's algorithm written without CuTe, with one knob changed; the
// "read" variants keep B's access pattern and drop A and the MMAs; with FERROCUTE_PRODUCT
// the crate's kernel itself runs beside them (BENCHMARKS.md, "The register-streaming kernel
// through L1, and an M-major A").
// Build (here): nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17
//               --expt-relaxed-constexpr -DNDEBUG -DFERROCUTE_PRODUCT -I<cutlass>/include
//               -I src/kernels -I<dir of the generated sm90_skinny_configs.h> skinny_probe.cu
//               -L<toolchain>/nvidia/cu13/lib -cudart static -ldl -o skinny_probe
// Run (GPU):    FERROCUTE_CUBLAS=/path/libcublas.so.13 ./skinny_probe
#ifdef FERROCUTE_PRODUCT
#include "sm90_skinny.cuh"
#include "sm90_skinny_configs.h"
#endif
#include <cuda_bf16.h>
#include <math.h>
#include <string.h>

#include <string>

#include "probe_timing.h"

template <int HINT>
__device__ __forceinline__ uint4 ld_stream(const void* p) {
  uint4 v;
  if constexpr (HINT == 256)
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else if constexpr (HINT == 128)
    asm volatile("ld.global.nc.L1::no_allocate.L2::128B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

template <bool CA_ = false>
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int bytes) {
  const uint32_t s = uint32_t(__cvta_generic_to_shared(dst));
  if constexpr (CA_)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(src), "r"(bytes));
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(src), "r"(bytes));
}

__device__ __forceinline__ void mma16816(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                         uint32_t a3, uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void prefetch_l2(const void* p, uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
}

// (k, m) chunk of 16 m per k: 16-byte units XORed with bits 3 and 4 of k, so that the
// rows k = c + {0, 1, 8, 9, 16, 17, 24, 25} of one ldmatrix land in distinct bank groups.
__device__ __forceinline__ int swz(int e) { return e ^ ((e >> 4) & 8) ^ ((e >> 3) & 32); }

__device__ __forceinline__ void ldsm_x4_trans(uint32_t (&r)[4], const void* p) {
  const uint32_t s = uint32_t(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
  uint32_t r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
  return r;
}

struct P {
  const __nv_bfloat16* a;
  const __nv_bfloat16* b;
  __nv_bfloat16* d;
  uint32_t* sink;
  int m, n, k, lda, ldb;
};

// MODE 0: read B only; 1: GEMM with K-major A; 2: GEMM with M-major A (LDS.32 + PRMT, rows
// of A paired); 3: GEMM with M-major A (ldmatrix.trans from a swizzled (k, m) chunk).
// NW warps split K; U steps of 32 k in flight; KCH k per A chunk; 8 * H rows of N per CTA;
// ROT: warps start at different chunks; HINT: L2 prefetch size; INTER: warps take chunks
// w, w + NW, ... instead of contiguous slices. FLAGS: CA A through L1 (cp.async.ca); ZS rows
// of A past M zeroed once instead of copied with zero bytes each chunk; MINB2 at most 128
// registers (two CTAs per SM); NOREFILL A staged for the first two chunks only (wrong
// results: isolates A's traffic); NOMMA LDS and loads kept, MMAs replaced by XOR.
// PF_SLICE each warp prefetches its K slice of its rows into L2 at the start (one bulk
// prefetch per row); PF_CTA thread 0 prefetches the CTA's rows (contiguous: ldb == K);
// PF_AHEAD every 4 chunks each row's next 4 chunks are prefetched (needs ROT = 0).
enum { CA = 1, ZS = 2, MINB2 = 4, NOREFILL = 8, NOMMA = 16, PF_SLICE = 32, PF_CTA = 64,
       PF_AHEAD = 128 };
template <int MODE, int NW, int U, int KCH, int H, int ROT, int HINT, int INTER, int FLAGS>
__global__ void __launch_bounds__(32 * NW, (FLAGS & MINB2) ? 2 : 1) skinny(P p) {
  constexpr int SPC = KCH / 32;
  constexpr int ROWS = 8 * H;
  constexpr int APITCH = KCH + 32;   // K-major chunk row pitch (elements)
  constexpr int ABUF = MODE == 2 ? KCH * 16 + (KCH / 8) * 16 : MODE == 3 ? KCH * 16 : 16 * APITCH;
  extern __shared__ __align__(128) uint8_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  __nv_bfloat16* abuf = reinterpret_cast<__nv_bfloat16*>(smem) + warp * 2 * ABUF;
  float* red = reinterpret_cast<float*>(smem + NW * 2 * ABUF * 2);   // (ROWS n, 16 m, NW)
  const int M = p.m, N = p.n, K = p.k;
  const int n0 = blockIdx.x * ROWS;

  int k0, k1, nchunks;
  if (INTER) {
    k0 = 0;
    k1 = K;
    nchunks = (K / KCH - warp + NW - 1) / NW;
  } else {
    const int kc = ((K + NW - 1) / NW + KCH - 1) / KCH * KCH;
    k0 = min(K, warp * kc);
    k1 = min(K, k0 + kc);
    nchunks = (k1 - k0 + KCH - 1) / KCH;
  }
  const int nsteps = nchunks * SPC;
  const int rot = ROT && nchunks > 0 ? int((blockIdx.x * 5u + warp * 3u) % unsigned(nchunks)) : 0;
  auto chunk_k = [&](int c) {
    c += rot;
    c = c >= nchunks ? c - nchunks : c;
    return INTER ? (c * NW + warp) * KCH : k0 + c * KCH;
  };

  const __nv_bfloat16* brow[H];
  bool bv[H];
#pragma unroll
  for (int h = 0; h < H; ++h) {
    brow[h] = p.b + int64_t(min(n0 + g + 8 * h, N - 1)) * p.ldb;
    bv[h] = n0 + g + 8 * h < N;
  }

  constexpr bool kCA = FLAGS & CA, kZS = FLAGS & ZS;
  if (MODE != 0 && kZS) {   // both buffers zero: rows (or halves) past M are never copied
    for (int i = lane; i < 2 * ABUF / 8; i += 32)
      reinterpret_cast<uint4*>(abuf)[i] = make_uint4(0, 0, 0, 0);
    __syncwarp();
  }
  auto stage_a = [&](int c) {
    if (MODE != 0 && c < nchunks && (!(FLAGS & NOREFILL) || c < 2)) {
      __nv_bfloat16* sA = abuf + (c & 1) * ABUF;
      const int kb = chunk_k(c);
      if (MODE == 1) {
#pragma unroll
        for (int i = lane; i < 16 * (KCH / 8); i += 32) {
          const int m = i / (KCH / 8), kk = 8 * (i % (KCH / 8));
          if (kZS) {
            if (m < M)
              cp_async_16<kCA>(sA + m * APITCH + kk, p.a + int64_t(m) * p.lda + min(kb + kk, k1 - 8),
                               kb + kk < k1 ? 16 : 0);
          } else {
            const bool ok = m < M && kb + kk < k1;
            cp_async_16<kCA>(sA + m * APITCH + kk, ok ? p.a + int64_t(m) * p.lda + kb + kk : p.a,
                             ok ? 16 : 0);
          }
        }
      } else {
#pragma unroll
        for (int i = lane; i < 2 * KCH; i += 32) {
          const int kk = i / 2, mh = 8 * (i % 2);
          const int bytes = kb + kk < k1 ? max(0, min(16, 2 * (M - mh))) : 0;
          const int dst = MODE == 3 ? swz(kk * 16 + mh) : kk * 16 + (kk / 8) * 16 + mh;
          if (kZS) {
            if (mh < M)
              cp_async_16<kCA>(sA + dst,
                               p.a + int64_t(min(kb + kk, k1 - 1)) * p.lda + mh, bytes);
          } else {
            cp_async_16<kCA>(sA + dst,
                             bytes ? p.a + int64_t(kb + kk) * p.lda + mh : p.a, bytes);
          }
        }
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  uint4 rb[H][U];
  auto load_b = [&](int t, int j) {
    const int k = chunk_k(t / SPC) + 32 * (t % SPC) + 8 * q;
    const bool in = t < nsteps && k < k1;
#pragma unroll
    for (int h = 0; h < H; ++h)
      rb[h][j] = in && bv[h] ? ld_stream<HINT>(brow[h] + k) : make_uint4(0, 0, 0, 0);
  };

  // Rows of this warp's prefetches: lane r < 16 takes row n0 + r (H = 2).
  const __nv_bfloat16* prow = p.b + int64_t(min(n0 + (lane & 15), N - 1)) * p.ldb;
  const bool pvalid = lane < 16 && n0 + lane < N;
  if ((FLAGS & PF_SLICE) && pvalid && k1 > k0) prefetch_l2(prow + k0, 2 * (k1 - k0));
  if ((FLAGS & PF_CTA) && threadIdx.x == 0)
    prefetch_l2(p.b + int64_t(n0) * p.ldb, 2 * uint32_t(min(ROWS, N - n0)) * p.ldb);
  auto prefetch_chunks = [&](int c0) {   // chunks [c0, c0 + 4) of this warp's rows
    if ((FLAGS & PF_AHEAD) && pvalid && c0 < nchunks) {
      const int ka = k0 + c0 * KCH, kb = min(k1, ka + 4 * KCH);
      prefetch_l2(prow + ka, 2 * (kb - ka));
    }
  };
  prefetch_chunks(0);
#pragma unroll
  for (int j = 0; j < U; ++j) load_b(j, j);
  stage_a(0);
  stage_a(1);

  float acc[H][4] = {};
  uint32_t x = 0;
  for (int t0 = 0; t0 < nsteps; t0 += U) {
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const int t = t0 + j;
      if (t >= nsteps) break;
      const int s = t % SPC;
      if (s == 0 && (t / SPC) % 4 == 0) prefetch_chunks(t / SPC + 4);
      uint4 cur[H];
#pragma unroll
      for (int h = 0; h < H; ++h) cur[h] = rb[h][j];
      if (MODE == 0) {
        load_b(t + U, j);
#pragma unroll
        for (int h = 0; h < H; ++h) x ^= cur[h].x ^ cur[h].y ^ cur[h].z ^ cur[h].w;
        continue;
      }
      if (s == 0) {
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        __syncwarp();
      }
      const __nv_bfloat16* sA = abuf + ((t / SPC) & 1) * ABUF;
      uint32_t a[2][4];
      if (MODE == 1) {
        const uint4 lo = *reinterpret_cast<const uint4*>(sA + g * APITCH + 32 * s + 8 * q);
        const uint4 hi = *reinterpret_cast<const uint4*>(sA + (g + 8) * APITCH + 32 * s + 8 * q);
        a[0][0] = lo.x; a[0][1] = hi.x; a[0][2] = lo.y; a[0][3] = hi.y;
        a[1][0] = lo.z; a[1][1] = hi.z; a[1][2] = lo.w; a[1][3] = hi.w;
      } else if (MODE == 3) {
        const int i = lane / 8, rho = lane % 8;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int kk = 32 * s + 8 * (rho / 2) + 4 * r + 2 * (i / 2) + rho % 2;
          ldsm_x4_trans(a[r], sA + swz(kk * 16 + 8 * (i % 2)));
        }
      } else {
        uint32_t w[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const int kk = 32 * s + 8 * q + i;
          w[i] = *reinterpret_cast<const uint32_t*>(sA + kk * 16 + (kk / 8) * 16 + 2 * g);
        }
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          a[r][0] = prmt(w[4 * r], w[4 * r + 1], 0x5410);
          a[r][1] = prmt(w[4 * r], w[4 * r + 1], 0x7632);
          a[r][2] = prmt(w[4 * r + 2], w[4 * r + 3], 0x5410);
          a[r][3] = prmt(w[4 * r + 2], w[4 * r + 3], 0x7632);
        }
      }
      load_b(t + U, j);
      if (FLAGS & NOMMA) {
#pragma unroll
        for (int h = 0; h < H; ++h)
          acc[h][0] += __uint_as_float((a[0][0] ^ a[0][1] ^ a[0][2] ^ a[0][3] ^ a[1][0] ^ a[1][1] ^
                                        a[1][2] ^ a[1][3] ^ cur[h].x ^ cur[h].y ^ cur[h].z ^
                                        cur[h].w) & 0x3f800000u);
      } else {
#pragma unroll
        for (int h = 0; h < H; ++h) {
          mma16816(acc[h], a[0][0], a[0][1], a[0][2], a[0][3], cur[h].x, cur[h].y);
          mma16816(acc[h], a[1][0], a[1][1], a[1][2], a[1][3], cur[h].z, cur[h].w);
        }
      }
      if (s == SPC - 1) {
        __syncwarp();
        stage_a(t / SPC + 2);
      }
    }
  }
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  if (MODE == 0) {
    if (x == 0x9e3779b9u) *p.sink = x;
    return;
  }
#pragma unroll
  for (int h = 0; h < H; ++h)
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const int m = MODE == 2 ? 2 * g + v / 2 : g + 8 * (v / 2);
      red[((8 * h + 2 * q + v % 2) * 16 + m) * NW + warp] = acc[h][v];
    }
  __syncthreads();
  for (int i = threadIdx.x; i < ROWS * 16; i += 32 * NW) {
    const int nl = i / 16, m = i % 16, n = n0 + nl;
    if (n >= N || m >= M) continue;
    float v = 0.f;
#pragma unroll
    for (int w = 0; w < NW; ++w) v += red[i * NW + w];
    p.d[int64_t(n) * M + m] = __float2bfloat16(v);
  }
}

__global__ void fill_random(__nv_bfloat16* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 0x9e3779b1u ^ seed;
    h ^= h >> 15;
    h *= 0x85ebca77u;
    h ^= h >> 13;
    p[i] = __float2bfloat16((h & 0xffff) / 32768.f - 1.f);
  }
}

struct Variant {
  std::string name;
  int mode, rows, threads, smem;
  void (*fn)(P);
  bool checked;
};

#ifdef FERROCUTE_PRODUCT
// The crate's kernel (sm90_skinny.cuh) itself, from this probe's parameters.
template <bool AM>
__global__ void __launch_bounds__(256) product(P p) {
  GemmParams g{};
  g.a = p.a;
  g.b = p.b;
  g.d = p.d;
  g.c = p.d;
  g.lda = p.lda;
  g.ldb = p.ldb;
  g.ldc = g.ldd = p.m;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.batch = 1;
  g.alpha = 1.f;
  g.beta = 0.f;
  ferrocute::skinny::skinny_kernel<SkinnyCfg_16_w8, cute::bfloat16_t, cute::bfloat16_t, 16, AM>(g);
}
template <bool AM>
static Variant make_product(const char* name) {
  const int smem = 8 * (2 * SkinnyCfg_16_w8::ABufElems * 2 + 16 * 20 * 4);
  CK(cudaFuncSetAttribute(product<AM>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  return Variant{name, AM ? 3 : 1, 16, 256, smem, product<AM>, true};
}
#endif

template <int MODE, int NW, int U, int KCH, int H, int ROT, int HINT, int INTER, int FLAGS = 0>
static Variant make(const char* name) {
  constexpr int ABUF = MODE == 2 ? KCH * 16 + (KCH / 8) * 16 : MODE == 3 ? KCH * 16 : 16 * (KCH + 32);
  // Read-only variants keep the GEMM's shared memory, so that occupancy matches.
  const int smem = NW * 2 * ABUF * 2 + 8 * H * 16 * NW * 4;
  auto fn = skinny<MODE, NW, U, KCH, H, ROT, HINT, INTER, FLAGS>;
  CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  return Variant{name, MODE, 8 * H, 32 * NW, smem, fn, !(FLAGS & (NOREFILL | NOMMA))};
}

int main() {
  Cublas cub;
  if (!cub.load()) {
    printf("cuBLAS not loaded (set FERROCUTE_CUBLAS)\n");
    return 1;
  }
  uint32_t* sink;
  CK(cudaMalloc(&sink, 4));

  std::vector<Variant> vs = {
      make<1, 8, 4, 128, 2, 1, 256, 0>("gemm TN kept (8w U4 c128 16r rot L2:256)"),
      make<1, 8, 4, 128, 2, 0, 256, 0, CA>("gemm TN ca norot"),
      make_product<false>("crate kernel kk"),
      make<3, 8, 4, 128, 2, 0, 256, 0, CA>("gemm NN ldsm.trans ca norot"),
      make_product<true>("crate kernel mk"),
      make<1, 8, 4, 128, 2, 0, 256, 0, CA>("gemm TN ca norot again"),
      make_product<false>("crate kernel kk again"),
  };

  struct Shape { int m, n, k; };
  for (Shape s : {Shape{16, 4096, 4096}, Shape{8, 4096, 4096}, Shape{16, 1024, 4096}, Shape{16, 8192, 8192}}) {
    const size_t bel = size_t(s.n) * s.k, bbytes = bel * 2;
    const int nbuf = int((200 << 20) / bbytes + 1);
    std::vector<__nv_bfloat16*> bs(nbuf);
    for (int i = 0; i < nbuf; ++i) {
      CK(cudaMalloc(&bs[i], bbytes));
      fill_random<<<1024, 256>>>(bs[i], bel, 1234u + i);
    }
    __nv_bfloat16 *aK, *aM, *d, *dref;
    CK(cudaMalloc(&aK, size_t(s.m) * s.k * 2));
    CK(cudaMalloc(&aM, size_t(s.m) * s.k * 2));
    fill_random<<<256, 256>>>(aK, size_t(s.m) * s.k, 77u);
    fill_random<<<256, 256>>>(aM, size_t(s.m) * s.k, 99u);
    CK(cudaMalloc(&d, size_t(s.m) * s.n * 2));
    CK(cudaMalloc(&dref, size_t(s.m) * s.n * 2));
    const float one = 1.f, zero = 0.f;
    auto cublas = [&](int tn, int i, __nv_bfloat16* out) {
      if (cub.gemm(cub.handle, tn, 0, s.m, s.n, s.k, &one, tn ? aK : aM, 14, tn ? s.k : s.m, bs[i], 14,
               s.k, &zero, out, 14, s.m, 68, -1))
        exit(1);
    };
    const double bytes = bbytes + 2.0 * s.m * s.k + 2.0 * s.m * s.n;
    const float cub_tn = time_us([&](int i) { cublas(1, i, d); }, nbuf, 30);
    const float cub_nn = time_us([&](int i) { cublas(0, i, d); }, nbuf, 30);
    const float flo = time_us(
        [&](int i) { read_all<<<528, 512>>>((const uint4*)bs[i], bbytes / 16, sink); }, nbuf, 30);
    printf("\n%dx%dx%d: cuBLAS TN %.2f us (%.0f GB/s), NN %.2f us (%.0f GB/s); read %.2f us\n",
           s.m, s.n, s.k, cub_tn, bytes / cub_tn / 1e3, cub_nn, bytes / cub_nn / 1e3, flo);
    std::vector<uint16_t> hd(size_t(s.m) * s.n), hr(size_t(s.m) * s.n);
    for (const Variant& v : vs) {
      const bool tn = v.mode < 2;
      P prm{tn ? aK : aM, bs[0], d, sink, s.m, s.n, s.k, tn ? s.k : s.m, s.k};
      const dim3 grid((s.n + v.rows - 1) / v.rows);
      const char* check = "";
      if (v.mode != 0 && v.checked) {
        CK(cudaMemset(d, 0xff, size_t(s.m) * s.n * 2));
        v.fn<<<grid, v.threads, v.smem>>>(prm);
        CK(cudaGetLastError());
        cublas(tn, 0, dref);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hd.data(), d, hd.size() * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hr.data(), dref, hr.size() * 2, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t i = 0; i < hd.size(); ++i) {
          auto f = [](uint16_t b) { uint32_t u = uint32_t(b) << 16; float x; memcpy(&x, &u, 4); return x; };
          const double e = fabs(double(f(hd[i])) - f(hr[i])) / (1.0 + fabs(f(hr[i])));
          worst = std::isnan(e) ? 1e9 : std::max(worst, e);
        }
        check = worst < 0.02 ? "ok" : "WRONG";
        if (worst >= 0.02) printf("  worst rel err %.3g\n", worst);
      }
      const float us = time_us(
          [&](int i) {
            prm.b = bs[i];
            v.fn<<<grid, v.threads, v.smem>>>(prm);
          },
          nbuf, 30);
      printf("  %-44s %7.2f us %5.0f GB/s  vs cuBLAS %s %.3f  %s\n", v.name.c_str(), us,
             bytes / us / 1e3, tn ? "TN" : "NN", (tn ? cub_tn : cub_nn) / us, check);
    }
    for (auto b : bs) CK(cudaFree(b));
    CK(cudaFree(aK));
    CK(cudaFree(aM));
    CK(cudaFree(d));
    CK(cudaFree(dref));
  }
  return 0;
}
