#!/bin/bash
# Session 42, after an hour of refused starts (~650 s of device time left): the small-sorts GPU
# test with this session's new sizes (the single launch from the pass module), the single launch
# timed at 2^18 / 3 x 2^18 / 2^20 with CUB, then session 41's dip (5 x 2^24 u32/u32 pairs) with
# the keys-only sort beside it and one gap (64 MiB) before each of histosort's buffers, while
# time is left. ~300 s. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
cuda_test fused 150 -- small_sorts_counting_sort_and_single_launch
NOCUB= peers fused 262144,786432,1048576 "sort-keys u32,sort-pairs u32,sort-keys u64"
S=83886080,100663296
[ $SECONDS -lt 240 ] && NOCUB= peers dip $S "sort-keys u32,sort-pairs u32"
[ $SECONDS -lt 280 ] && NOCUB=--no-cub peers dip-pad64m $S "sort-pairs u32" HISTOSORT_ALLOC_PAD=67108864
pack_json
echo "done ($SECONDS s)"
