#!/bin/bash
# Session 16 run 4: a check of the final build after the launch helper's refactor: every sort
# path (counting, cluster, single launch, chained passes) through `bench peers --no-cub`,
# whose every case checks its output at every element before and after timing.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
timeout 150 $B bench peers --no-cub --sizes 2^12,2^15,2^18,2^22,2^24 --cases "sort" \
  --json $OUT/check.json 2>&1 | grep -E "^sort|rror"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
