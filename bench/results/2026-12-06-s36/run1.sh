#!/bin/bash
# Session 36, run 1: the in-bucket kernel on its own (bench/proto/hybrid_inbucket.cu, nvcc, no
# Rust), packed u32/u32 pairs: as it is, warps balanced, keys staged, and blocks that a chunk
# fills 2/3 or 4/5 of (12 or 10 items a thread, 3 blocks an SM; or blocks of 256 threads, 4 an
# SM) rather than half; then ncu on four of them (instructions, predication, stalls, shared-memory conflicts). HYB_DIAG 1/2/3 time
# parts of the kernel (no passes; one pass; no tie walk), their outputs wrong by design.
cd "$(dirname "$0")/../../.."
exec > >(tee -a $OUT/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
B=/tmp/probe
mkdir -p $B
build() {
    local name=$1
    shift
    (cd bench/proto && timeout 200 nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | grep -v Warn | head -20)
}
# Waited for by pid: a bare `wait` would also wait for the tee above.
pids=()
build pairs_b0 -DPROBE_PACKED=0 -DHYB_BALANCE=0 & pids+=($!)
build packed_b0 -DPROBE_PACKED=1 -DHYB_BALANCE=0 & pids+=($!)
build packed_b1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 & pids+=($!)
build packed_b1_s1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_STAGE=1 & pids+=($!)
build packed_b0_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=0 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=12 & pids+=($!)
build packed_b1_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=12 & pids+=($!)
build packed_b1_i10 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=13 & pids+=($!)
build packed_b1_t256_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=12 & pids+=($!)
build packed_b1_t256_i10 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=13 & pids+=($!)
build packed_b1_d1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=1 & pids+=($!)
build packed_b1_d2 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=2 & pids+=($!)
build packed_b1_d3 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=3 & pids+=($!)
wait "${pids[@]}"
echo "built ($SECONDS s)"
ls $B
for lg in 26 28; do
    for b in pairs_b0 packed_b0 packed_b1 packed_b1_s1 packed_b0_i12 packed_b1_i12 packed_b1_i10 packed_b1_t256_i12 packed_b1_t256_i10 packed_b1_d1 packed_b1_d2 packed_b1_d3; do
        [ $lg = 28 ] && [[ $b == *_d? ]] && continue
        echo "=== $b 2^$lg ($SECONDS s)"
        timeout 60 $B/$b $lg 21 > /tmp/o.txt 2>&1
        if [ $b = pairs_b0 ]; then cat /tmp/o.txt; else
            grep -E "^n =|chunk_log2|per SM|MISMATCH|equals|not run|rror" /tmp/o.txt
            grep -A2 "^hybrid_local_sort (top" /tmp/o.txt | tail -2
        fi
    done
done 2>&1 | head -200
M=smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__bytes.sum
for b in packed_b0 packed_b1 packed_b1_i12 packed_b1_t256_i12; do
    echo "=== ncu $b 2^26 ($SECONDS s)"
    timeout 90 ncu -k hybrid_local_sort -c 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --metrics $M $B/$b 26 1 2>&1 | grep -v "^==PROF==\|^  median\|^CUB" | tail -60
done
echo "=== ncu full packed_b1 2^22 ($SECONDS s)"
timeout 100 ncu -k hybrid_local_sort -c 1 --set full --import-source yes -o $OUT/b1 $B/packed_b1 22 1 > /dev/null 2>&1
timeout 60 ncu -i $OUT/b1.ncu-rep --page source --csv --print-source sass > $OUT/b1_sass.csv 2> $OUT/b1_sass.err
ls -la $OUT
gzip -9 $OUT/b1_sass.csv
echo "done ($SECONDS s)"
