// The fused epilogue every ferrocute GEMM kernel applies at its store (GemmParams' epilogue
// fields; mirrored by ferrocute::gemm::Epilogue). Element-wise, in the kernel's (M,N):
//
//   x = alpha * acc                       (times scale[m or n] when scale_at == 0: a
//                                          dequantization scale of the product)
//   x = x + beta * C + bias[m or n]
//   D = act(x)                            (times scale[m or n] when scale_at == 1)
//
// Gated (SwiGLU): the GEMM's columns (gated == 1) or rows (gated == 2) come in pairs, gate
// at an even index and up at the odd one after it; each pair gives one element of D at half
// that index: D = silu(x_gate) * x_up, both x formed as above (scale of the product only;
// beta == 0), the SiLU epi_silu_fast where act is kActSiluFast. The kernels hand the pair
// to epi_gated; which thread holds the partner differs per kernel (its own register, a
// shuffle, or the staging in shared memory).
//
// One run-time switch per element instead of an instantiation per epilogue: the branches
// are uniform across the grid. Each kernel reaches the epilogue from a few rolled loops, so
// its code is there a few times: inlined at every unrolled store site, the activations made
// the split-K module's PTX 135 MB. No call: a __noinline__ call anywhere in a kernel cost
// its plain launches 5-20% (2048³ 0.98 -> 0.78 of cuBLAS), though they never take it.
#pragma once
#include <stdint.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cute/config.hpp>   // CUTE_UNROLL

#include "gemm_params.h"

namespace ferrocute {

enum EpiAct : int32_t {
  kActIdentity = 0, kActRelu = 1, kActGeluTanh = 2, kActGeluErf = 3, kActSilu = 4,
  kActGeluTanhFast = 5, kActSiluFast = 6
};
enum EpiAxis : int32_t { kAxisNone = 0, kAxisM = 1, kAxisN = 2 };
enum EpiVecType : int32_t { kVecF32 = 0, kVecBf16 = 1, kVecF16 = 2 };

// Whether anything beyond alpha/beta applies (the plain store path otherwise).
__device__ __forceinline__ bool epi_active(GemmParams const& p) {
  return (p.act | p.bias_axis | p.scale_axis | p.gated) != 0;
}

__device__ __forceinline__ float epi_load(const void* v, int32_t type, int i) {
  switch (type) {
    case kVecBf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(v)[i]);
    case kVecF16: return __half2float(static_cast<const __half*>(v)[i]);
    default: return static_cast<const float*>(v)[i];
  }
}

// The element of a per-row (axis M) or per-column (axis N) vector at (m, n).
__device__ __forceinline__ float epi_vec(const void* v, int32_t axis, int32_t type, int m, int n) {
  return epi_load(v, type, axis == kAxisM ? m : n);
}

// The epilogue's fields, read once from the parameter block into registers: the entry
// points below take it by value, so that no call makes the kernel spill its parameter block
// to local memory and reload a field per element.
struct EpiArgs {
  float alpha, beta;
  const void* bias;
  const void* scale;
  int32_t act, bias_axis, bias_type, scale_axis, scale_type, scale_at, gated, m, n;
};

__device__ __forceinline__ EpiArgs epi_args(GemmParams const& p) {
  return EpiArgs{p.alpha,      p.beta,       p.bias,     p.scale, p.act, p.bias_axis, p.bias_type,
                 p.scale_axis, p.scale_type, p.scale_at, p.gated, p.m,   p.n};
}

// x * sigmoid(z) as x / (1 + 2^v), v = -z log2(e): ex2.approx and rcp.approx, one MUFU
// operation each (within 2 and 1 ulp), and no branch or select. As z -> -inf, 2^v = inf and
// its reciprocal 0, the limit; 1 + 2^v never cancels. An IEEE expf and division took about
// 25 instructions a value (a cooperative tile runs its epilogue with nothing to hide it);
// this takes 8. The error of v (a few ulps of z) moves the result by under 1e-7 |x|; with
// the two operations' own, and the f32 result's rounding, it stays within 2e-7 |x|.
__device__ __forceinline__ float epi_ex2(float v) {
  float e;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(v));
  return e;
}

