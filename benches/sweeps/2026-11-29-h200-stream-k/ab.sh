#!/bin/bash
# A/B: stream-K over the last tiles of a weight streamed through one tile of the tokens
# (geometry::stream_k_blocks) against whole rounds (FERROCUTE_STREAM_K=0), one binary, TN
# and RM, alternated twice in one device call; prefill shapes as a control. Run from the
# repository root with the staged binaries and parse.py in .gpu/.
[ -d .gpu/bench ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
date -u | tee $OUT/device.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $OUT/device.txt
S=""
for s in 144x28672x4096 160x28672x4096 160x57344x8192 144x59136x8192 160x37888x3584 \
         160x14336x4096 176x28672x4096 192x28672x4096 192x57344x8192 192x37888x3584 \
         128x28672x4096 128x57344x8192 128x37888x3584; do S="$S --shape $s"; done
P="--shape 3072x3072x4096 --shape 2048x2048x2048 --shape 4096x4096x4096"
for r in 1 2; do
  .gpu/bench/gemm $S --layout ${LAYOUTS:-tn,rm} --rounds 2 > $OUT/ab_sk_$r.log 2>&1
  FERROCUTE_STREAM_K=0 .gpu/bench/gemm $S --layout ${LAYOUTS:-tn,rm} --rounds 2 > $OUT/ab_whole_$r.log 2>&1
done
.gpu/bench/gemm $P --layout tn --rounds 2 > $OUT/prefill.log 2>&1
python3 .gpu/parse.py $OUT/ab_sk_[12].log $OUT/ab_whole_[12].log
python3 .gpu/parse.py $OUT/prefill.log
