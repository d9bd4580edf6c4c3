#!/bin/bash
# Session 40, run 3 (not run: refused; restage from 84cbeeb or later first, whose packed
# one-bucket test fits its keys to the block; cut to fit the session's last ~340 s of device
# time): the u64 keys' in-bucket prefetch, now their default (528 blocks ahead on the
# small block), against 0; the hybrid test on these defaults; then the packed one-bucket test
# (2^26 + 3 pairs) while time is left. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
PA=HISTOSORT_KERNEL_DEFINES=HYB_PREFETCH_AHEAD
NOCUB=--no-cub
peers u64-default 2^24,2^26 "sort-keys u64"
peers u64-pf0 2^24,2^26 "sort-keys u64" $PA=0
pack_json
cuda_test hybrid-test 150 -- hybrid_sort_takes_uniform
cuda_test packed-one-bucket 150 -- packed_hybrid_sorts_one_bucket_a_chunk
echo "done ($SECONDS s)"
