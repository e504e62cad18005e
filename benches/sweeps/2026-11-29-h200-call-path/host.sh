#!/bin/bash
# The call path's host time and the kernels' time: this build against 2512d32's, alternated.
[ -d .gpu/b ] || tar -C .gpu -xJf .gpu/b.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
S="--shape 1x4096x4096 --shape 16x4096x14336 --shape 8x28672x4096 --shape 128x4096x4096 --shape 2048x2304x512 --shape 4096x4096x4096"
for pass in 1 2; do for b in gemm_old gemm; do
  echo "## $b $pass $(date -u +%H:%M:%S)" >> $OUT/$b.log
  timeout 100 .gpu/b/$b $S --layout tn,rm --iters 20 --rounds 2 >> $OUT/$b.log 2>&1
done; done
head -4 $OUT/gemm.log | tail -2
for b in gemm_old gemm; do echo "== $b"; grep -E "^ +[0-9]+x" $OUT/$b.log | awk '{print $1, $2, $3, $9, $15, $NF}'; done
