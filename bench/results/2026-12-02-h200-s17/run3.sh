#!/bin/bash
# Session 17 run 3: the hybrid sort after two fixes from run 2's profile (the segmented pass
# finds its bucket with one round of loads instead of a binary search; the bucket scan's
# largest-chunk search reads registers and shared memory instead of global memory).
# Its test with the hybrid on for 32- and 64-bit keys from 2^22; an A/B with one binary
# (HISTOSORT_HYBRID_MIN=0: LSD only; 4194304: hybrid from 2^22 for both widths), two rounds;
# then the pairs suite with the hybrid forced on from 2^16.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== hybrid test ($SECONDS s)"
HISTOSORT_HYBRID_MIN=4194304 timeout 150 $T/cuda_runtime --test-threads 1 hybrid 2>&1 | grep -E "test |test result|panicked|SKIP" | head
for r in 1 2; do for c in 0 4194304; do echo "== round $r hybrid_min $c ($SECONDS s)"
  HISTOSORT_HYBRID_MIN=$c timeout 100 $B bench peers --no-cub --sizes 2^24,2^25,2^26,2^27,2^28 \
    --cases "sort-keys u64,sort-keys u32" --json $OUT/r$r-h$c.json 2>&1 | grep -E "^sort|rror|anic"
done; done
echo "== pairs suite, hybrid from 2^16 ($SECONDS s)"
HISTOSORT_HYBRID_MIN=65536 timeout 170 $T/pairs --test-threads 2 > $OUT/pairs.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/pairs.txt | head -5
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