__device__ __forceinline__ float epi_rcp(float y) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
  return r;
}

__device__ __forceinline__ float epi_x_sigmoid_2(float x, float v) {
  return x * epi_rcp(1.f + epi_ex2(v));
}

// x with -inf raised to -FLT_MAX and NaN kept (max.NaN), so that x * sigmoid(z) goes to
// -0 at -inf (-inf * 0 would be NaN).
__device__ __forceinline__ float epi_finite_below(float x) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(-3.402823466e38f));
  return r;
}

__device__ __forceinline__ float epi_silu(float x) {
  x = epi_finite_below(x);
  return epi_x_sigmoid_2(x, -1.4426950408889634f * x);
}

// GELU's tanh form 0.5 x (1 + tanh(u)) = x sigmoid(2u), 2u = x (a + b x^2) with a = 2
// sqrt(2/pi), b = 0.044715 a; the constants below are -a and -b times log2(e).
__device__ __forceinline__ float epi_gelu_tanh(float x) {
  x = epi_finite_below(x);
  return epi_x_sigmoid_2(x, x * fmaf(-0.10294324f, x * x, -2.3022082f));
}

// tanh.approx.f32: one MUFU operation, relative error within 2^-11.
__device__ __forceinline__ float epi_tanh(float u) {
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
  return t;
}

// GELU's tanh form as cuBLASLt's GELU epilogue computes it: x (0.5 + 0.5 tanh(u)) with the
// hardware tanh (tanh.approx.f32, one MUFU operation, relative error within 2^-11), so half
// the MUFU work of epi_gelu_tanh. Its error, 0.5 |x| |tanh u| 2^-11, stays under 2.5e-4 |x|:
// 18% of the output at x = -3 and more than the output below x = -3.4 (1 + tanh u cancels).
__device__ __forceinline__ float epi_gelu_tanh_fast(float x) {
  x = epi_finite_below(x);
  return x * fmaf(0.5f, epi_tanh(x * fmaf(0.035677408f, x * x, 0.79788456f)), 0.5f);
}

// SiLU by the hardware tanh as epi_gelu_tanh_fast: x (0.5 + 0.5 tanh(x / 2)), within
// 2.5e-4 |x|.
__device__ __forceinline__ float epi_silu_fast(float x) {
  x = epi_finite_below(x);
  return x * fmaf(0.5f, epi_tanh(0.5f * x), 0.5f);
}

// NaN stays NaN; -inf goes to -0 (0 for GELU's erf form, and ReLU's) and +inf to +inf.
// GELU's erf form as 0.5 x erfc(-x/sqrt 2), which keeps its relative accuracy for negative x
// (1 + erf cancels there).
__device__ __forceinline__ float epi_act(float x, int32_t act) {
  switch (act) {
    case kActRelu: {   // max.NaN: NaN passes through, -0 goes to +0; one instruction
      float r;
      asm("max.NaN.f32 %0, %1, 0f00000000;" : "=f"(r) : "f"(x));
      return r;
    }
    case kActGeluTanh: return epi_gelu_tanh(x);
    case kActGeluErf: {
      const float r = 0.5f * x * erfcf(-0.7071067811865476f * x);
      return x == -INFINITY ? 0.f : r;
    }
    case kActSilu: return epi_silu(x);
    case kActGeluTanhFast: return epi_gelu_tanh_fast(x);
    case kActSiluFast: return epi_silu_fast(x);
    default: return x;
  }
}

