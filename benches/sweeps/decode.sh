#!/usr/bin/env bash
# The decode sweep behind the small-M dispatch (BENCHMARKS.md, "Decode dispatch"): the
# `llm` shapes (benches/gemm/problem.rs) at 1 to 256 tokens with the dispatcher's choice
# (3 alternating rounds, every layout), with each small-M kernel forced in turn
# (FERROCUTE_KERNEL, one round, TN: a row-major C runs the same kernels transposed; a
# kernel not eligible for a shape leaves the dispatcher's choice, which the row names; the
# register-streaming kernel's 8- and 4-warp CTAs also NN), and the register-streaming
# kernel's K parts forced (FERROCUTE_SPLIT_K) on narrow weights;
# each against cuBLAS in the same process. One file per run under OUT; summarise with
# `python3 benches/sweeps/summarise.py OUT`.
#
#   bash benches/sweeps/decode.sh [BENCH_BINARY] [OUT]     (on the GPU machine)
set -uo pipefail
bin=${1:-.gpu/bench/gemm}
out=${2:-sweep}
mkdir -p "$out"
few=(--bench --shapes llm --tokens 1,2,4,8,16 --iters 20)
more=(--bench --shapes llm --tokens 32,64,128,192,256 --iters 20)
"$bin" "${few[@]}" --rounds 3 --layout all >"$out/dispatch_m16.txt"
"$bin" "${more[@]}" --rounds 3 --layout all >"$out/dispatch_m256.txt"
FERROCUTE_KERNEL=sm90_splitk_64x64x64_s13 "$bin" "${few[@]}" --layout tn \
  >"$out/sm90_splitk_64x64x64_s13_m16.txt"
for k in sm90_skinny16_w8 sm90_skinny16_w4; do
  FERROCUTE_KERNEL=$k "$bin" "${few[@]}" --layout tn,nn >"$out/${k}_m16.txt"
done
for k in sm90_splitk_64x64x64_s13 sm90_splitk_128x64x64_s9 sm90_splitk_64x128x64_s9 \
         sm90_splitk_64x128x64_s9_mc2 sm90_splitk_64x128x64_s9_mc4 sm90_splitk_64x64x64_s13_nc4 \
         sm90_splitk_128x64x64_s9_mc2 sm90_splitk_64x64x64_s13_mc2 sm90_splitk_96x64x64_s11_mc2 \
         sm90_splitk_96x128x64_s8_mc2 sm90_128x128x64_s6_pp sm90_128x96x64_s7_coop \
         sm90_128x160x64_s5_coop; do
  FERROCUTE_KERNEL=$k "$bin" "${more[@]}" --layout tn >"$out/${k}_m256.txt"
done
narrow=()
for s in 1x1024x4096 16x1024x4096 1x2048x4096 16x2048x8192 1x1024x14336 1x3584x3584 \
         1x4608x3584 1x6144x4096 16x6144x4096; do
  narrow+=(--shape "$s")
done
for parts in 1 2 4; do
  FERROCUTE_SPLIT_K=$parts "$bin" --bench "${narrow[@]}" --iters 20 --rounds 3 --layout tn \
    >"$out/parts${parts}_m16.txt"
done
"$bin" --bench "${narrow[@]}" --iters 20 --rounds 3 --layout tn >"$out/dispatch_narrow_m16.txt"
