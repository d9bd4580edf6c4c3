#!/bin/bash
# Session 17 run 4: the final build (hybrid on by default for 64-bit keys from 2^28).
# The cuda_runtime suite (with the hybrid test on its own backend at 2^22 for both widths);
# the sort suite with the hybrid forced on from 2^16 (every key type, order and distribution
# through it or its fallback); memcheck on the hybrid test at sanitizer sizes; then u64 keys
# with CUB in the same run at every size issue 5 names.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== cuda_runtime ($SECONDS s)"
timeout 170 $T/cuda_runtime --test-threads 2 > $OUT/cuda_runtime.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/cuda_runtime.txt | head -5
echo "== memcheck hybrid ($SECONDS s)"
HISTOSORT_SANITIZE_SMALL=1 timeout 90 compute-sanitizer --tool memcheck $T/cuda_runtime --test-threads 1 hybrid 2>&1 | grep -E "SUMMARY|test result"
echo "== peers with CUB: u64 keys ($SECONDS s)"
timeout 150 $B bench peers --cases "sort-keys u64" --json $OUT/peers-u64.json 2>&1 | grep -E "^sort|^case|rror"
echo "== sort suite, hybrid from 2^16 ($SECONDS s)"
HISTOSORT_HYBRID_MIN=65536 timeout 170 $T/sort --test-threads 2 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
