// Standalone correctness + timing test for src/kernels/sm80_gemm.cu (all entry points).
//
// Build (no GPU needed; output is git-ignored):
//   mkdir -p .gpu-kernels && nvcc -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr \
//     -gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_80,code=compute_80 \
//     -I<cutlass>/include -Isrc/kernels -cudart static \
//     src/kernels/test/sm80_selftest.cu -o .gpu-kernels/sm80_selftest -ldl -lpthread -lrt
// Run: .gpu-kernels/sm80_selftest [--quick] [--no-perf] [--perf-only]
//   exit status 0 iff every check passed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <string>
#include <algorithm>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../sm80_gemm.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); exit(2); } } while (0)

enum { T_BF16 = 0, T_F16 = 1, T_F32 = 2 };
static const char* tname[] = {"bf16", "f16", "f32"};
static int tbytes(int t) { return t == T_F32 ? 4 : 2; }

struct Kern {
  std::string cfg; char am, bm; int in, out;
  void (*fn)(GemmParams);
  int BM, BN, threads, smem; bool simple;
};
static std::vector<Kern> g_kerns;

#define TT_bf16 T_BF16
#define TT_f16 T_F16
#define TT_f32 T_F32
#define REG_SM80(CFG, cfg, am, bm, in, out) \
  g_kerns.push_back(Kern{#cfg, #am[0], #bm[0], TT_##in, TT_##out, ferrocute_##cfg##_##am##bm##_##in##_##out, \
    int(cute::size<0>(typename CFG::TileShape{})), int(cute::size<1>(typename CFG::TileShape{})), CFG::Threads, \
    ferrocute::smem_bytes<CFG>(2), false});
