#!/bin/bash
# Session 16 run 2: memcheck and synccheck on the onesweep tile test with chained launches,
# then CUB in the same run for every sort case (now with u64 and f32 keys at 2^24-2^28).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
for tool in memcheck synccheck; do echo "== $tool ($SECONDS s)"
  HISTOSORT_SANITIZE_SMALL=1 timeout 60 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 onesweep_tiles 2>&1 | grep -E "SUMMARY|test result"; done
echo "== peers with CUB: sort cases ($SECONDS s)"
timeout 450 $B bench peers --cases "sort" --json $OUT/peers.json 2>&1 | grep -E "^sort|^case|rror"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