// alpha * acc with the product's scale and the bias, before beta * C and the activation.
__device__ __forceinline__ float epi_pre(float acc, int m, int n, EpiArgs const& e) {
  float x = e.alpha * acc;
  if (e.scale_axis != kAxisNone && e.scale_at == 0)
    x *= epi_vec(e.scale, e.scale_axis, e.scale_type, m, n);
  if (e.bias_axis != kAxisNone) x += epi_vec(e.bias, e.bias_axis, e.bias_type, m, n);
  return x;
}

// D(m, n) of a non-gated epilogue from the accumulator and C(m, n) (read only when beta != 0).
__device__ __forceinline__ float epi_value(float acc, float c, int m, int n, EpiArgs const& e) {
  float x = epi_pre(acc, m, n, e);
  if (e.beta != 0.f) x += e.beta * c;
  x = epi_act(x, e.act);
  if (e.scale_axis != kAxisNone && e.scale_at == 1)
    x *= epi_vec(e.scale, e.scale_axis, e.scale_type, m, n);
  return x;
}

// D of a gated pair: the gate at (m, n) and the up at the next index along the gated axis.
__device__ __forceinline__ float epi_gated(float gate, float up, int m, int n, EpiArgs const& e) {
  const int mu = e.gated == 2 ? m + 1 : m, nu = e.gated == 1 ? n + 1 : n;
  const float g = epi_pre(gate, m, n, e);
  return (e.act == kActSiluFast ? epi_silu_fast(g) : epi_silu(g)) * epi_pre(up, mu, nu, e);
}

// A vector's values for rows [m, m + 8) of column n: its element n (axis N) or elements
// m.. inside M (axis M); one switch on the type per 8 values.
template <class T>
__device__ __forceinline__ void epi_load8_as(float (&out)[8], const void* v, int32_t axis, int m,
                                             int n, int mlim) {
  const T* p = static_cast<const T*>(v);
  if (axis == kAxisN) {
    const float x = float(p[n]);
    CUTE_UNROLL
    for (int i = 0; i < 8; ++i) out[i] = x;
  } else {
    CUTE_UNROLL
    for (int i = 0; i < 8; ++i) out[i] = m + i < mlim ? float(p[m + i]) : 0.f;
  }
}

__device__ __forceinline__ void epi_load8(float (&out)[8], const void* v, int32_t axis,
                                          int32_t type, int m, int n, int mlim) {
  switch (type) {
    case kVecBf16: epi_load8_as<__nv_bfloat16>(out, v, axis, m, n, mlim); break;
    case kVecF16: epi_load8_as<__half>(out, v, axis, m, n, mlim); break;
    default: epi_load8_as<float>(out, v, axis, m, n, mlim); break;
  }
}

// epi_act on 8 values: one switch per 8 values, each case an unrolled loop of one activation.
__device__ __forceinline__ void epi_act8(float (&x)[8], int32_t act) {
  switch (act) {
    case kActIdentity: break;
    case kActRelu:
      CUTE_UNROLL
      for (int i = 0; i < 8; ++i) x[i] = epi_act(x[i], kActRelu);
      break;
    case kActGeluTanh:
      CUTE_UNROLL
      for (int i = 0; i < 8; ++i) x[i] = epi_act(x[i], kActGeluTanh);
      break;
    case kActGeluErf:
      CUTE_UNROLL
      for (int i = 0; i < 8; ++i) x[i] = epi_act(x[i], kActGeluErf);
      break;
    case kActGeluTanhFast:
      CUTE_UNROLL
      for (int i = 0; i < 8; ++i) x[i] = epi_gelu_tanh_fast(x[i]);
      break;
    case kActSiluFast:
      CUTE_UNROLL
      for (int i = 0; i < 8; ++i) x[i] = epi_silu_fast(x[i]);
      break;
    default:
      CUTE_UNROLL
      for (int i = 0; i < 8; ++i) x[i] = epi_act(x[i], kActSilu);
      break;
  }
}

