#!/bin/bash
# compute-sanitizer on the tests sized for it (every kernel family's plain and gated epilogue;
# all transposes on small shapes), the three tools side by side.
[ -d .gpu/test ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
S=/usr/local/cuda-13.0/bin/compute-sanitizer
for tool in memcheck synccheck racecheck; do
  ( timeout 420 $S --tool $tool .gpu/test/gpu_epilogue --ignored --exact gpu_epilogue_small > $OUT/san_epi_$tool.txt 2>&1; echo "epi_$tool rc=$?" >> $OUT/rc.txt ) &
  ( timeout 420 $S --tool $tool .gpu/test/gpu_gemm --ignored --exact gpu_small_all_transposes_bf16 > $OUT/san_gemm_$tool.txt 2>&1; echo "gemm_$tool rc=$?" >> $OUT/rc.txt ) &
done
wait
sort $OUT/rc.txt
for f in $OUT/san_*.txt; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|test result' $f | tr '\n' ' ')"; done
