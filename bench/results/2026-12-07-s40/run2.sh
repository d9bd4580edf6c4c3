#!/bin/bash
# Session 40, run 2 (binaries staged from f674f00's code: histosort and tests/cuda_runtime):
# the packed hybrid of u32/u32 pairs with one 16-bit bucket a chunk from 2^24 pairs on blocks of
# 5 pairs a thread at 2048 threads an SM (forced on with HISTOSORT_HYBRID_MIN=1; off by
# default) against the packed LSD sort, then the in-bucket kernel's L2 prefetch of a later
# block's chunk (HYB_PREFETCH_AHEAD, 0 by default, set through HISTOSORT_KERNEL_DEFINES) there
# and for the 64-bit hybrids, the hybrid tests, and issue 5's table while time is left.
# Carry .device.
. "$(dirname "$0")/../device-lib.sh"
H=$D/histosort
PA=HISTOSORT_KERNEL_DEFINES=HYB_PREFETCH_AHEAD
L=2^24,2^25,2^26,2^27,2^28
NOCUB=--no-cub
NOCUB= peers pairs-default $L "sort-pairs u32"
peers pairs-hyb $L "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
peers pairs-hyb-pf1056 $L "sort-pairs u32" HISTOSORT_HYBRID_MIN=1 $PA=1056
peers pairs-hyb-pf528 2^24,2^26,2^28 "sort-pairs u32" HISTOSORT_HYBRID_MIN=1 $PA=528
peers u64-default 2^24,2^26,2^28 "sort-keys u64,sort-pairs u64"
peers u64-pf528 2^24,2^26,2^28 "sort-keys u64,sort-pairs u64" $PA=528
peers pairs-default-again $L "sort-pairs u32"
peers pairs-hyb-again $L "sort-pairs u32" HISTOSORT_HYBRID_MIN=1
pack_json
mv "$OUT/json.tgz" "$OUT/json-exp.tgz"
cuda_test hybrid-tests 240 -- packed_hybrid_sorts_one_bucket_a_chunk hybrid_sort_takes_uniform
echo "-- experiment done ($SECONDS s)"
# Issue 5's table, CUB in the same run (`sort-keys u32` also takes the bits [0,16) case).
S=2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
for c in "sort-pairs u32" "sort-keys f32" "sort-keys u32" "sort-keys u64"; do
  [ $SECONDS -gt 470 ] && { echo "skipped $c (time)"; continue; }
  l=${c// /-}
  echo "-- $l ($SECONDS s)"
  timeout $((560 - SECONDS)) $H bench peers --sizes "$S" --cases "$c" --json "$OUT/$l.json" 2>&1 |
    grep -E "^sort|rror|anic|bench on"
done
pack_json
echo "done ($SECONDS s)"
