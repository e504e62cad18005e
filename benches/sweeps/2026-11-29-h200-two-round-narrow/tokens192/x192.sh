#!/bin/bash
[ -d .gpu/test ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt; date -u | tee -a $OUT/device.txt
B=.gpu/bench/gemm
$B --shapes llm --tokens 192,256 --layout tn,rm --rounds 2 > $OUT/llm.log 2>&1
S="--shape 192x28672x4096 --shape 256x28672x4096 --shape 192x57344x8192 --shape 256x37888x3584 --shape 192x14336x4096"
for k in sm90_128x192x64_s4_pp sm90_128x256x64_s4_coop sm90_128x128x64_s6_pp sm90_128x160x64_s5_coop; do
  FERROCUTE_KERNEL=$k $B $S --layout tn,rm --rounds 2 > $OUT/forced_$k.log 2>&1
done
$B $S --layout tn,rm --rounds 2 > $OUT/dispatch.log 2>&1
python3 .gpu/parse.py $OUT/forced_*.log $OUT/dispatch.log