// epi_value of rows [m, m + 8) of column n inside M, in place (c: C's values, or zeros).
// Step by step over the 8 values, the vectors loaded first: one uniform branch per step and
// 8 independent loads instead of a branch chain and a dependent load per value (which left
// the warps waiting on latency). Unrolled (a rolled loop put v in local memory); the sm90
// kernels reach it from one call site per store path (store_epi8, store_chunk_rows_fused).
__device__ __forceinline__ void epi_rows8(float (&v)[8], const float (&c)[8], int m, int n,
                                          EpiArgs const& e) {
  float x[8], w[8];
  CUTE_UNROLL
  for (int i = 0; i < 8; ++i) x[i] = e.alpha * v[i];
  if (e.scale_axis != kAxisNone && e.scale_at == 0) {
    epi_load8(w, e.scale, e.scale_axis, e.scale_type, m, n, e.m);
    CUTE_UNROLL
    for (int i = 0; i < 8; ++i) x[i] *= w[i];
  }
  if (e.bias_axis != kAxisNone) {
    epi_load8(w, e.bias, e.bias_axis, e.bias_type, m, n, e.m);
    CUTE_UNROLL
    for (int i = 0; i < 8; ++i) x[i] += w[i];
  }
  if (e.beta != 0.f) {
    CUTE_UNROLL
    for (int i = 0; i < 8; ++i) x[i] += e.beta * c[i];
  }
  epi_act8(x, e.act);
  if (e.scale_axis != kAxisNone && e.scale_at == 1) {
    epi_load8(w, e.scale, e.scale_axis, e.scale_type, m, n, e.m);
    CUTE_UNROLL
    for (int i = 0; i < 8; ++i) x[i] *= w[i];
  }
  CUTE_UNROLL
  for (int i = 0; i < 8; ++i)
    if (m + i < e.m) v[i] = x[i];
}

// The gated outputs of rows [m, m + 8) of column n inside M (m even): along N (gated == 1)
// the pairs (v[i], up[i]) of columns n, n + 1; along M (gated == 2) the 4 pairs
// (v[i], v[i + 1]) of v's own rows, into out[0..4).
__device__ __forceinline__ void epi_gated8(float (&out)[8], const float (&v)[8],
                                           const float (&up)[8], int m, int n,
                                           EpiArgs const& e) {
  CUTE_UNROLL
  for (int i = 0; i < 8; ++i) {
    if (m + i >= e.m) break;
    if (e.gated == 1) out[i] = epi_gated(v[i], up[i], m + i, n, e);
    else if (i % 2 == 0) out[i / 2] = epi_gated(v[i], v[i + 1], m + i, n, e);
  }
}

// ---- for the sm90 TMA store: the epilogue in registers, on the accumulator fragment ----
//
// A thread's 8 values of one 16-column group of an m64nNk16 fragment: value k = 2*mtx + v0
// at row r0 + 8*(mtx%2), column c0 + 8*(mtx/2) + v0 (stmatrix_cols's order). Two rows and
// four columns (two adjacent pairs): the rows' elements of a vector along M are the same
// for every group of a slab (EpiRows, read once), a vector along N takes four loads a group.

template <class T>
__device__ __forceinline__ float2 epi_rows2_as(const void* v, int r0, int mlim) {
  const T* p = static_cast<const T*>(v);
  return make_float2(r0 < mlim ? float(p[r0]) : 0.f, r0 + 8 < mlim ? float(p[r0 + 8]) : 0.f);
}

// A vector's elements at rows r0 and r0 + 8 (0 past M).
__device__ __forceinline__ float2 epi_rows2(const void* v, int32_t type, int r0, int mlim) {
  switch (type) {
    case kVecBf16: return epi_rows2_as<__nv_bfloat16>(v, r0, mlim);
    case kVecF16: return epi_rows2_as<__half>(v, r0, mlim);
    default: return epi_rows2_as<float>(v, r0, mlim);
  }
}

