#!/bin/bash
# Time against K at 160 tokens: the 256x160 tile (gemm_256: alone, listed first) and in
# 4-CTA clusters (gemm_c4: listed first) against HEAD (gemm, 128x160), TN and RM.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
S=""; for k in 2048 4096 8192; do S="$S --shape 160x28672x$k --shape 160x14336x$k"; done
for b in gemm_256 gemm_c4 gemm; do
  FERROCUTE_STREAM_K=0 timeout 150 .gpu/$b $S --layout tn,rm --rounds 2 > $OUT/$b.log 2>&1
done
for b in gemm_256 gemm_c4 gemm; do echo "== $b"; grep -E "^ +[0-9]+x" $OUT/$b.log | awk '{print $1, $2, $3, $9, $15, $17}'; done
