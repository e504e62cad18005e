#!/bin/bash
# A/B: (1) RM weight side (weight_stays_on_m) vs forced 128x96 transposed (the choice before)
#      (2) FERROCUTE_EXP_TWO_ROUNDS (an experimental switch of the build measured, since the
#          rule in narrow_pick): 128x160 over the weight in two rounds
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
B=".gpu/bench/gemm"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
date -u | tee -a $OUT/device.txt
RM1="--shape 129x6144x4096 --shape 144x6144x4096 --shape 160x6144x4096 --shape 136x4608x3584 --shape 160x4608x3584"
BIG="--shape 144x28672x4096 --shape 160x28672x4096 --shape 129x28672x4096 --shape 144x37888x3584 --shape 160x37888x3584 --shape 144x57344x8192 --shape 160x59136x8192 --shape 136x22016x4096"
for r in 1 2; do
  $B $RM1 --layout rm --rounds 2 > $OUT/rm_new_$r.log 2>&1
  FERROCUTE_KERNEL=sm90_128x96x64_s7_coop $B $RM1 --layout rm --rounds 2 > $OUT/rm_old_$r.log 2>&1
  FERROCUTE_EXP_TWO_ROUNDS=1 $B $BIG --layout tn,rm --rounds 2 > $OUT/big_new_$r.log 2>&1
  $B $BIG --layout tn,rm --rounds 2 > $OUT/big_old_$r.log 2>&1
done
python3 .gpu/parse.py $OUT/*.log
