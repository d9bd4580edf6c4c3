#!/bin/bash
# Session 19 run 1: the free ranking as a template parameter (the ballot pass compiled as at
# 9a64fbe, no spills). The free-ranking and hybrid tests; then round 1 of the A/B with one
# binary: free ranking off (with CUB in the same run), on with ranks in shared memory
# (FREE_RANK_SMEM=1, the default) and on with a second atomic (FREE_RANK_SMEM=0).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
echo "== free ranking and hybrid tests ($SECONDS s)"
timeout 150 $T/cuda_runtime --test-threads 1 free_ranking hybrid 2>&1 | grep -E "test |test result|panicked|SKIP" | head
r=${ROUND:-1}
echo "== round $r free 0, CUB ($SECONDS s)"
HISTOSORT_FREE_RANK=0 timeout 150 $B bench peers --sizes 2^22,2^24,2^26,2^28 \
  --cases "sort-keys u32,sort-keys f32,sort-keys u64" --json $OUT/r$r-f0.json 2>&1 | grep -E "^sort|rror|anic"
for s in 1 0; do echo "== round $r free 1 smem $s ($SECONDS s)"
  HISTOSORT_KERNEL_DEFINES=FREE_RANK_SMEM=$s timeout 120 $B bench peers --no-cub --sizes 2^22,2^24,2^26,2^28 \
    --cases "sort-keys u32,sort-keys f32,sort-keys u64" --json $OUT/r$r-f1s$s.json 2>&1 | grep -E "^sort|rror|anic"
done
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
