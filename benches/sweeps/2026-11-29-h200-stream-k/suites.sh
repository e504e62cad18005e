#!/bin/bash
# Prefill against the build before (gemm_head: HEAD's bench binary), then every GPU suite
# not run in the call before, examples/mlp, and compute-sanitizer with stream-K forced on
# the narrow and 128x192 tiles' tests, in parallel (run from the repository root with the
# staged binaries, gemm_head and parse.py in .gpu/).
[ -d .gpu/test ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
S=/usr/local/cuda-13.0/bin/compute-sanitizer
date -u > $OUT/device.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $OUT/device.txt
L=/tmp/l; mkdir -p $L
P="--shape 2048x2048x2048 --shape 3072x3072x4096 --shape 4096x4096x4096 --shape 8192x8192x1024"
.gpu/bench/gemm $P --layout tn,nn --rounds 2 > $L/pre_new_1.log 2>&1
.gpu/gemm_head $P --layout tn,nn --rounds 2 > $L/pre_head_1.log 2>&1
for t in gpu_gemm gpu_large gpu_small_m gpu_graph lib; do
  ( timeout 440 .gpu/test/$t --ignored --test-threads 1 > $L/$t.log 2>&1; echo "$t rc=$?" >> $L/rc.txt ) &
done
( timeout 440 .gpu/example/mlp > $L/mlp.log 2>&1; echo "mlp rc=$?" >> $L/rc.txt ) &
( FERROCUTE_STREAM_K=1 timeout 440 $S --tool memcheck .gpu/test/gpu_large --ignored --exact gpu_tokens_on_n_of_narrow_tiles > $L/san_memcheck_narrow.log 2>&1; echo "san_memcheck_narrow rc=$?" >> $L/rc.txt ) &
( FERROCUTE_STREAM_K=1 timeout 440 $S --tool synccheck .gpu/test/gpu_large --ignored --exact gpu_tokens_on_n_of_the_128x192_tile > $L/san_synccheck_pp192.log 2>&1; echo "san_synccheck_pp192 rc=$?" >> $L/rc.txt ) &
wait
sort $L/rc.txt
for f in $L/gpu_*.log $L/lib.log; do echo "$(basename $f): $(grep -h 'test result' $f)"; done
grep -h -B2 -A6 "panicked" $L/*.log | head -30
for f in $L/san_*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY' $f | head -2 | tr '\n' ' ') $(grep -h 'test result' $f)"; done
tail -2 $L/mlp.log
python3 .gpu/parse.py $L/pre_*.log
cd /tmp && tar -cJf $OUT/logs.tar.xz l
