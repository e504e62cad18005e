#!/bin/bash
# Fused epilogues at prefill on each persistent tile, forced: which tile hides the epilogue.
START=$(date +%s)
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
S="--shape 512x28672x4096 --shape 2048x4096x4096 --shape 4096x4096x4096 --shape 4096x14336x4096 --shape 8192x8192x1024 --shape 1024x28672x4096"
run() { # tag kernel
  echo "## $1 $(date -u +%H:%M:%S)" >> $OUT/$1.log
  FERROCUTE_KERNEL=$2 timeout 170 .gpu/gemm $S --layout rm --epilogue bias,gelu,swiglu --iters 20 --rounds 2 >> $OUT/$1.log 2>&1
}
for pass in 1 2; do
  for t in coop:sm90_128x256x64_s4_coop pp128:sm90_128x128x64_s6_pp pp192:sm90_128x192x64_s4_pp; do
    run ${t%%:*} ${t#*:}
    [ $(( $(date +%s) - START )) -gt 420 ] && break 2
  done
done
for f in $OUT/*.log; do echo "== $f"; grep -E "^ +[0-9]+x" $f | awk '{print $1, $2, $3, $4, $5, $7}'; done
