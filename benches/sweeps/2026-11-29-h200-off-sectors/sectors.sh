#!/bin/bash
# The sector rule: rows off the 32-byte sectors copied (new), against the commit before (old).
[ -d .gpu/b ] || tar -C .gpu -xJf .gpu/b.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
.gpu/b/gpu_large --ignored --exact gpu_repacked_large_vs_cublas 2>&1 | grep "test result"
S=""; for s in 3000x3000x3000 2960x2960x2960 6000x6000x1000 2048x2304x3000 2048x2048x1000 4096x4096x3000 8192x8192x1000; do S="$S --shape $s"; done
for pass in 1 2; do for b in gemm_old gemm; do
  echo "## $b $pass" >> $OUT/off2_$b.log
  timeout 100 .gpu/b/$b $S --layout tn,rm --iters 10 --rounds 2 >> $OUT/off2_$b.log 2>&1
done; done
for b in gemm_old gemm; do echo "== $b"; grep -E "^ +[0-9]+x" $OUT/off2_$b.log | sed 's/  */ /g' | awk '{print $1, $2, $3, $6, $9, $11, $12}' | sed 's/_bf16_bf16//'; done
