// Writes back every argument it gets, so that examples/transpose's main can check that
// each kind of parameter the generated launcher passes (bf16 buffer, u64 buffer, i32, u32,
// i64 and u64 dimensions, f32 and f64 scalars) arrives as the C++ signature reads it.
#include FERROCUTE_MODULE_HEADER

extern "C" __global__ void echo_args(const cute::bfloat16_t* x, uint64_t* out, int32_t a, uint32_t b,
                                     int64_t c, uint64_t d, float e, double f) {
  float sum = 0.0f;
  for (int32_t i = 0; i < a; ++i) sum += float(x[i]);
  out[0] = uint64_t(int64_t(a));
  out[1] = b;
  out[2] = uint64_t(c);
  out[3] = d;
  out[4] = __float_as_uint(e);
  out[5] = uint64_t(__double_as_longlong(f));
  out[6] = __float_as_uint(sum);
}
