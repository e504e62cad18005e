#!/bin/bash
# ncu at 160x28672x4096 and 144x59136x8192 RM, stream-K off and on (FERROCUTE_STREAM_K=0|1):
# our kernel (-k regex:"ferrocute" --launch-skip 10 --launch-count 2: ours_*.txt) and, in a
# first call, cuBLAS's (-k regex:"nvjet|ferrocute" --launch-skip 20 --launch-count 4 caught
# only nvjet launches: cublas_*.txt). ncu flushes the caches before each launch: cold L2.
[ -d .gpu/bench ] || tar -C .gpu -xJf .gpu/bins.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
NCU=/usr/local/cuda-13.0/bin/ncu
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,launch__grid_size,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"
for sh in 160x28672x4096 144x59136x8192; do
  for sk in 0 1; do
    FERROCUTE_STREAM_K=$sk timeout 200 $NCU --clock-control none --metrics $M -k regex:"ferrocute" \
      --launch-skip 10 --launch-count 2 .gpu/bench/gemm --shape $sh --layout rm --iters 2 --rounds 1 \
      > $OUT/ncu_${sh}_sk$sk.txt 2>&1
  done
done
