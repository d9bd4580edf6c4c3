#!/bin/bash
# Session 40, run 3 (binaries staged from 5c5a33d): the u64 keys'
# in-bucket prefetch, now their default (528 blocks ahead on the small block), against 0 in
# alternation; the packed hybrid forced on from 2^26 (one bucket a chunk) and the LSD default;
# then the hybrid tests on these defaults (the packed one-bucket test now at 2^26 + 3 pairs).
# Carry .device.
. "$(dirname "$0")/../device-lib.sh"
PA=HISTOSORT_KERNEL_DEFINES=HYB_PREFETCH_AHEAD
NOCUB=--no-cub
for r in 1 2; do
  peers u64-default-r$r 2^24,2^25,2^26,2^27 "sort-keys u64"
  peers u64-pf0-r$r 2^24,2^25,2^26,2^27 "sort-keys u64" $PA=0
done
peers pairs-hyb 2^26,2^27 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
peers pairs-default 2^26,2^27 "sort-pairs u32"
pack_json
cuda_test hybrid-tests 330 -- packed_hybrid_sorts_one_bucket_a_chunk hybrid_sort_takes_uniform
echo "done ($SECONDS s)"
