#!/bin/bash
# Session 19 run 2: round 2 of run 1's A/B (no CUB), the skewed distributions at 2^26 with the
# free ranking off and on (examples/gpu_free_rank, both FREE_RANK_SMEM), the sort suite.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
for f in 0 1; do for s in 1 0; do
  [ $f = 0 ] && [ $s = 0 ] && continue
  echo "== round 2 free $f smem $s ($SECONDS s)"
  HISTOSORT_FREE_RANK=$f HISTOSORT_KERNEL_DEFINES=FREE_RANK_SMEM=$s timeout 120 $B bench peers --no-cub \
    --sizes 2^22,2^24,2^26,2^28 --cases "sort-keys u32,sort-keys f32,sort-keys u64" \
    --json $OUT/r2-f$f-s$s.json 2>&1 | grep -E "^sort|rror|anic"
done; done
for s in 1 0; do echo "== distributions 2^26, smem $s ($SECONDS s)"
  HISTOSORT_KERNEL_DEFINES=FREE_RANK_SMEM=$s timeout 100 $PWD/.device/gpu_free_rank 26; done
echo "== sort suite ($SECONDS s)"
timeout 170 $T/sort --test-threads 2 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
