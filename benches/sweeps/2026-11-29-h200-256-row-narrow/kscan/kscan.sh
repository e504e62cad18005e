#!/bin/bash
# Time against K at 160 tokens of a 28672-row weight: the intercept is the per-launch and
# per-tile fixed cost (epilogue, pipeline fill), the slope the main loop's.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
S=""; for k in 2048 3072 4096 6144 8192; do S="$S --shape 160x28672x$k --shape 160x14336x$k"; done
FERROCUTE_STREAM_K=0 timeout 200 .gpu/gemm $S --layout tn,rm --rounds 2 > $OUT/kscan.log 2>&1
grep -E "^ +[0-9]+x" $OUT/kscan.log | awk "{print \$1, \$2, \$3, \$9, \$15, \$17}"