#define REG_SM80_OUTS(CFG, cfg, am, bm, in) REG_SM80(CFG,cfg,am,bm,in,bf16) REG_SM80(CFG,cfg,am,bm,in,f16) REG_SM80(CFG,cfg,am,bm,in,f32)
#define REG_SM80_INS(CFG, cfg, am, bm) REG_SM80_OUTS(CFG,cfg,am,bm,bf16) REG_SM80_OUTS(CFG,cfg,am,bm,f16)
#define REG_SM80_CFG(CFG, cfg) REG_SM80_INS(CFG,cfg,k,k) REG_SM80_INS(CFG,cfg,k,n) REG_SM80_INS(CFG,cfg,m,k) REG_SM80_INS(CFG,cfg,m,n)
#define REG_SIMPLE(am, bm, in, out) \
  g_kerns.push_back(Kern{"gemm_simple", #am[0], #bm[0], TT_##in, TT_##out, ferrocute_gemm_simple_##am##bm##_##in##_##out, 64, 64, 256, 0, true});
#define REG_SIMPLE_OUTS(am, bm, in) REG_SIMPLE(am,bm,in,bf16) REG_SIMPLE(am,bm,in,f16) REG_SIMPLE(am,bm,in,f32)
#define REG_SIMPLE_INS(am, bm) REG_SIMPLE_OUTS(am,bm,bf16) REG_SIMPLE_OUTS(am,bm,f16)

static void register_all() {
  FERROCUTE_SM80_CONFIGS(REG_SM80_CFG)
  REG_SIMPLE_INS(k, k) REG_SIMPLE_INS(k, n) REG_SIMPLE_INS(m, k) REG_SIMPLE_INS(m, n)
}
static const Kern& find(const std::string& cfg, char am, char bm, int in, int out) {
  for (auto& k : g_kerns) if (k.cfg == cfg && k.am == am && k.bm == bm && k.in == in && k.out == out) return k;
  fprintf(stderr, "kernel not found\n"); exit(2);
}

static void launch(const Kern& k, const GemmParams& p, cudaStream_t s = 0) {
  if (k.simple) {
    dim3 grid((p.m + 63) / 64, (p.n + 63) / 64, p.batch);
    k.fn<<<grid, 256, 0, s>>>(p);
  } else {
    dim3 grid(((p.m + k.BM - 1) / k.BM) * ((p.n + k.BN - 1) / k.BN), 1, p.batch);
    k.fn<<<grid, k.threads, k.smem, s>>>(p);
  }
}

// ---------------- device helpers ----------------
__device__ __forceinline__ uint32_t hash32(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return uint32_t(x);
}
__global__ void fill_rand(void* ptr, int64_t n, int type, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    float v = (hash32(seed * 0x9E3779B97F4A7C15ULL + i) & 0xFFFF) / 32768.0f - 1.0f;
    if (type == T_BF16) ((__nv_bfloat16*)ptr)[i] = __float2bfloat16(v);
    else if (type == T_F16) ((__half*)ptr)[i] = __float2half(v);
    else ((float*)ptr)[i] = v;
  }
}
__device__ __forceinline__ float ldf(const void* p, int64_t i, int t) {
  if (t == T_BF16) return __bfloat162float(((const __nv_bfloat16*)p)[i]);
  if (t == T_F16) return __half2float(((const __half*)p)[i]);
  return ((const float*)p)[i];
}
// ref(m,n,l) = alpha*sum_k A*B + beta*C ; absref = |alpha|*sum|A*B| + |beta*C|  (dense (M,N,L))
__global__ void ref_gemm(GemmParams p, bool akm, bool bkm, int tin, int tout, float* ref, float* absref) {
  int m = blockIdx.x * blockDim.x + threadIdx.x, n = blockIdx.y * blockDim.y + threadIdx.y;
  int64_t l = blockIdx.z;
  if (m >= p.m || n >= p.n) return;
  int64_t ab = l * p.batch_stride_a, bb = l * p.batch_stride_b;
  float s = 0.f, sa = 0.f;
  for (int k = 0; k < p.k; ++k) {
    float a = ldf(p.a, ab + (akm ? int64_t(m) * p.lda + k : m + int64_t(k) * p.lda), tin);
    float b = ldf(p.b, bb + (bkm ? int64_t(n) * p.ldb + k : n + int64_t(k) * p.ldb), tin);
    s = fmaf(a, b, s); sa += fabsf(a * b);
  }
  float r = p.alpha * s, ra = fabsf(p.alpha) * sa;
  if (p.beta != 0.f) {
    float c = p.beta * ldf(p.c, l * p.batch_stride_c + m + int64_t(n) * p.ldc, tout);
    r += c; ra += fabsf(c);
  }
  int64_t o = (l * p.n + n) * int64_t(p.m) + m;
  ref[o] = r; absref[o] = ra;
}

// ---------------- host side ----------------
static float h2f(const unsigned char* p, int t) {
  if (t == T_F32) { float f; memcpy(&f, p, 4); return f; }
  uint16_t u; memcpy(&u, p, 2);
  if (t == T_BF16) { uint32_t x = uint32_t(u) << 16; float f; memcpy(&f, &x, 4); return f; }
  __half_raw hr; hr.x = u; return __half2float(__half(hr));
}

struct Stats { int runs = 0, fails = 0; double max_err = 0; };
static std::vector<std::pair<std::string, Stats>> g_stats;
static Stats& stats_for(const std::string& key) {
  for (auto& s : g_stats) if (s.first == key) return s.second;
  g_stats.push_back({key, Stats{}});
  return g_stats.back().second;
}
static int g_fail_prints = 0;
static uint64_t g_seed = 1;

static void* dalloc(size_t bytes) { void* p; CK(cudaMalloc(&p, bytes < 16 ? 16 : bytes)); return p; }
static void drand(void* p, int64_t n, int t) {
  if (n <= 0) return;
  fill_rand<<<1024, 256>>>(p, n, t, g_seed++);
  CK(cudaGetLastError());
}

// One test case. misalign: (simple kernel only) odd leading dims and 1-element base offsets.
static bool run_case(const Kern& kr, int M, int N, int K, int L, float alpha, float beta,
                     bool misalign, bool null_c = false) {
  bool akm = kr.am == 'k', bkm = kr.bm == 'k';
  int ei = 2, eo = tbytes(kr.out);
  auto r8 = [](int64_t x) { return (x + 7) / 8 * 8; };
  int64_t a_contig = akm ? K : M, a_other = akm ? M : K;
  int64_t b_contig = bkm ? K : N, b_other = bkm ? N : K;
  int64_t lda = misalign ? a_contig + 3 : r8(a_contig) + 8;
  int64_t ldb = misalign ? b_contig + 5 : r8(b_contig) + 16;
  int64_t ldc = M + 3, ldd = M + 5;
  int64_t off = misalign ? 1 : 0;
  int64_t sa = r8(lda * a_other) + 8, sb = r8(ldb * b_other) + 24;
  int64_t sc = ldc * N + 2, sd = ldd * N + 4;
  char* A = (char*)dalloc((sa * L + off) * ei);
  char* B = (char*)dalloc((sb * L + off) * ei);
  char* Cb = (char*)dalloc((sc * L + off) * eo);
  char* D = (char*)dalloc((sd * L + off) * eo);
  drand(A, sa * L + off, kr.in);
  drand(B, sb * L + off, kr.in);
  if (beta != 0.f) drand(Cb, sc * L + off, kr.out);
  else CK(cudaMemset(Cb, 0xFF, (sc * L + off) * eo));   // NaN: reading C when beta==0 shows up
  CK(cudaMemset(D, 0xFF, (sd * L + off) * eo));          // poison
  GemmParams p{};
  p.a = A + off * ei; p.b = B + off * ei; p.c = null_c ? nullptr : Cb + off * eo; p.d = D + off * eo;
  p.lda = lda; p.ldb = ldb; p.ldc = ldc; p.ldd = ldd;
  p.batch_stride_a = sa; p.batch_stride_b = sb; p.batch_stride_c = sc; p.batch_stride_d = sd;
  p.m = M; p.n = N; p.k = K; p.batch = L; p.alpha = alpha; p.beta = beta;
  float *ref = (float*)dalloc(sizeof(float) * M * N * L), *aref = (float*)dalloc(sizeof(float) * M * N * L);
  launch(kr, p);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  GemmParams pr = p; pr.c = Cb + off * eo;
  ref_gemm<<<dim3((M + 15) / 16, (N + 15) / 16, L), dim3(16, 16)>>>(pr, akm, bkm, kr.in, kr.out, ref, aref);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<unsigned char> hd((sd * L + off) * eo);
  std::vector<float> hr(size_t(M) * N * L), ha(size_t(M) * N * L);
  CK(cudaMemcpy(hd.data(), D, hd.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), ref, hr.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ha.data(), aref, ha.size() * 4, cudaMemcpyDeviceToHost));
  double out_eps = kr.out == T_BF16 ? 1.0 / 256 : kr.out == T_F16 ? 1.0 / 1024 : 0.0;
  double acc_eps = 2e-6 * std::max(1.0, std::sqrt((double)K)) + 1e-6;
  int64_t bad = 0, bad_pad = 0; double max_err = 0;
  int64_t first_bad_m = -1, first_bad_n = -1, first_bad_l = -1; float fb_got = 0, fb_ref = 0;
  for (int l = 0; l < L; ++l)
    for (int n = 0; n < N; ++n) {
      for (int64_t m = 0; m < ldd; ++m) {
        const unsigned char* e = &hd[(off + l * sd + m + int64_t(n) * ldd) * eo];
        if (m >= M) {   // padding rows must stay poisoned
          for (int b = 0; b < eo; ++b) if (e[b] != 0xFF) { ++bad_pad; break; }
          continue;
        }
        size_t o = (size_t(l) * N + n) * M + m;
        float got = h2f(e, kr.out), want = hr[o];
        double err = std::fabs(double(got) - want);
        double tol = out_eps * std::fabs(want) + acc_eps * ha[o] + 1e-6;
        double rel = err / (ha[o] + 1e-6);
        if (!(err <= tol)) {
          if (bad == 0) { first_bad_m = m; first_bad_n = n; first_bad_l = l; fb_got = got; fb_ref = want; }
          ++bad;
        } else if (rel > max_err) max_err = rel;
      }
    }
  bool ok = bad == 0 && bad_pad == 0;
  char key[160];
  snprintf(key, sizeof key, "%-20s %c%c %-4s->%-4s", kr.cfg.c_str(), kr.am, kr.bm, tname[kr.in], tname[kr.out]);
  Stats& st = stats_for(key);
  st.runs++; if (!ok) st.fails++; st.max_err = std::max(st.max_err, max_err);
  if (!ok && g_fail_prints++ < 40)
    printf("FAIL %s M=%d N=%d K=%d L=%d beta=%g%s%s: %lld bad (first m=%lld n=%lld l=%lld got %g want %g), %lld pad clobbered\n",
           key, M, N, K, L, beta, misalign ? " misaligned" : "", null_c ? " c=null" : "", (long long)bad,
           (long long)first_bad_m, (long long)first_bad_n, (long long)first_bad_l, fb_got, fb_ref, (long long)bad_pad);
  CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(Cb)); CK(cudaFree(D)); CK(cudaFree(ref)); CK(cudaFree(aref));
  return ok;
}

