#!/bin/bash
# The build without the removed tiles (new) against 2512d32's bench (old), alternated twice,
# on shapes of the narrow tiles (whose SASS moved) and two of the whole-box tiles.
[ -d .gpu/test ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
S="--shape 160x28672x4096 --shape 160x14336x4096 --shape 256x4608x3584 --shape 256x6144x4096 --shape 144x59136x8192 --shape 520x4096x4096 --shape 4096x4096x4096 --shape 8192x8192x1024"
for pass in 1 2; do
  for b in old new; do
    bin=.gpu/bench/gemm_old; [ $b = new ] && bin=.gpu/bench/gemm
    echo "## $b pass $pass $(date -u +%H:%M:%S)" >> $OUT/ab_$b.log
    timeout 120 $bin $S --layout tn,rm --iters 20 --rounds 2 >> $OUT/ab_$b.log 2>&1
  done
done
for b in old new; do echo "== $b"; grep -E "^ +[0-9]+x" $OUT/ab_$b.log | awk '{print $1, $2, $3, $9, $15, $17}'; done
