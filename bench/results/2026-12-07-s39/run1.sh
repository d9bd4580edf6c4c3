#!/bin/bash
# Session 39, run 1: session 38's run2.sh (the 64-bit hybrids with session 38's defaults against
# CUB at every power of two from 2^21 to 2^28, the hybrid test first, session 37's defaults at
# 2^22-2^27 in the same run), then the CPU byte histogram on the GPU host's Xeon: session 38's
# counter (hist_prof_old) against session 39's (hist_prof_new: masks from compares), and the
# read floor (hist_prof_new read). Carry .device
# (bins.tar.xz staged from fde351d, the two hist_prof builds beside it).
. "$(dirname "$0")/../device-lib.sh"
LO=2^21,2^22,2^23,2^24
HI=2^25,2^26,2^27,2^28
K="sort-keys u64"
P="sort-pairs u64/u32"
OLD=HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=0
cuda_test hybrid-test 200 -- --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew
NOCUB=
peers new-hi $HI "$K,$P"
peers new-lo $LO "$K,$P"
NOCUB=--no-cub
O=2^22,2^24,2^26,2^27
peers old-keys $O "$K" $OLD HISTOSORT_HYBRID_LOCAL=512x16x2
peers old-pairs $O "$P" $OLD HISTOSORT_HYBRID_LOCAL=512x10x2
pack_json
echo "-- CPU byte histogram ($SECONDS s)"
lscpu | grep -E "Model name|^CPU\(s\)"
for t in 1 2 16; do
    for v in old new old new; do
        echo -n "$v: "
        timeout 60 "$D/hist_prof_$v" simd $t 5
    done
    echo -n "read floor: "
    timeout 60 "$D/hist_prof_new" read $t 5
done
echo "done ($SECONDS s)"