struct Perf { std::string name; int M, N, K; double ms, tflops; };

static Perf time_case(const Kern& kr, int M, int N, int K) {
  bool akm = kr.am == 'k', bkm = kr.bm == 'k';
  int eo = tbytes(kr.out);
  int64_t lda = akm ? K : M, ldb = bkm ? K : N;
  void* A = dalloc(size_t(M) * K * 2); void* B = dalloc(size_t(N) * K * 2); void* D = dalloc(size_t(M) * N * eo);
  drand(A, int64_t(M) * K, kr.in); drand(B, int64_t(N) * K, kr.in);
  GemmParams p{};
  p.a = A; p.b = B; p.c = nullptr; p.d = D; p.lda = lda; p.ldb = ldb; p.ldc = M; p.ldd = M;
  p.m = M; p.n = N; p.k = K; p.batch = 1; p.alpha = 1.f; p.beta = 0.f;
  for (int i = 0; i < 3; ++i) launch(kr, p);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int i = 0; i < 20; ++i) {
    CK(cudaEventRecord(e0)); launch(kr, p); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  double ms = t[t.size() / 2];
  char name[128];
  snprintf(name, sizeof name, "%s %c%c %s->%s", kr.cfg.c_str(), kr.am, kr.bm, tname[kr.in], tname[kr.out]);
  CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(D));
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
  return Perf{name, M, N, K, ms, 2.0 * M * N * double(K) / (ms * 1e-3) / 1e12};
}

