#!/bin/bash
# A/B: the 128x192 pingpong tile writing an N-major D (TN at 161-192 tokens moved to the
# weight's side, `weight_side`) against the build before (gemm_old), TN and RM, alternated
# twice in one device call. Run from the repository root with the staged binaries and
# parse.py in .gpu/.
[ -d .gpu/bench ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
date -u | tee $OUT/device.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $OUT/device.txt
S=""
for s in 161x14336x4096 192x14336x4096 176x28672x4096 192x28672x4096 168x24576x4096 \
         176x37888x3584 192x37888x3584 192x57344x8192 192x59136x8192; do S="$S --shape $s"; done
P="--shape 3072x3072x4096 --shape 3072x3072x1024 --shape 3072x3072x3072"
for r in 1 2; do
  .gpu/bench/gemm $S --layout tn,rm --rounds 2 > $OUT/ab_new_$r.log 2>&1
  .gpu/bench/gemm_old $S --layout tn,rm --rounds 2 > $OUT/ab_old_$r.log 2>&1
  # prefill on the 128x192 tile's kk and mk entry points, which gained the N-major D code
  .gpu/bench/gemm $P --layout tn,nn --rounds 2 > $OUT/ab_new_pre_$r.log 2>&1
  .gpu/bench/gemm_old $P --layout tn,nn --rounds 2 > $OUT/ab_old_pre_$r.log 2>&1
done
python3 .gpu/parse.py $OUT/ab_new_[12].log $OUT/ab_old_[12].log
python3 .gpu/parse.py $OUT/ab_*_pre_*.log
# racecheck once more, its hazards by kernel (only the first files under $OUT come back)
S=/usr/local/cuda-13.0/bin/compute-sanitizer
timeout 400 $S --tool racecheck .gpu/test/gpu_large --ignored --exact gpu_tokens_on_n_of_the_128x192_tile > /tmp/rc.log 2>&1
echo "racecheck rc=$? hazard lines: $(grep -c 'hazard' /tmp/rc.log), in ferrocute kernels: $(grep 'hazard' /tmp/rc.log | grep -c ferrocute)"; grep -E "RACECHECK SUMMARY|test result" /tmp/rc.log
