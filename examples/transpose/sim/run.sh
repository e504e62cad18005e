#!/usr/bin/env bash
# Runs kernels/transpose.cu on the CPU (sim/host_sim.cu) against the header the crate's
# build script generates. Needs nvcc and CuTe, as CI installs them:
#   examples/transpose/sim/run.sh [toolchain folder, default $FERROCUTE_TOOLCHAIN or ../../.toolchain]
set -euo pipefail
cd "$(dirname "$0")/.."
tc=$(realpath "${1:-${FERROCUTE_TOOLCHAIN:-../../.toolchain}}")
target=${CARGO_TARGET_DIR:-target}
cargo build -q
header=$(ls -t "$target"/debug/build/ferrocute-example-transpose-*/out/transpose_configs.h | head -1)
tmp=$(mktemp -d)
"$tc/nvidia/cu13/bin/nvcc" -std=c++17 -O1 --expt-relaxed-constexpr -cudart none \
  -I"$tc/cutlass_library/source/include" -I"$(dirname "$header")" \
  -DFERROCUTE_MODULE_HEADER='"transpose_configs.h"' -c sim/host_sim.cu -o "$tmp/sim.o"
cc -c sim/stubs.c -o "$tmp/stubs.o"
c++ "$tmp/sim.o" "$tmp/stubs.o" -o "$tmp/sim"
"$tmp/sim"
