#!/bin/bash
# Session 36, run 3 (a probe run and a library run in one call, the device having refused five
# starts; it never ran in session 36): the probe variants build in the background while the
# library's benches run; then the pass-launch tests, the probe at 2^26 (and 2^28 for two), ncu on
# two (today's block and 256x10x4), the hybrid test on the 256x10x4x13 block, and the rest of the
# cuda_runtime suite with what time is left. The library's packed hybrid runs balanced with
# today's in-bucket block and with 256x10x4x13 and 256x12x4x12 (HISTOSORT_HYBRID_LOCAL). Carry
# .device with bins.tar.xz (histosort, tests/cuda_runtime and run-gpu-suite.sh staged from
# bd7e40c or later).
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
B=/tmp/probe
mkdir -p $B
build() {
    local name=$1
    shift
    (cd bench/proto && timeout 240 nice nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | grep -v Warn | head -20)
}
pids=()
build packed_b0 -DPROBE_PACKED=1 -DHYB_BALANCE=0 & pids+=($!)
build packed_b1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 & pids+=($!)
build packed_b1_s1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_STAGE=1 & pids+=($!)
build packed_b1_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=12 & pids+=($!)
build packed_b1_i10 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=13 & pids+=($!)
build packed_b1_t256_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=12 & pids+=($!)
build packed_b1_t256_i10 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=13 & pids+=($!)
build packed_b1_d1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=1 & pids+=($!)
build packed_b1_d2 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=2 & pids+=($!)
build packed_b1_d3 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=3 & pids+=($!)
pk() {
  local l=$1; shift
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 100 $D/histosort bench peers $NOCUB --sizes 2^24,2^26,2^28 --cases "sort-pairs u32" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
NOCUB=
pk p-lsd X=1
NOCUB=--no-cub
H="HISTOSORT_HYBRID_MIN=2097152 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1"
pk p-hybrid-bal $H
pk p-hybrid-bal-256x10 $H HISTOSORT_HYBRID_LOCAL=256x10x4x13
pk p-hybrid-bal-256x12 $H HISTOSORT_HYBRID_LOCAL=256x12x4x12
(cd $OUT && tar czf json.tgz *.json && rm -f *.json *.svg)
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s, limit $s s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test |^test result|FAILED|panicked|failed|rror|mismatch" | head -60; }
# The refactored pass launch first (every onesweep pass, the hybrid's, the packed hybrid's).
F="onesweep_tiles_orders_bit_ranges_and_pairs packed_pairs_tiles_orders_ranges_and_skips hybrid_sort_takes_uniform_keys_and_falls_back_on_skew free_ranking_sorts_like_the_reference_and_only_where_order_is_free"
CMD=($D/tests/cuda_runtime --test-threads 1 $F)
t cuda_runtime-passes 130 X=1
wait "${pids[@]}"
echo "built ($SECONDS s)"
ls $B
for lg in 26 28; do
    for b in packed_b0 packed_b1 packed_b1_s1 packed_b1_i12 packed_b1_i10 packed_b1_t256_i12 packed_b1_t256_i10 packed_b1_d1 packed_b1_d2 packed_b1_d3; do
        [ $lg = 28 ] && [[ $b != packed_b0 && $b != packed_b1 ]] && continue
        echo "=== $b 2^$lg ($SECONDS s)"
        timeout 40 $B/$b $lg 15 > /tmp/o.txt 2>&1
        if [ $b = packed_b0 ]; then cat /tmp/o.txt; else
            grep -E "^n =|chunk_log2|per SM|MISMATCH|equals|not run|rror" /tmp/o.txt
            grep -A2 "^hybrid_local_sort (top" /tmp/o.txt | tail -2
        fi
    done
done 2>&1 | head -200
M=smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__bytes.sum
for b in packed_b1 packed_b1_t256_i10; do
    [ $SECONDS -lt 360 ] || break
    echo "=== ncu $b 2^26 ($SECONDS s)"
    timeout 60 ncu -k hybrid_local_sort -c 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --metrics $M $B/$b 26 1 2>&1 | grep -v "^==PROF==\|^  median\|^CUB" | tail -50
done
CMD=($D/tests/cuda_runtime --test-threads 1 --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew)
t hybrid-test-bal-256x10 100 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1 HISTOSORT_HYBRID_LOCAL=256x10x4x13
CMD=($D/tests/cuda_runtime --test-threads 1 $(for f in $F; do echo --skip $f; done))
t cuda_runtime-rest $((575 - SECONDS)) X=1
echo "done ($SECONDS s)"