template <class T>
__device__ __forceinline__ void epi_cols4_as(float (&c)[4], const void* v, int c0, int nlim) {
  const T* p = static_cast<const T*>(v);
  CUTE_UNROLL
  for (int j = 0; j < 4; ++j) {
    const int n = c0 + 8 * (j / 2) + j % 2;
    c[j] = n < nlim ? float(p[n]) : 0.f;
  }
}

// A vector's elements at columns c0 + {0, 1, 8, 9} (0 past N).
__device__ __forceinline__ void epi_cols4(float (&c)[4], const void* v, int32_t type, int c0,
                                          int nlim) {
  switch (type) {
    case kVecBf16: epi_cols4_as<__nv_bfloat16>(c, v, c0, nlim); break;
    case kVecF16: epi_cols4_as<__half>(c, v, c0, nlim); break;
    default: epi_cols4_as<float>(c, v, c0, nlim); break;
  }
}

// The elements of the vectors along M at a slab's rows r0 and r0 + 8 (zeros for the others).
struct EpiRows {
  float2 bias, scale;
};

__device__ __forceinline__ EpiRows epi_rows(EpiArgs const& e, int r0) {
  EpiRows r{make_float2(0.f, 0.f), make_float2(0.f, 0.f)};
  if (e.bias_axis == kAxisM) r.bias = epi_rows2(e.bias, e.bias_type, r0, e.m);
  if (e.scale_axis == kAxisM) r.scale = epi_rows2(e.scale, e.scale_type, r0, e.m);
  return r;
}

// A vector's 8 values for the group at columns c0..: from `rows` along M, loaded along N.
__device__ __forceinline__ void epi_frag_vec8(float (&w)[8], const void* v, int32_t axis,
                                              int32_t type, float2 rows, int c0,
                                              EpiArgs const& e) {
  if (axis == kAxisM) {
    CUTE_UNROLL
    for (int k = 0; k < 8; ++k) w[k] = (k / 2) % 2 == 0 ? rows.x : rows.y;
  } else {
    float c[4];
    epi_cols4(c, v, type, c0, e.n);
    CUTE_UNROLL
    for (int k = 0; k < 8; ++k) w[k] = c[2 * (k / 4) + k % 2];
  }
}

// The epilogue of those 8 values in place (beta == 0, not gated: the TMA store's case).
// Rows or columns past M or N read no vector element; the TMA clips their outputs.
__device__ __forceinline__ void epi_frag8(float (&x)[8], int c0, EpiRows const& rows,
                                          EpiArgs const& e) {
  float w[8];
  CUTE_UNROLL
  for (int k = 0; k < 8; ++k) x[k] *= e.alpha;
  if (e.scale_axis != kAxisNone && e.scale_at == 0) {
    epi_frag_vec8(w, e.scale, e.scale_axis, e.scale_type, rows.scale, c0, e);
    CUTE_UNROLL
    for (int k = 0; k < 8; ++k) x[k] *= w[k];
  }
  if (e.bias_axis != kAxisNone) {
    epi_frag_vec8(w, e.bias, e.bias_axis, e.bias_type, rows.bias, c0, e);
    CUTE_UNROLL
    for (int k = 0; k < 8; ++k) x[k] += w[k];
  }
  epi_act8(x, e.act);
  if (e.scale_axis != kAxisNone && e.scale_at == 1) {
    epi_frag_vec8(w, e.scale, e.scale_axis, e.scale_type, rows.scale, c0, e);
    CUTE_UNROLL
    for (int k = 0; k < 8; ++k) x[k] *= w[k];
  }
}

// ---- for the kernels that reach the epilogue per element (sm80, skinny, simple) ----

__device__ __forceinline__ float epi_one(float acc, float c, int m, int n, EpiArgs const& e) {
  return epi_value(acc, c, m, n, e);
}

__device__ __forceinline__ float epi_gated_one(float gate, float up, int m, int n,
                                               EpiArgs const& e) {
  return epi_gated(gate, up, m, n, e);
}

}  // namespace ferrocute
