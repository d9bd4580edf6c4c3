#!/bin/bash
# Session 13 run A: session 12's pairs variants (VALUES_LATE 3 and 4) checked, then timed
# against 2 (no CUB: A/B and tile shapes under 4), and u64 keys with the L2 prefetch.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
for v in 4 3; do echo "== pairs suite + onesweep tests, VALUES_LATE $v"; export HISTOSORT_KERNEL_DEFINES=VALUES_LATE=$v
timeout 100 $T/pairs --test-threads 1 2>&1 | grep -E "test result|FAILED|panicked" | head -5
timeout 100 $T/cuda_runtime --test-threads 1 onesweep_tiles pairs_are_stable device_resident 2>&1 | grep -E "test result|FAILED|panicked" | head -5
done
unset HISTOSORT_KERNEL_DEFINES
echo "== pairs A/B, no CUB, 2^24 and 2^26 ($SECONDS s)"
P="bench peers --no-cub --cases sort-pairs --sizes 16777216,67108864"
for c in "2 -" "3 -" "4 -" "4 384x30x2" "4 256x28x3" "4 512x20x2" "4 512x22x2" "2 -" "4 -"; do set -- $c; echo "-- VALUES_LATE $1 shape $2"
  if [ "$2" = "-" ]; then HISTOSORT_KERNEL_DEFINES=VALUES_LATE=$1 timeout 60 $B $P 2>&1 | grep -E "^sort-pairs"
  else HISTOSORT_ONESWEEP_SHAPE=$2 HISTOSORT_KERNEL_DEFINES=VALUES_LATE=$1 timeout 60 $B $P 2>&1 | grep -E "^sort-pairs"; fi; done
echo "== u64 keys, L2 prefetch A/B, no CUB ($SECONDS s)"
for pf in 0 264 132 0 264; do echo "-- PREFETCH_AHEAD $pf"; HISTOSORT_KERNEL_DEFINES=PREFETCH_AHEAD=$pf timeout 60 $B bench peers --no-cub --cases "sort-keys u64" --sizes 16777216,67108864 2>&1 | grep -E "^sort-keys"; done
echo "done ($SECONDS s)"
rm -f $OUT/*.svg
