#!/bin/bash
# Session 38, run 4 (run 3 cut to the ~2 minutes of device time a start would leave): u64 keys
# and u64/u32 pairs at 2^27 (the largest length the 256x10x4x13 in-bucket block takes) with
# session 38's defaults against CUB, then the hybrid test with those defaults (its new tie
# inputs, the path counts). Carry .device (bins.tar.xz staged from b4c6453).
. "$(dirname "$0")/../device-lib.sh"
NOCUB=
peers new-2p27 2^27 "sort-keys u64,sort-pairs u64/u32"
cuda_test hybrid-test 130 -- --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew
echo "done ($SECONDS s)"
