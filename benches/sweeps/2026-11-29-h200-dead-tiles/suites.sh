#!/bin/bash
# Every GPU suite in parallel, examples/mlp, and compute-sanitizer on the persistent tiles
# (run from the repository root with the staged binaries in .gpu/).
[ -d .gpu/test ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
S=/usr/local/cuda-13.0/bin/compute-sanitizer
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in gpu_gemm gpu_large gpu_epilogue gpu_forced_kernels gpu_small_m gpu_decode gpu_graph gpu_device_tensor lib; do
  ( .gpu/test/$t --ignored --test-threads 1 > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/rc.txt ) &
done
( .gpu/example/mlp > $OUT/mlp.log 2>&1; echo "mlp rc=$?" >> $OUT/rc.txt ) &
for tool in memcheck synccheck racecheck; do
  ( timeout 300 $S --tool $tool .gpu/test/gpu_large --ignored --exact gpu_tokens_on_n_of_narrow_tiles > $OUT/san_narrow_$tool.log 2>&1; echo "san_narrow_$tool rc=$?" >> $OUT/rc.txt ) &
done
# The persistent tiles of whole boxes, forced, one small shape each (a split tail forced on, but for racecheck).
for k in sm90_128x256x64_s4_coop sm90_128x128x64_s6_pp sm90_128x192x64_s4_pp; do
  for tool in memcheck synccheck racecheck; do
    # racecheck's host memory grows with the grid: there without the split (20 CTAs)
    ts=1; [ $tool = racecheck ] && ts=0
    ( FERROCUTE_KERNEL=$k FERROCUTE_TAIL_SPLIT=$ts timeout 300 $S --tool $tool --kernel-name kns=ferrocute_sm90 .gpu/bench/gemm --shape 520x1000x1000 --layout tn,rm --iters 1 --rounds 1 > $OUT/san_${k}_$tool.log 2>&1
      echo "san_${k}_$tool rc=$?" >> $OUT/rc.txt ) &
  done
done
wait
sort $OUT/rc.txt
grep -h "test result" $OUT/*.log
for f in $OUT/san_*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' $f | head -1)"; done
tail -3 $OUT/mlp.log
