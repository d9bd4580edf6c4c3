#!/bin/bash
# Session 22 run 2: 32-bit keys take 256x40x3 from 2^26 keys (run 1), with CUB in the same run;
# the sort suite and the onesweep device tests with every length on the long tile
# (HISTOSORT_ONESWEEP_LONG_MIN=0); a length above 2^31 (long tile, 64-bit status words).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== CUB, 32-bit keys ($SECONDS s)"
timeout 150 $B bench peers --sizes 2^22,2^24,2^25,2^26,2^27,2^28 \
  --cases "sort-keys u32,sort-keys f32" --json $OUT/cub-k32.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "== sort suite, long tile everywhere ($SECONDS s)"
HISTOSORT_ONESWEEP_LONG_MIN=0 timeout 200 $T/sort --test-threads 2 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
echo "== onesweep device tests, long tile everywhere ($SECONDS s)"
HISTOSORT_ONESWEEP_LONG_MIN=0 timeout 120 $T/cuda_runtime --test-threads 2 onesweep free_rank \
  > $OUT/cuda_runtime.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/cuda_runtime.txt | head -5
echo "== above 2^31 ($SECONDS s)"
timeout 100 $T/cuda_runtime --ignored onesweep_above_2_pow_31 2>&1 | grep -E "test |test result|panicked"
echo "done ($SECONDS s)"
