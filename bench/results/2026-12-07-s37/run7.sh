#!/bin/bash
# Session 37, run 7 (did not run: too little device time was left; the next session's first
# run, ~7 minutes): do run 5's balanced in-bucket warps (HYB_BALANCE=1: -17% on the packed
# kernel) and the 256x10x4x13 block (-35%) speed up the u64 hybrid, the default for u64 keys
# from 2^23 and u64 pairs from 2^21? u64 keys and u64/u32 pairs at 2^24, 2^26 and 2^28: the
# defaults with CUB, then balanced, balanced at 256x10x4x13 and at 256x12x4x12 (no CUB), the
# defaults again (drift); then the hybrid test balanced, and balanced at 256x10x4x13. Also the
# probe's parts at the 256x10x4 block (run 5 timed them at 512x16 only), built while the
# benches run. Carry .device (bins.tar.xz staged from fb0f0f0 or later).
. "$(dirname "$0")/../device-lib.sh"
T256="-DPROBE_PACKED=1 -DHYB_BALANCE=1 -DHYBRID_LOCAL_THREADS=256 -DHYBRID_LOCAL_ITEMS=10 -DHYBRID_LOCAL_MIN_BLOCKS=4 -DPROBE_FILL16=13"
pids=()
probe_build t256_i10 $T256 & pids+=($!)
probe_build t256_i10_d1 $T256 -DHYB_DIAG=1 & pids+=($!)
probe_build t256_i10_d2 $T256 -DHYB_DIAG=2 & pids+=($!)
probe_build t256_i10_d3 $T256 -DHYB_DIAG=3 & pids+=($!)
S=2^24,2^26,2^28
C="sort-keys u64,sort-pairs u64/u32"
BAL=HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
NOCUB=
peers u64-default $S "$C"
NOCUB=--no-cub
peers u64-bal $S "$C" $BAL
peers u64-bal-256x10 $S "$C" $BAL HISTOSORT_HYBRID_LOCAL=256x10x4x13
peers u64-bal-256x12 $S "$C" $BAL HISTOSORT_HYBRID_LOCAL=256x12x4x12
peers u64-default-again $S "$C"
pack_json
H=(--exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew)
cuda_test hybrid-test-bal 150 $BAL -- "${H[@]}"
cuda_test hybrid-test-bal-256x10 150 $BAL HISTOSORT_HYBRID_LOCAL=256x10x4x13 -- "${H[@]}"
wait "${pids[@]}"
for b in t256_i10 t256_i10_d1 t256_i10_d2 t256_i10_d3; do
    probe_run $b 26 11
done
echo "done ($SECONDS s)"
