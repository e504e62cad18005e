#!/bin/bash
# Every GPU suite in parallel, examples/mlp, and compute-sanitizer on the new tests (run
# from the repository root with the staged binaries in .gpu/).
[ -d .gpu/test ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
S=/usr/local/cuda-13.0/bin/compute-sanitizer
date -u | tee $OUT/device.txt
for t in gpu_gemm gpu_large gpu_epilogue gpu_forced_kernels gpu_small_m gpu_decode gpu_graph gpu_device_tensor lib; do
  ( .gpu/test/$t --ignored --test-threads 1 > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/rc.txt ) &
done
( .gpu/example/mlp > $OUT/mlp.log 2>&1; echo "mlp rc=$?" >> $OUT/rc.txt ) &
for tool in memcheck synccheck racecheck; do
  ( timeout 540 $S --tool $tool .gpu/test/gpu_large --ignored --exact gpu_tokens_on_n_of_the_128x192_tile > $OUT/san_$tool.log 2>&1; echo "san_$tool rc=$?" >> $OUT/rc.txt ) &
done
wait
sort $OUT/rc.txt
for f in $OUT/gpu_*.log $OUT/lib.log; do echo "$(basename $f): $(grep -h 'test result' $f)"; done
grep -h -A3 "panicked\|FAILED" $OUT/*.log | head -30
for f in $OUT/san_*.log; do echo $f; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" $f | head -3; done
tail -3 $OUT/mlp.log
