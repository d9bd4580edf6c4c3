#!/bin/bash
# Session 12 run 1: the pairs' bulk value copy (VALUES_LATE 3 and 4) for correctness (suites,
# sanitizers) and speed (no CUB, A/B against 2, tile shapes for 4), u64 keys with the L2
# prefetch, then CUB in the same run for the sort cases (VALUES_LATE 4).
cd "$(dirname "$0")/../../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
echo "== suites, default (VALUES_LATE 3)"
for t in cuda_runtime pairs sort; do timeout 200 $T/$t --test-threads 1 --skip out_of_memory 2>&1 | grep -E "test result|FAILED|panicked" | head -5; done
echo "== onesweep + pairs suites, VALUES_LATE 4"
export HISTOSORT_KERNEL_DEFINES=VALUES_LATE=4
timeout 120 $T/cuda_runtime --test-threads 1 onesweep_tiles pairs_are_stable device_resident 2>&1 | grep -E "test result|FAILED|panicked" | head -5
timeout 120 $T/pairs --test-threads 1 2>&1 | grep -E "test result|FAILED|panicked" | head -5
unset HISTOSORT_KERNEL_DEFINES
echo "== sanitizers, onesweep test"
for v in 4 3; do for tool in memcheck racecheck synccheck; do echo "-- VALUES_LATE $v $tool"; HISTOSORT_KERNEL_DEFINES=VALUES_LATE=$v HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 onesweep_tiles 2>&1 | grep -E "SUMMARY|test result" ; done; done
echo "== pairs A/B, no CUB, 2^24 and 2^26"
P="bench peers --no-cub --cases sort-pairs --sizes 16777216,67108864"
for c in "2 -" "3 -" "4 -" "4 384x30x2" "4 256x28x3" "4 512x20x2" "4 512x22x2" "2 -" "3 -" "4 -"; do set -- $c; echo "-- VALUES_LATE $1 shape $2"
  if [ "$2" = "-" ]; then HISTOSORT_KERNEL_DEFINES=VALUES_LATE=$1 timeout 60 $B $P 2>&1 | grep -E "^sort-pairs"
  else HISTOSORT_ONESWEEP_SHAPE=$2 HISTOSORT_KERNEL_DEFINES=VALUES_LATE=$1 timeout 60 $B $P 2>&1 | grep -E "^sort-pairs"; fi; done
echo "== u64 keys, L2 prefetch A/B, no CUB"
for pf in 0 264 132 0 264; do echo "-- PREFETCH_AHEAD $pf"; HISTOSORT_KERNEL_DEFINES=PREFETCH_AHEAD=$pf timeout 60 $B bench peers --no-cub --cases "sort-keys u64" --sizes 16777216,67108864 2>&1 | grep -E "^sort-keys"; done
echo "== peers with CUB: sort cases (VALUES_LATE 4)"
HISTOSORT_KERNEL_DEFINES=VALUES_LATE=4 timeout 280 $B bench peers --cases "sort" --json $OUT/peers.json 2>&1 | grep -vE "^\s*$" | tail -32
rm -f $OUT/*.svg
