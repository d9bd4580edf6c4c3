#!/bin/bash
# Session 37, run 5: the pass-launch tests that run 3 (session 36's run3.sh) cut short (its
# 130 s limit was too short for the hybrid test; session 35 gave it 240 s), and the probe, whose
# CUB headers run 3 could not build (the kernels' macros came first; mended). Carry .device
# (bins.tar.xz staged from fb0f0f0). The probe also builds the one-digit top sort (HYB_TOP_BITS=8:
# one ranking pass, then the tie runs by insertion), which session 31 measured at twice the
# two-pass kernel's time in the library.
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
    (cd bench/proto && timeout 300 nice nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | grep -v Warn | head -8)
}
pids=()
build packed_b0 -DPROBE_PACKED=1 -DHYB_BALANCE=0 & pids+=($!)
build packed_b1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 & pids+=($!)
build packed_b1_t256_i10 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=13 & pids+=($!)
build packed_b1_t256_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=12 & pids+=($!)
build packed_b1_d1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=1 & pids+=($!)
build packed_b1_d2 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=2 & pids+=($!)
build packed_b1_d3 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=3 & pids+=($!)
build packed_b1_top8 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_TOP_BITS=8u & pids+=($!)
build packed_b1_t256_i10_top8 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=13 -DHYB_TOP_BITS=8u & pids+=($!)
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s, limit $s s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test |^test result|FAILED|panicked|failed|rror|mismatch" | head -60; }
CMD=($D/tests/cuda_runtime --test-threads 1 onesweep_tiles_orders_bit_ranges_and_pairs packed_pairs_tiles_orders_ranges_and_skips)
t passes 140 X=1
CMD=($D/tests/cuda_runtime --test-threads 1 --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew)
t hybrid-test 200 X=1
wait "${pids[@]}"
echo "built ($SECONDS s)"
ls $B
for b in packed_b0 packed_b1 packed_b1_t256_i10 packed_b1_d1 packed_b1_d2 packed_b1_d3 packed_b1_top8 packed_b1_t256_i10_top8 packed_b1_t256_i12; do
    [ $SECONDS -lt 395 ] || break
    echo "=== $b 2^26 ($SECONDS s)"
    timeout 20 $B/$b 26 9 > /tmp/o.txt 2>&1
    if [ $b = packed_b0 ]; then cat /tmp/o.txt; else
        grep -E "^n =|chunk_log2|per SM|MISMATCH|equals|not run|rror" /tmp/o.txt
        grep -A2 "^hybrid_local_sort (top" /tmp/o.txt | tail -2
    fi
done
echo "done ($SECONDS s)"
