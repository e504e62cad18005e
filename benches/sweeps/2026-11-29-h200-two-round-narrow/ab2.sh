#!/bin/bash
# The two-round narrow tile at its bounds: FERROCUTE_EXP_TWO_ROUNDS (an experimental switch
# of the build measured, since replaced by the rule in narrow_pick) against the dispatch.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
B=".gpu/bench/gemm"
date -u | tee $OUT/device.txt
S="--shape 160x18432x8192 --shape 136x18432x4096 --shape 144x17408x4096 --shape 160x20480x4096 --shape 129x16896x4096 --shape 150x24576x2048 --shape 160x36864x1024"
for r in 1 2; do
  FERROCUTE_EXP_TWO_ROUNDS=1 $B $S --layout tn,rm --rounds 2 > $OUT/b_new_$r.log 2>&1
  $B $S --layout tn,rm --rounds 2 > $OUT/b_old_$r.log 2>&1
done
python3 .gpu/parse.py $OUT/*.log
