#!/bin/bash
# Session 18 run 1: free ranking of the first pass of keys-only sorts (the count's shared atomic
# returns the rank; no ballots). Its test and the hybrid test; an A/B with one binary
# (HISTOSORT_FREE_RANK=0/1), two rounds, u32 / f32 / u64 keys; the skewed distributions with
# the free ranking on and off (examples/gpu_free_rank); the sort suite on the new default.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== free ranking and hybrid tests ($SECONDS s)"
timeout 150 $T/cuda_runtime --test-threads 1 free_ranking hybrid 2>&1 | grep -E "test |test result|panicked|SKIP" | head
for r in 1 2; do for f in 0 1; do echo "== round $r free $f ($SECONDS s)"
  HISTOSORT_FREE_RANK=$f timeout 100 $B bench peers --no-cub --sizes 2^22,2^24,2^26,2^28 \
    --cases "sort-keys u32,sort-keys f32,sort-keys u64" --json $OUT/r$r-f$f.json 2>&1 | grep -E "^sort|rror|anic"
done; done
echo "== distributions 2^26 ($SECONDS s)"
timeout 150 $PWD/.device/gpu_free_rank 26
echo "== sort suite ($SECONDS s)"
timeout 170 $T/sort --test-threads 2 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
