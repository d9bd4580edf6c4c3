#!/bin/bash
# Session 25 run 5: the committed defaults (3780c1c: u64 keys on the hybrid with the in-bucket
# top sort from 2^23), u64 keys 2^12-2^28 with CUB in the same run, for the chart.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
timeout 140 $B bench peers --sizes 2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28 --cases "sort-keys u64" --json $OUT/u64-cub.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
