// dst = transpose(src) for a row-major m x n src, one 32x32 tile per block, through
// shared memory whose layout (a swizzled tile, and its transposed view) comes from the
// Rust layout types of build.rs by way of the generated header.
#include FERROCUTE_MODULE_HEADER

using namespace cute;

static_assert(size(ThrLayout{}) == THREADS, "one thread per element of the thread layout");
static_assert(cosize(SmemLayout{}.layout_b()) == SMEM_ELEMS, "shared memory holds the tile");

extern "C" __global__ void __launch_bounds__(THREADS)
    transpose_f32(const float* src, float* dst, int32_t m, int32_t n) {
  // 64-bit row strides: m * n may exceed 2^31 elements.
  Tensor S = make_tensor(make_gmem_ptr(src), make_layout(make_shape(m, n), make_stride(int64_t(n), Int<1>{})));
  Tensor D = make_tensor(make_gmem_ptr(dst), make_layout(make_shape(n, m), make_stride(int64_t(m), Int<1>{})));
  auto tile = Shape<Int<TILE>, Int<TILE>>{};
  // Block (x, y) moves tile (y, x) of S to tile (x, y) of D; the identity tensors give
  // each element's coordinate, against which the edge tiles are predicated.
  auto s_at = make_coord(int(blockIdx.y), int(blockIdx.x));
  auto d_at = make_coord(int(blockIdx.x), int(blockIdx.y));
  Tensor gS = local_tile(S, tile, s_at);
  Tensor cS = local_tile(make_identity_tensor(shape(S)), tile, s_at);
  Tensor gD = local_tile(D, tile, d_at);
  Tensor cD = local_tile(make_identity_tensor(shape(D)), tile, d_at);

  __shared__ float smem[SMEM_ELEMS];
  Tensor sS = make_tensor(make_smem_ptr(smem), SmemLayout{});   // (r, c) of the S tile
  Tensor sD = make_tensor(make_smem_ptr(smem), SmemLayoutT{});  // (r, c) of the D tile

  // Read: each warp a row segment of S (coalesced) into a row of sS (32 banks).
  Tensor tSg = local_partition(gS, ThrLayout{}, threadIdx.x);
  Tensor tSc = local_partition(cS, ThrLayout{}, threadIdx.x);
  Tensor tSs = local_partition(sS, ThrLayout{}, threadIdx.x);
  CUTE_UNROLL
  for (int i = 0; i < size(tSg); ++i) {
    if (elem_less(tSc(i), shape(S))) tSs(i) = tSg(i);
  }
  __syncthreads();
  // Write: each warp a row segment of D (coalesced) from a column of sS (32 banks, by
  // the swizzle).
  Tensor tDg = local_partition(gD, ThrLayout{}, threadIdx.x);
  Tensor tDc = local_partition(cD, ThrLayout{}, threadIdx.x);
  Tensor tDs = local_partition(sD, ThrLayout{}, threadIdx.x);
  CUTE_UNROLL
  for (int i = 0; i < size(tDg); ++i) {
    if (elem_less(tDc(i), shape(D))) tDg(i) = tDs(i);
  }
}
