#!/bin/bash
# Session 36, run 4: run3.sh cut to what ~4 device minutes hold (the device refused eleven
# starts): the library's packed hybrid (balanced; today's in-bucket block and 256x10x4x13)
# against the packed LSD sort with CUB at 2^24 and 2^26; the probe at 2^26 in seven builds;
# then the pass-launch tests with what time is left. Carry .device (bins.tar.xz staged from
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
    (cd bench/proto && timeout 200 nice nvcc -O3 -std=c++17 -arch=sm_90 "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | grep -v Warn | head -20)
}
pids=()
build packed_b0 -DPROBE_PACKED=1 -DHYB_BALANCE=0 & pids+=($!)
build packed_b1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 & pids+=($!)
build packed_b1_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=3 -DPROBE_FILL16=12 & pids+=($!)
build packed_b1_t256_i12 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=12 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=12 & pids+=($!)
build packed_b1_d1 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=1 & pids+=($!)
build packed_b1_d2 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYB_DIAG=2 & pids+=($!)
build packed_b1_t256_i10 -DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=13 & pids+=($!)
pk() {
  local l=$1; shift
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 60 $D/histosort bench peers $NOCUB --sizes 2^24,2^26 --cases "sort-pairs u32" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
NOCUB=
pk p-lsd X=1
NOCUB=--no-cub
H="HISTOSORT_HYBRID_MIN=2097152 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1"
pk p-hybrid-bal $H
pk p-hybrid-bal-256x10 $H HISTOSORT_HYBRID_LOCAL=256x10x4x13
(cd $OUT && tar czf json.tgz *.json && rm -f *.json *.svg)
wait "${pids[@]}"
echo "built ($SECONDS s)"
for b in packed_b0 packed_b1 packed_b1_t256_i10 packed_b1_t256_i12 packed_b1_i12 packed_b1_d1 packed_b1_d2; do
    echo "=== $b 2^26 ($SECONDS s)"
    timeout 30 $B/$b 26 11 > /tmp/o.txt 2>&1
    if [ $b = packed_b0 ]; then cat /tmp/o.txt; else
        grep -E "^n =|chunk_log2|per SM|MISMATCH|equals|not run|rror" /tmp/o.txt
        grep -A2 "^hybrid_local_sort (top" /tmp/o.txt | tail -2
    fi
done
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s, limit $s s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test |^test result|FAILED|panicked|failed|rror|mismatch" | head -60; }
F="onesweep_tiles_orders_bit_ranges_and_pairs packed_pairs_tiles_orders_ranges_and_skips hybrid_sort_takes_uniform_keys_and_falls_back_on_skew free_ranking_sorts_like_the_reference_and_only_where_order_is_free"
CMD=($D/tests/cuda_runtime --test-threads 1 $F)
t cuda_runtime-passes 300 X=1
echo "done ($SECONDS s)"
