#!/bin/bash
# Session 19 run 3: the free ranking with a second atomic and the per-tile fallback to ballots
# where a digit holds more than 1/8 of the tile. Its test and the hybrid's; the A/B with one
# binary (free ranking off with CUB in the same run, on without); the distributions at 2^26;
# the sort suite.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== free ranking and hybrid tests ($SECONDS s)"
timeout 150 $T/cuda_runtime --test-threads 1 free_ranking hybrid 2>&1 | grep -E "test |test result|panicked|SKIP" | head
for f in 1 0; do echo "== free $f ($SECONDS s)"
  c=--no-cub; [ $f = 1 ] && c=
  HISTOSORT_FREE_RANK=$f timeout 130 $B bench peers $c --sizes 2^22,2^24,2^26,2^28 \
    --cases "sort-keys u32,sort-keys f32,sort-keys u64" --json $OUT/f$f.json 2>&1 | grep -E "^sort|rror|anic"
done
echo "== distributions 2^26 ($SECONDS s)"
timeout 100 $PWD/.device/gpu_free_rank 26
echo "== sort suite ($SECONDS s)"
timeout 170 $T/sort --test-threads 2 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
