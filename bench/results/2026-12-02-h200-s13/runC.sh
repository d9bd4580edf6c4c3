#!/bin/bash
# Session 13 run C: u32/u32 pairs as two arrays against one array of packed 64-bit elements
# sorted on bits [0, 32) (examples/gpu_packed_pairs.rs), per tile shape.
cd "$(dirname "$0")/../../.."
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
for s in - 384x26x2 384x23x2 256x28x3 384x20x2 256x20x3 512x16x2 -; do echo "-- shape $s"
  if [ "$s" = "-" ]; then timeout 60 .device/gpu_packed_pairs 24 26; else HISTOSORT_ONESWEEP_SHAPE=$s timeout 60 .device/gpu_packed_pairs 24 26; fi; done
