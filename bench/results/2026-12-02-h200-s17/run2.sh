#!/bin/bash
# Session 17 run 2: where the hybrid sort's time goes. ncu per kernel (duration, registers,
# occupancy limits, DRAM throughput) for the first sorts of u32 keys 2^28, u32/u32 pairs 2^28
# and u32 keys 2^22 (hybrid), and u32 keys 2^28 with the LSD sort for comparison.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
M=gpu__time_duration.sum,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size
prof() { echo "== $1 ($SECONDS s)"; shift
  timeout 150 ncu --metrics $M -k "regex:hybrid|onesweep" --launch-count 12 --csv "$@" 2>/dev/null \
    | grep -E '^"[0-9]' | awk -F'","' '{print $5, $(NF-2), $(NF)}' | sed 's/"//g' | head -90
}
prof "u32 2^28 hybrid" $B bench peers --no-cub --sizes 2^28 --cases "sort-keys u32" -q
prof "pairs 2^28 hybrid" $B bench peers --no-cub --sizes 2^28 --cases "sort-pairs u32/u32" -q
prof "u32 2^22 hybrid" $B bench peers --no-cub --sizes 2^22 --cases "sort-keys u32" -q
HISTOSORT_HYBRID_MIN=0 prof "u32 2^28 lsd" $B bench peers --no-cub --sizes 2^28 --cases "sort-keys u32" -q
echo "done ($SECONDS s)"
