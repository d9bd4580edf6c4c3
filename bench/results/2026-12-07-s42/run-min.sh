#!/bin/bash
# Session 42, the last ~450 s of device time after refused starts: the small-sorts GPU test with
# this session's new sizes (the single launch from the pass module), then the single launch
# timed at 2^18 / 3 x 2^18 / 2^20 with CUB (u64/u32 pairs: the kernel from the pass module at
# 3 x 2^18 and 2^20). ~200 s. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
cuda_test fused 150 -- small_sorts_counting_sort_and_single_launch
NOCUB= peers fused 262144,786432,1048576 "sort-keys u32,sort-pairs u32,sort-pairs u64"
pack_json
echo "done ($SECONDS s)"
