// ferrocute sm90 GEMM, part of sm90_gemm.cuh: a position in the ring of pipeline stages
// (PipelineState), as the producer, the consumers and the split-K hand-off walk it. Separate
// because every one of them counts stages and phases the same way, and a wrong parity hangs
// the kernel.
#pragma once

#include <stdint.h>

namespace ferrocute {
namespace sm90 {

// Stage `index` of a ring of S, in the pass whose parity is `phase`: the phase of the
// stage's mbarriers that the pass waits for (CUTLASS's PipelineState). A consumer starts at
// {0, 0}, waiting for the first fill of every full barrier; a producer starts at
// producer_start(), on the previous pass, so that its first wait on each empty barrier
// passes at once.
template <int S>
struct PipelineState {
  static_assert(S >= 2, "a pipeline needs at least 2 stages");
  int index = 0;
  uint32_t phase = 0;

  __device__ __forceinline__ static PipelineState producer_start() { return {0, 1u}; }

  __device__ __forceinline__ PipelineState& operator++() {
    if (++index == S) {
      index = 0;
      phase ^= 1u;
    }
    return *this;
  }

  // `n` stages on (n >= 0): the phase flips once per pass completed.
  __device__ __forceinline__ void advance(int n) {
    const int t = index + n;
    index = t % S;
    phase ^= uint32_t(t / S) & 1u;
  }
};

}  // namespace sm90
}  // namespace ferrocute
