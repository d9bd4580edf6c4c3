#!/bin/bash
# Session 25 run 2: run 1 found the packed last pass on 384x24x2 (9216) slightly ahead of
# 384x20x2 (7680), and 384x20x2 slower at 2^21 (273 tiles on 264 resident blocks: a second
# wave). Wider last tiles, one round each, 384x24x2 twice.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
S=2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
for sh in 384x24x2 384x26x2 384x28x2 384x22x2 384x24x2; do
  echo "-- $sh ($SECONDS s)"
  HISTOSORT_PACKED_LAST_SHAPE=$sh timeout 120 $B bench peers --no-cub --sizes $S --cases sort-pairs --json $OUT/t-$sh-$SECONDS.json 2>&1 | grep -E "^sort|rror|anic"
done
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
