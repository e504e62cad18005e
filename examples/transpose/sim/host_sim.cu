// kernels/transpose.cu run on the CPU, so that its CuTe indexing (tiles, predication, the
// swizzled layout and its transposed view from the generated header) is checked without a
// GPU: the CUDA keywords become host code, every block's threads run one after another,
// and __syncthreads() ends the first pass (each thread runs again in the second pass,
// repeating its idempotent loads before its stores). Also checks that each warp's
// shared-memory accesses hit 32 banks. Built and run by sim/run.sh.
#include <cute/tensor.hpp>
#include <cstdio>
#include <vector>
#include <set>
struct Idx { unsigned x, y, z; };
static Idx sim_block, sim_thread;
static int sim_phase;
#undef __global__
#define __global__
#undef __launch_bounds__
#define __launch_bounds__(n)
#undef __shared__
#define __shared__ static
#define __syncthreads() do { if (sim_phase == 0) return; } while (0)
#define blockIdx sim_block
#define threadIdx sim_thread
#include "../kernels/transpose.cu"
#undef blockIdx
#undef threadIdx

/// Transposes an m x n matrix block by block; checks every element and that nothing past
/// the output was written.
int run(int m, int n) {
  std::vector<float> src(size_t(m) * n), dst(size_t(m) * n + 64, -7.25f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = float(i) * 0.5f + 1.0f;
  int gx = (n + 31) / 32, gy = (m + 31) / 32;
  for (int by = 0; by < gy; ++by)
    for (int bx = 0; bx < gx; ++bx)
      for (int ph = 0; ph < 2; ++ph)
        for (unsigned t = 0; t < THREADS; ++t) {
          sim_block = {unsigned(bx), unsigned(by), 0}; sim_thread = {t, 0, 0}; sim_phase = ph;
          transpose_f32(src.data(), dst.data(), m, n);
        }
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c)
      if (dst[size_t(c) * m + r] != src[size_t(r) * n + c]) { printf("%dx%d: dst(%d,%d) wrong\n", m, n, c, r); return 1; }
  for (size_t i = size_t(m) * n; i < dst.size(); ++i) if (dst[i] != -7.25f) { printf("%dx%d: wrote past\n", m, n); return 1; }
  printf("%dx%d ok\n", m, n);
  return 0;
}

// Banks touched by each warp: every access of the read and write phases hits 32 banks.
int banks() {
  using namespace cute;
  static float smem[SMEM_ELEMS];
  Tensor sS = make_tensor(make_smem_ptr(smem), SmemLayout{});
  Tensor sD = make_tensor(make_smem_ptr(smem), SmemLayoutT{});
  for (int warp = 0; warp < THREADS / 32; ++warp) {
    for (int i = 0; i < 4; ++i) {
      std::set<long> rb, wb;
      for (int l = 0; l < 32; ++l) {
        int t = warp * 32 + l;
        rb.insert((&local_partition(sS, ThrLayout{}, t)(i) - smem) % 32);
        wb.insert((&local_partition(sD, ThrLayout{}, t)(i) - smem) % 32);
      }
      if (rb.size() != 32 || wb.size() != 32) { printf("warp %d elem %d: %zu / %zu banks\n", warp, i, rb.size(), wb.size()); return 1; }
    }
  }
  printf("banks: every warp access hits 32 banks\n");
  return 0;
}

int main() {
  int bad = banks();
  int shapes[][2] = {{1,1},{7,129},{33,31},{1,4097},{300,70},{64,64},{1000,1000}};
  for (auto& s : shapes) bad |= run(s[0], s[1]);
  printf(bad ? "SIM FAIL\n" : "SIM PASS\n");
  return bad;
}
