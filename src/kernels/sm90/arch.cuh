// ferrocute sm90 GEMM, part of sm90_gemm.cuh: inline-PTX wrappers the kernels use directly,
// named barriers (bar.sync), cluster barriers with a "memory" clobber, and the dynamic smem
// size. Separate because they are schedule-independent primitives that sm90_splitk.cuh uses
// as well.
#pragma once

#include <stdint.h>

namespace ferrocute {
namespace sm90 {

__device__ __forceinline__ void named_bar_sync(int id, int nthreads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

__device__ __forceinline__ uint32_t dyn_smem_size() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

// The halves of barrier.cluster, by every thread of every CTA of the cluster. Unlike
// cute::cluster_arrive/wait they carry a "memory" clobber, so the compiler cannot move
// memory accesses across them. A relaxed arrive orders nothing: use it only where no
// access before it has to be seen by (or finished before) the cluster's waiters.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

__device__ __forceinline__ void cluster_arrive_release() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// A whole cluster barrier with release/acquire semantics.
__device__ __forceinline__ void cluster_sync_all() {
  cluster_arrive_release();
  cluster_wait();
}

}  // namespace sm90
}  // namespace ferrocute
