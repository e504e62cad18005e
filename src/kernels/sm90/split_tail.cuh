// ferrocute sm90 GEMM, part of sm90_gemm.cuh: the reduction of tiles split along K (a split
// tail or stream-K, WorkList) through the global workspace, partial sums of a part, the
// per-tile arrival counter, and split_tail_fixup, by which the last part to arrive sums the
// others. Separate because only the split tiles use it, after the main loop of a part.
#pragma once

#include <stdint.h>

#include <cute/tensor.hpp>

#include "arch.cuh"
#include "tile_scheduler.cuh"

namespace ferrocute {
namespace sm90 {

using namespace cute;

// ---------------------------------------------------------------------------------
// Partial sums of a split tail or of stream-K. The workspace (GemmParams::workspace) holds
// one u32 arrival counter per split tile (per CTA at most; zero between launches) in
// tail_counter_bytes(gridDim.x), then one BMxBN f32 slot per part (stream-K: two a CTA).
// Each thread of the tile's consumers keeps its accumulators in register order, float4 j
// of thread t at float4 index j*Threads + t, so whichever part sums the slots holds the
// same fragment in the same threads. No CTA waits for another: the parts need not be
// resident at once (SMs taken by other work, or by MPS limits).
// ---------------------------------------------------------------------------------
__device__ __forceinline__ int64_t tail_counter_bytes(int ctas) {
  return (int64_t(ctas) * 4 + 1023) / 1024 * 1024;
}

template <int Threads, class Accum>
__device__ __forceinline__ void store_partial_sums(Accum const& acc, float* slot, int t) {
  float4* dst = reinterpret_cast<float4*>(slot) + t;
  CUTE_UNROLL
  for (int j = 0; j < int(size(acc)) / 4; ++j)
    __stcg(dst + j * Threads,
           make_float4(acc(4 * j), acc(4 * j + 1), acc(4 * j + 2), acc(4 * j + 3)));
}

// acc = slot (Add = false) or acc += slot (Add = true).
template <int Threads, bool Add, class Accum>
__device__ __forceinline__ void load_partial_sums(Accum& acc, const float* slot, int t) {
  const float4* src = reinterpret_cast<const float4*>(slot) + t;
  CUTE_UNROLL
  for (int j = 0; j < int(size(acc)) / 4; ++j) {
    const float4 v = __ldcg(src + j * Threads);
    acc(4 * j) = Add ? acc(4 * j) + v.x : v.x;
    acc(4 * j + 1) = Add ? acc(4 * j + 1) + v.y : v.y;
    acc(4 * j + 2) = Add ? acc(4 * j + 2) + v.z : v.z;
    acc(4 * j + 3) = Add ? acc(4 * j + 3) + v.w : v.w;
  }
}

// One part's arrival at its tile's counter (by one thread, after a barrier of the part's
// threads behind their stores): release of this part's sums, acquire of those of the parts
// that arrived before. Returns the count before this arrival.
__device__ __forceinline__ uint32_t tail_arrive(uint32_t* counter) {
  uint32_t old;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], 1;"
               : "=r"(old)
               : "l"(counter)
               : "memory");
  return old;
}

// Named barrier of nthreads threads that also ORs their predicates.
__device__ __forceinline__ bool named_bar_any(int id, int nthreads, bool pred) {
  uint32_t r;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n"
      " selp.u32 %0, 1, 0, q;\n}"
      : "=r"(r)
      : "r"(uint32_t(pred)), "r"(id), "r"(nthreads)
      : "memory");
  return r != 0;
}

// After the main loop of work w, by the Threads threads (thread t, named barrier bar_id)
// that hold its accumulators: a part of a split tile leaves its sums in its slot and arrives
// at its tile's counter; all but the last to arrive return false (no epilogue). The last
// adds the others' slots, zeroes the counter for the next launch and returns true, as does
// a whole tile. The sum has the same bits whichever part is last: a split tail's in split
// order, a stream-K tile's two pieces as one addition (a + b == b + a).
template <int Threads, class Accum, class SlotOf>
__device__ __forceinline__ bool split_tail_fixup(Accum& acc, Work const& w, int tail_units,
                                                 int splits, bool stream, uint32_t* counters,
                                                 SlotOf const& slot_of, int t, int bar_id) {
  if (w.part < 0 || (!stream && splits < 2)) return true;
  store_partial_sums<Threads>(acc, slot_of(w.part), t);
  named_bar_sync(bar_id, Threads);   // this part's sums are all written
  // Split tail: the parts of tile i are i + j * tail_units, split j. Stream-K: parts 2c and
  // 2c + 1 of the tile cut where CTA c's run begins (WorkList).
  const int tile = stream ? w.part / 2 : w.part % tail_units;
  const uint32_t parts = stream ? 2u : uint32_t(splits);
  const bool last =
      named_bar_any(bar_id, Threads, t == 0 && tail_arrive(&counters[tile]) == parts - 1u);
  if (!last) return false;
  // One site of each load, the slots chosen at run time: the code stays once in the kernel.
  if (!stream && w.part != tile) load_partial_sums<Threads, false>(acc, slot_of(tile), t);
  for (int j = stream ? 0 : 1; j < (stream ? 1 : splits); ++j)
    load_partial_sums<Threads, true>(acc, slot_of(stream ? w.part ^ 1 : tile + j * tail_units), t);
  if (t == 0) counters[tile] = 0;
  return true;
}

}  // namespace sm90
}  // namespace ferrocute
