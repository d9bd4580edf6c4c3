#!/bin/bash
# Session 13 run E: u64 keys, wider 3-block tiles, 2^20 to 2^26; then CUB in the same run
# with 256x22x3.
cd "$(dirname "$0")/../../.."
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
S=1048576,4194304,16777216,67108864
for s in - 256x22x3 256x24x3 256x26x3 256x28x3 256x22x3; do echo "-- u64 shape $s"
  if [ "$s" = "-" ]; then timeout 60 .device/histosort bench peers --no-cub --cases "sort-keys u64" --sizes $S 2>&1 | grep -E "^sort-keys"
  else HISTOSORT_ONESWEEP_SHAPE=$s timeout 60 .device/histosort bench peers --no-cub --cases "sort-keys u64" --sizes $S 2>&1 | grep -E "^sort-keys"; fi; done
echo "-- with CUB, 256x22x3 ($SECONDS s)"
HISTOSORT_ONESWEEP_SHAPE=256x22x3 timeout 200 .device/histosort bench peers --cases "sort-keys u64" --json $OUT/peers-u64.json 2>&1 | grep -E "^sort-keys|CUB"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
