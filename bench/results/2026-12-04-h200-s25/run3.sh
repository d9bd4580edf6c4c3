#!/bin/bash
# Session 25 run 3: the build with PACKED_LAST_SHAPE 384x24x2 as the default. First the checks
# (packed and onesweep device tests with the last tile's boundaries 9 x 9216, the pairs
# suite; the sort suite waits for the next build, which carries fewer binaries); then u32/u32 pairs 2^12-2^28 with CUB in the same run for the chart.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== packed test, onesweep tile test ($SECONDS s)"
timeout 200 $T/cuda_runtime --test-threads 1 packed onesweep_tiles > /tmp/tests.txt 2>&1; echo "rc $?"
grep -E "^test |test result|FAILED|panicked" /tmp/tests.txt | head -8
echo "== pairs suite ($SECONDS s)"
timeout 150 $T/pairs --test-threads 2 > /tmp/pairs.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" /tmp/pairs.txt | head -5
echo "== pairs with CUB, 2^12-2^28 ($SECONDS s)"
timeout 200 $B bench peers --sizes 2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28 --cases sort-pairs --json $OUT/pairs-cub.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
