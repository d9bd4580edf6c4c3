#!/bin/bash
# Session 41, run 1 (binaries staged from b9602a8's code: histosort and tests/cuda_runtime):
# session 40's run 3 (never ran) and more while time is left. The u64 keys' in-bucket prefetch
# (their default since session 40: 528 blocks ahead on the small block) against 0; issue 5's
# u64 keys row (CUB in the same run); the packed hybrid of u32/u32 pairs forced on against the
# default (the packed LSD sort) with CUB, two rounds; then the hybrid test on these defaults and
# the packed one-bucket test at its new size (2^26 + 3 pairs). Carry .device.
. "$(dirname "$0")/../device-lib.sh"
PA=HISTOSORT_KERNEL_DEFINES=HYB_PREFETCH_AHEAD
L=2^24,2^25,2^26,2^27,2^28
NOCUB=--no-cub
peers u64-default 2^24,2^26 "sort-keys u64"
peers u64-pf0 2^24,2^26 "sort-keys u64" $PA=0
peers u64-default-again 2^24,2^26 "sort-keys u64"
peers u64-pf0-again 2^24,2^26 "sort-keys u64" $PA=0
NOCUB= peers pairs-default $L "sort-pairs u32"
peers pairs-hyb $L "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
peers pairs-hyb-again $L "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
peers pairs-default-again $L "sort-pairs u32"
NOCUB= peers u64-table 2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^25,2^26,2^27,2^28 "sort-keys u64"
pack_json
echo "-- benchmarks done ($SECONDS s)"
cuda_test hybrid-test $((560 - SECONDS > 150 ? 150 : 560 - SECONDS)) -- hybrid_sort_takes_uniform
cuda_test packed-one-bucket $((585 - SECONDS)) -- packed_hybrid_sorts_one_bucket_a_chunk
echo "done ($SECONDS s)"
