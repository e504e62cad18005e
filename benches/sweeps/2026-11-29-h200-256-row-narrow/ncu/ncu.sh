#!/bin/bash
# ncu sections at 160x28672x4096 RM: our 128x160 narrow tile (whole rounds) against cuBLAS's
# 256x160 4-CTA-cluster kernel, with the SM clock and the tensor pipe's activity.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
NCU=/usr/local/cuda-13.0/bin/ncu
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats"
M="sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg,sm__cycles_active.avg,smsp__warps_issue_stalled_wait.avg,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
FERROCUTE_STREAM_K=0 timeout 200 $NCU --clock-control none $S --metrics $M -k regex:"ferrocute" --launch-skip 10 --launch-count 1 \
  .gpu/gemm --shape 160x28672x4096 --layout rm --iters 2 --rounds 1 > $OUT/ours.txt 2>&1
timeout 200 $NCU --clock-control none $S --metrics $M -k regex:"nvjet" --launch-skip 20 --launch-count 1 \
  .gpu/gemm --shape 160x28672x4096 --layout rm --iters 2 --rounds 1 > $OUT/cublas.txt 2>&1
for f in ours cublas; do echo "=== $f"; grep -E "^\s+(Duration|SM Frequency|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\)|Executed Ipc|Issue Slots|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Avg. Active Threads|Registers Per|Grid Size|Block Size|Dynamic Shared|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|sm__|smsp__|l1tex__)" $OUT/$f.txt; grep -E "^\s+(OPT|WRN|INF)" -A3 $OUT/$f.txt | head -40 | cut -c1-200; done
