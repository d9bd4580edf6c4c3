#!/bin/bash
# Session 38, run 3 (run 2 cut to the device time left, ~4 min): the hybrid test (u32 and u64
# hybrids, the packed hybrid, tie runs) with session 38's defaults (warps balanced, the
# 256x10x4x13 in-bucket block up to 2^27 keys for u64 keys and u64/u32 pairs), then those
# sorts against CUB at 2^24, 2^26, 2^27 and 2^28 (run 1 has session 37's defaults at 2^24,
# 2^26 and 2^28 on an H100). Carry .device (bins.tar.xz staged from b4c6453).
. "$(dirname "$0")/../device-lib.sh"
cuda_test hybrid-test 160 -- --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew
NOCUB=
peers new 2^24,2^26,2^27,2^28 "sort-keys u64,sort-pairs u64/u32"
echo "done ($SECONDS s)"