int main(int argc, char** argv) {
  bool quick = false, perf = true, correct = true;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--no-perf")) perf = false;
    else if (!strcmp(argv[i], "--perf-only")) correct = false;
  }
  register_all();
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  for (auto& k : g_kerns)
    if (!k.simple && k.smem > 48 * 1024)
      CK(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smem));

  std::vector<std::string> cfgs;
  for (auto& k : g_kerns) if (std::find(cfgs.begin(), cfgs.end(), k.cfg) == cfgs.end()) cfgs.push_back(k.cfg);
  const char majs[4][2] = {{'k','k'},{'k','n'},{'m','k'},{'m','n'}};
  int total = 0, failed = 0;
  if (correct) {
    struct Sz { int M, N, K, L; };
    std::vector<Sz> small = {{1,1,1,1},{7,7,7,1},{127,127,127,1},{129,129,129,1},{1000,1000,1000,1},
      {1000,37,129,1},{33,517,200,1},{300,200,8,1},{17,1000,24,1},{1000,3,520,1},{250,130,1100,1},
      {64,64,1,1},{128,128,33,1},{136,72,40,1},{129,65,100,3},{256,256,256,4},{2,300,4,2}};
    if (quick) small = {{1,1,1,1},{7,7,7,1},{129,129,129,1},{1000,37,129,1},{129,65,100,3}};
    for (auto& sz : small)
      for (auto& cfg : cfgs)
        for (auto& mj : majs)
          for (int in = 0; in < 2; ++in)
            for (int out = 0; out < 3; ++out)
              for (int bi = 0; bi < 2; ++bi) {
                const Kern& k = find(cfg, mj[0], mj[1], in, out);
                float beta = bi ? -0.5f : 0.f;
                ++total;
                if (!run_case(k, sz.M, sz.N, sz.K, sz.L, 0.75f, beta, false)) ++failed;
                if (k.simple) { ++total; if (!run_case(k, sz.M, sz.N, sz.K, sz.L, 0.75f, beta, true)) ++failed; }
              }
    // c == nullptr with beta == 0 (must not be read)
    for (auto& cfg : cfgs) {
      ++total; if (!run_case(find(cfg, 'k', 'n', T_BF16, T_BF16), 200, 300, 70, 2, 1.f, 0.f, false, true)) ++failed;
    }
    // large: 4096^3, every config x majorness, bf16 in, f32 and bf16 out, beta != 0
    if (!quick)
      for (auto& cfg : cfgs) {
        if (cfg == "gemm_simple") continue;
        for (auto& mj : majs)
          for (int out : {T_F32, T_BF16}) {
            ++total; if (!run_case(find(cfg, mj[0], mj[1], T_BF16, out), 4096, 4096, 4096, 1, 1.f, 0.25f, false)) ++failed;
          }
      }
    printf("\n=== correctness summary (%d cases, %d failed) ===\n", total, failed);
    printf("%-37s %6s %6s %12s\n", "kernel", "runs", "fails", "max err/|ref|");
    for (auto& s : g_stats)
      printf("%-37s %6d %6d %12.3e%s\n", s.first.c_str(), s.second.runs, s.second.fails, s.second.max_err,
             s.second.fails ? "  <-- FAIL" : "");
  }
  if (perf) {
    std::vector<Perf> res;
    struct Sz { int M, N, K; };
    for (Sz sz : {Sz{4096,4096,4096}, Sz{8192,8192,1024}})
      for (auto& cfg : cfgs) {
        if (cfg == "gemm_simple" && sz.M > 4096) continue;
        for (auto& mj : majs)
          for (int out : {T_BF16, T_F32})
            res.push_back(time_case(find(cfg, mj[0], mj[1], T_BF16, out), sz.M, sz.N, sz.K));
      }
    printf("\n=== performance (median of 20, bf16 inputs, beta=0) ===\n");
    printf("%-42s %18s %10s %9s\n", "kernel", "MxNxK", "ms", "TFLOP/s");
    for (auto& r : res) {
      char shp[48]; snprintf(shp, sizeof shp, "%dx%dx%d", r.M, r.N, r.K);
      printf("%-42s %18s %10.4f %9.1f\n", r.name.c_str(), shp, r.ms, r.tflops);
    }
  }
  if (correct) printf("\nRESULT: %s (%d/%d cases passed)\n", failed ? "FAIL" : "PASS", total - failed, total);
  return failed ? 1 : 0;
}
