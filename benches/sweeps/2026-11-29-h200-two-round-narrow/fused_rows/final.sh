#!/bin/bash
[ -d .gpu/test ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt; date -u | tee -a $OUT/device.txt
S="--shape 192x4608x3584 --shape 256x4608x3584 --shape 256x6144x4096 --shape 200x6144x4096 --shape 160x6144x4096 --shape 256x10240x8192 --shape 144x14336x4096"
for r in 1 2; do
  .gpu/bench/gemm $S --epilogue bias,gelu,swiglu,swiglufast --rounds 2 > $OUT/fused_new_$r.log 2>&1
  .gpu/bench/gemm_old $S --epilogue bias,gelu,swiglu,swiglufast --rounds 2 > $OUT/fused_old_$r.log 2>&1
done
S=/usr/local/cuda-13.0/bin/compute-sanitizer
for t in gpu_gemm gpu_large gpu_epilogue gpu_forced_kernels gpu_small_m gpu_decode gpu_graph gpu_device_tensor lib; do
  ( .gpu/test/$t --ignored --test-threads 1 > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/rc.txt ) &
done
( .gpu/example/mlp > $OUT/mlp.log 2>&1; echo "mlp rc=$?" >> $OUT/rc.txt ) &
for tool in memcheck synccheck racecheck; do
  ( timeout 420 $S --tool $tool .gpu/test/gpu_epilogue --ignored --exact gpu_epilogue_tokens_on_the_weight_side > $OUT/san_$tool.log 2>&1; echo "san_$tool rc=$?" >> $OUT/rc.txt ) &
done
wait
sort $OUT/rc.txt
grep -h "test result" $OUT/*.log
for f in $OUT/san_*.log; do echo $f; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" $f | head -3; done
tail -3 $OUT/mlp.log
