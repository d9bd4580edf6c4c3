#!/bin/bash
# Session 37, run 7 (did not run: too little device time was left; the next session's first
# run, ~7 minutes): do run 5's balanced in-bucket warps (HYB_BALANCE=1: -17% on the packed
# kernel) and the 256x10x4x13 block (-35%) speed up the u64 hybrid, the default for u64 keys
# from 2^23 and u64 pairs from 2^21? u64 keys and u64/u32 pairs at 2^24, 2^26 and 2^28: the
# defaults with CUB, then balanced, balanced at 256x10x4x13 and at 256x12x4x12 (no CUB), the
# defaults again (drift); then the hybrid test balanced, and balanced at 256x10x4x13. Carry
# .device (bins.tar.xz staged from fb0f0f0 or later). Also the probe's parts at the 256x10x4 block
# (run 5 timed them at 512x16 only), built while the benches run.
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
    (cd bench/proto && timeout 300 nice nvcc -O3 -std=c++17 -arch=sm_90 "$@" hybrid_inbucket.cu -o $B/$name 2>&1 | grep -v Warn | head -8)
}
T256="-DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=13"
pids=()
build t256_i10 $T256 & pids+=($!)
build t256_i10_d1 $T256 -DHYB_DIAG=1 & pids+=($!)
build t256_i10_d2 $T256 -DHYB_DIAG=2 & pids+=($!)
build t256_i10_d3 $T256 -DHYB_DIAG=3 & pids+=($!)
pk() {
  local l=$1; shift
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 90 $D/histosort bench peers $NOCUB --sizes 2^24,2^26,2^28 --cases "sort-keys u64,sort-pairs u64/u32" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
NOCUB=
pk u64-default X=1
NOCUB=--no-cub
pk u64-bal HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
pk u64-bal-256x10 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1 HISTOSORT_HYBRID_LOCAL=256x10x4x13
pk u64-bal-256x12 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1 HISTOSORT_HYBRID_LOCAL=256x12x4x12
pk u64-default-again X=1
(cd $OUT && tar czf json.tgz *.json && rm -f *.json *.svg)
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s, limit $s s)"; env "$@" timeout $s $D/tests/cuda_runtime --test-threads 1 --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew 2>&1 | grep -E "^test |^test result|FAILED|panicked|failed|rror|mismatch" | head -30; }
t hybrid-test-bal 150 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
t hybrid-test-bal-256x10 150 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1 HISTOSORT_HYBRID_LOCAL=256x10x4x13
wait "${pids[@]}"
for b in t256_i10 t256_i10_d1 t256_i10_d2 t256_i10_d3; do
    echo "=== $b 2^26 ($SECONDS s)"
    timeout 30 $B/$b 26 11 > /tmp/o.txt 2>&1
    grep -E "^n =|chunk_log2|per SM|MISMATCH|equals|not run|rror" /tmp/o.txt
    grep -A2 "^hybrid_local_sort (top" /tmp/o.txt | tail -2
done
echo "done ($SECONDS s)"
