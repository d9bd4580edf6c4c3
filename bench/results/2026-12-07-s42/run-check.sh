#!/bin/bash
# Session 42: (1) the single-launch sort's kernel loaded from the pass module where the tiles are
# the same: the GPU test of the small sorts (with this session's new sizes, 3 x 2^18 + 5 and
# 2^20 - 1, 2^20) and a timing at 2^18 / 3 x 2^18 / 2^20 with CUB (prediction: the same kernel
# code, so within noise of session 41's rows); (2) session 41's run 4, never run: the dip of
# every sort (and CUB) at 5 x 2^24 u32/u32 pairs. Is it the keys too, the length itself, or
# where the buffers lie (gaps of 2 and 64 MiB before each of histosort's buffers)? ~400 s.
# Carry .device.
. "$(dirname "$0")/../device-lib.sh"
cuda_test fused 200 -- small_sorts_counting_sort_and_single_launch
NOCUB= peers fused 262144,786432,1048576 "sort-keys u32,sort-pairs u32,sort-keys u64"
S=83886080,84934656,100663296
NOCUB= peers keys-dip $S "sort-keys u32"
NOCUB= peers pairs-dip $S "sort-pairs u32"
NOCUB=--no-cub
peers pairs-pad2m $S "sort-pairs u32" HISTOSORT_ALLOC_PAD=2097152
peers pairs-pad64m $S "sort-pairs u32" HISTOSORT_ALLOC_PAD=67108864
pack_json
echo "done ($SECONDS s)"
