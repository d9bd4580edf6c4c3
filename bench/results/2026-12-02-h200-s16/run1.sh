#!/bin/bash
# Session 16 run 1: chained launches (programmatic dependent launch) in the onesweep sort.
# A/B with one binary (HISTOSORT_CHAINED=0 / 1, alternating, twice) at the mid sizes where the
# kernel boundaries weigh most, then the GPU suites with chaining on (the default).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
$B info 2>&1 | head -20
for r in 1 2; do for c in 0 1; do echo "== round $r chained $c ($SECONDS s)"
  HISTOSORT_CHAINED=$c timeout 90 $B bench peers --no-cub --sizes 2^21,2^22,2^24,2^26 \
    --cases "sort" --json $OUT/r$r-c$c.json 2>&1 | grep -E "^sort|rror"
done; done
for t in sort pairs cuda_runtime; do echo "== $t ($SECONDS s)"
  timeout 170 $T/$t --test-threads 2 > $OUT/$t.txt 2>&1; echo "rc $?"
  grep -E "test result|FAILED|panicked" $OUT/$t.txt | head -5; done
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
