#!/bin/bash
# Session 24 run 2: session 13's packed-pairs experiment on today's kernels. Do u32/u32 pairs
# sorted as 64-bit elements (key low, value high) by the u64 keys pass on bits [0, 32) beat
# the pairs pass now that the u64 pass got faster (sessions 13-21)? The hybrid off (it would
# take the packed sort at 2^28).
cd "$(dirname "$0")/../../.."
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache HISTOSORT_HYBRID_MIN=0
for r in 1 2; do
  echo "== round $r ($SECONDS s)"
  timeout 200 .device/gpu_packed_pairs 24 26 28
done
echo "== both sorts on 256x20x3 (session 13's best packed tile) ($SECONDS s)"
HISTOSORT_ONESWEEP_SHAPE=256x20x3 timeout 100 .device/gpu_packed_pairs 26
echo "done ($SECONDS s)"
