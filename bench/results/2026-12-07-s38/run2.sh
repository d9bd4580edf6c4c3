#!/bin/bash
# Session 38, run 2: the 64-bit hybrids with session 38's defaults (warps balanced, the
# 256x10x4x13 in-bucket block up to 2^27 keys for u64 keys and u64/u32 pairs) against CUB at
# every power of two from 2^21 to 2^28, then session 37's defaults in the same run (HYB_BALANCE
# 0, 512-thread blocks: 512x16x2 for keys, 512x10x2 for pairs), then the hybrid test (u32 and
# u64 hybrids, the packed hybrid, tie runs) with the new defaults. Carry .device (bins.tar.xz
# staged from this commit).
. "$(dirname "$0")/../device-lib.sh"
LO=2^21,2^22,2^23,2^24
HI=2^25,2^26,2^27,2^28
K="sort-keys u64"
P="sort-pairs u64/u32"
OLD=HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=0
NOCUB=
peers new-lo $LO "$K,$P"
peers new-hi $HI "$K,$P"
NOCUB=--no-cub
peers old-keys-lo $LO "$K" $OLD HISTOSORT_HYBRID_LOCAL=512x16x2
peers old-keys-hi $HI "$K" $OLD HISTOSORT_HYBRID_LOCAL=512x16x2
peers old-pairs-lo $LO "$P" $OLD HISTOSORT_HYBRID_LOCAL=512x10x2
peers old-pairs-hi $HI "$P" $OLD HISTOSORT_HYBRID_LOCAL=512x10x2
pack_json
cuda_test hybrid-test 200 -- --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew
echo "done ($SECONDS s)"
