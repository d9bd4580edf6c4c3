#!/bin/bash
# Session 37, run 6 (~4.5 minutes, the session's last device minutes): the packed-pairs tile
# test that run 5's limit cut off, while the probe builds; then ncu on the in-bucket kernel's
# load-and-write part alone (HYB_DIAG 1, 0.58 ms in run 5, 1.8x a copy) and on the 256x10x4
# block. Carry .device (bins.tar.xz staged from fb0f0f0).
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
B=/tmp/probe
mkdir -p $B
build() {
    local name=$1
    shift
    (cd bench/proto && timeout 200 nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | grep -v Warn | head -8)
}
pids=()
build packed_b1_d1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=1 & pids+=($!)
build packed_b1_t256_i10 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=13 & pids+=($!)
echo "-- packed test (limit 165 s)"
timeout 165 $D/tests/cuda_runtime --test-threads 1 --exact packed_pairs_tiles_orders_ranges_and_skips 2>&1 | grep -E "^test |^test result|FAILED|panicked|failed|rror|mismatch" | head -30
wait "${pids[@]}"
echo "built ($SECONDS s)"
M=smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
for b in packed_b1_d1 packed_b1_t256_i10; do
    [ $SECONDS -lt 215 ] || break
    echo "=== ncu $b 2^26 ($SECONDS s)"
    timeout 40 ncu -k hybrid_local_sort -c 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --metrics $M $B/$b 26 1 2>&1 | grep -v "^==PROF==\|^  median\|^CUB\|^    ---\|^ *$" | tail -60
done
echo "done ($SECONDS s)"
