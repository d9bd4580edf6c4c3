#!/bin/bash
# Session 13 run D: u64 keys (with the 132-tile prefetch of b4a92cc) per tile shape.
cd "$(dirname "$0")/../../.."
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
for s in - 256x20x3 512x16x2 256x22x3 256x18x3 384x16x2 512x14x2 256x20x3 -; do echo "-- u64 shape $s"
  if [ "$s" = "-" ]; then timeout 60 .device/histosort bench peers --no-cub --cases "sort-keys u64" --sizes 16777216,67108864 2>&1 | grep -E "^sort-keys"
  else HISTOSORT_ONESWEEP_SHAPE=$s timeout 60 .device/histosort bench peers --no-cub --cases "sort-keys u64" --sizes 16777216,67108864 2>&1 | grep -E "^sort-keys"; fi; done
