#!/usr/bin/env bash
# Session 35, run 1: the hybrid's in-bucket kernel for u32/u32 pairs on its own
# (bench/proto/hybrid_inbucket.cu, built here with nvcc): today's module against the warps
# balanced over a half-full chunk, packed 64-bit input, and a 3-blocks-per-SM shape.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
nvcc --version | tail -2
cd bench/proto
B=/tmp/probe
mkdir -p $B
build() {
    local name=$1
    shift
    nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | grep -v "^$" | head -20
}
build pairs_b0 -DPROBE_PACKED=0 -DHYB_BALANCE=0 &
build pairs_b1 -DPROBE_PACKED=0 -DHYB_BALANCE=1 &
build packed_b0 -DPROBE_PACKED=1 -DHYB_BALANCE=0 &
build packed_b1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 &
build packed_b1_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=12 &
build pairs_b1_i12 -DPROBE_PACKED=0 -DHYB_BALANCE=1 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=12 &
wait
ls -la $B
for lg in 26 24 28; do
    for b in pairs_b0 pairs_b1 packed_b0 packed_b1 packed_b1_i12 pairs_b1_i12; do
        echo "=== $b 2^$lg"
        timeout 120 $B/$b $lg 21
        echo "rc $?"
    done
done
# Where the time goes at 2^26 (the kernel alone, one launch each).
for b in pairs_b0 packed_b1 packed_b1_i12; do
    echo "=== ncu $b 2^26"
    timeout 150 ncu --kernel-name hybrid_local_sort --launch-skip 3 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section SchedulerStats --section WarpStateStats \
        --metrics smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
        $B/$b 26 3 2>&1 | grep -v "^==PROF==" | tail -80
done
