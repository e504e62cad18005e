#!/bin/bash
# A/B: the 256x160 cooperative narrow tile (tile_256x160.patch, listed first among the
# narrow tiles: gemm_256, whole rounds and forced stream-K) against the build before (gemm:
# 128x160, stream-K past two rounds). Both bf16-only builds of the same kernel code
# otherwise. Run from the repository root with the binaries in .gpu/ and
# ../2026-11-29-h200-two-round-narrow/parse.py as .gpu/parse.py.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
A=""; for s in 144x28672x4096 160x28672x4096 144x57344x8192 160x57344x8192 144x59136x8192 \
  160x37888x3584 160x14336x4096 160x10240x8192 144x18944x3584 144x11008x4096 136x28672x4096; do A="$A --shape $s"; done
for r in 1 2; do
  timeout 100 .gpu/gemm_256 $A --layout tn,rm --rounds 2 > $OUT/n256_$r.log 2>&1
  timeout 100 .gpu/gemm $A --layout tn,rm --rounds 2 > $OUT/old_$r.log 2>&1
done
FERROCUTE_STREAM_K=1 timeout 100 .gpu/gemm_256 $A --layout tn --rounds 2 > $OUT/n256sk_1.log 2>&1
python3 .gpu/parse.py $OUT/*.log
