#!/bin/bash
# Session 38, run 2: the 64-bit hybrids with session 38's defaults (warps balanced, the
# 256x10x4x13 in-bucket block up to 2^27 keys for u64 keys and u64/u32 pairs) against CUB at
# every power of two from 2^21 to 2^28, then session 37's defaults in the same run at 2^22,
# 2^24, 2^26 and 2^27 (HYB_BALANCE 0, 512-thread blocks: 512x16x2 for keys, 512x10x2 for
# pairs; run 1 has them at 2^24-2^28), the hybrid test (u32 and
# u64 hybrids, the packed hybrid, tie runs) with the new defaults first. Carry .device (bins.tar.xz
# staged from this commit).
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
echo "done ($SECONDS s)"
