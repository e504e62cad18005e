#!/bin/bash
[ -d .gpu/test ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt; date -u | tee -a $OUT/device.txt
B=.gpu/bench/gemm
S="--shape 136x18432x4096 --shape 144x17408x4096 --shape 160x18432x8192 --shape 160x20480x4096 --shape 129x17000x4096"
for r in 1 2; do
  $B $S --layout tn --rounds 2 > $OUT/tn_new_$r.log 2>&1
  FERROCUTE_KERNEL=sm90_128x128x64_s6_pp $B $S --layout tn --rounds 2 > $OUT/tn_old_$r.log 2>&1
done
python3 .gpu/parse.py $OUT/tn_*.log
