// ferrocute sm90 GEMM, part of sm90_gemm.cuh: persistent tile scheduling, the grouped raster
// (tile_coord) and each CTA's work list (WorkList: round-robin whole tiles, then the tail
// tiles split along K: one part of a split tail, or a stream-K run). Separate because the
// producer and the consumers walk the same list independently and must agree on it,
// whatever the schedule.
#pragma once

#include <stdint.h>

namespace ferrocute {
namespace sm90 {

// ---------------------------------------------------------------------------------
// Tile scheduler: linear persistent index -> (m_blk, n_blk, l) with grouped raster: groups
// of `group` M tiles, M fastest within a group. With fewer N tiles than a group and more M
// tiles (the swapped plan of y = x W^T at a few hundred tokens: W's rows on M), N fastest
// instead, so that the tiles sharing an M panel of the weight are neighbours in the order
// (the grouped order puts them `group` apart: at 256x8192x28672, 64 x 2 tiles, that ran
// 204-241 us against 195-199 N fastest, as the unswapped plan's 196-198).
// ---------------------------------------------------------------------------------
struct TileCoord { int m, n, l; };

__device__ __forceinline__ TileCoord tile_coord(int idx, int tiles_m, int tiles_n, int group) {
  const int per_batch = tiles_m * tiles_n;
  const int l = idx / per_batch;
  int r = idx - l * per_batch;
  if (tiles_n < group && tiles_m > tiles_n) return TileCoord{r / tiles_n, r % tiles_n, l};
  const int per_group = group * tiles_n;
  const int g = r / per_group;
  const int first_m = g * group;
  const int gsize = min(tiles_m - first_m, group);
  r -= g * per_group;
  TileCoord t;
  t.m = first_m + r % gsize;
  t.n = r / gsize;
  t.l = l;
  return t;
}

// ---------------------------------------------------------------------------------
// Work of one persistent CTA: its round-robin share of the first num_units - tail_units
// units (whole tiles), then the last tail_units tiles one of two ways.
// - Split tail (splits >= 2, tail_units * splits <= gridDim.x): at most one part: part i
//   goes to CTA i and is split i / tail_units of tile i % tail_units. Split-major, the parts
//   that run at once start at the same k-blocks, so tiles that share A or B rows read them
//   from L2 at the same time, as whole tiles do (a stream-K split at arbitrary k-blocks
//   tripled the DRAM reads at 4096^3, BENCHMARKS.md).
// - Stream-K (stream, tail_units >= gridDim.x): the tail's k-blocks, tile after tile, in
//   gridDim.x equal runs, one a CTA. A run is at least a tile long, so it cuts at most one
//   tile at each end, and a tile is cut at most once: at the first k-block of CTA c's run,
//   into the earlier piece (CTA c-1's last, part 2c+1) and the later one (CTA c's first,
//   part 2c), which meet at counter c. For a weight streamed through one tile of the few
//   tokens: no tile shares its weight rows with another, so cutting at any k-block reads
//   nothing twice.
// ---------------------------------------------------------------------------------
struct Work {
  int unit, kb, ke;   // unit (tile_of), k-blocks [kb, ke)
  int part;           // the part index of a split tile, -1 for a whole tile
};

// Stream-K takes fewer than 2^31 k-blocks in its tiles (gemm_kernel checks it); the CTA is
// blockIdx.x.
struct WorkList {
  int next_dp, dp_units, stride, k_tiles, tail_units, splits, part;
  int sk_at, sk_end;   // stream-K: this CTA's run of the tail's k-blocks still to go

  __device__ WorkList(int num_units, int tail_units_, int splits_, bool stream, int k_tiles_,
                      int first, int stride_, int cta)
      : next_dp(first), dp_units(num_units - tail_units_), stride(stride_), k_tiles(k_tiles_),
        tail_units(tail_units_), splits(splits_),
        part(!stream && tail_units_ > 0 && cta < tail_units_ * splits_ ? cta : -1),
        sk_at(stream ? run_begin(cta, tail_units_, k_tiles_, stride_) : 0),
        sk_end(stream ? run_begin(cta + 1, tail_units_, k_tiles_, stride_) : 0) {}

  // k-blocks [kb, ke) of split j.
  __device__ static int split_begin(int j, int splits, int k_tiles) {
    return int(int64_t(j) * k_tiles / splits);
  }

  // Stream-K: the first of the tail's k-blocks (tile-major) in CTA c's run.
  __device__ static int run_begin(int c, int tail_units, int k_tiles, int ctas) {
    return int(int64_t(c) * tail_units * k_tiles / ctas);
  }

  __device__ bool next(Work& w) {
    if (next_dp < dp_units) {
      w = Work{next_dp, 0, k_tiles, -1};
      next_dp += stride;
      return true;
    }
    if (sk_at < sk_end) {
      const int tile = sk_at / k_tiles, kb = sk_at - tile * k_tiles;
      const int ke = min(k_tiles, sk_end - tile * k_tiles);
      const int cta = int(blockIdx.x);
      const int piece = kb > 0 ? 2 * cta : (ke < k_tiles ? 2 * (cta + 1) + 1 : -1);
      w = Work{dp_units + tile, kb, ke, piece};
      sk_at = tile * k_tiles + ke;
      return true;
    }
    if (part < 0) return false;
    const int j = part / tail_units;
    w = Work{dp_units + part % tail_units, split_begin(j, splits, k_tiles),
             split_begin(j + 1, splits, k_tiles), part};
    part = -1;
    return true;
  }
};

}  // namespace sm90
}  // namespace ferrocute
