#!/bin/bash
# Session 13 run F: the new default tile for 8-byte keys (256x22x3): the CUDA suites, then CUB
# in the same run for u64 keys at every size and the other sort-keys cases as controls.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== cuda_runtime"; timeout 150 $T/cuda_runtime --test-threads 1 --skip out_of_memory 2>&1 | grep -E "test result|FAILED|panicked" | head -5
echo "== sort ($SECONDS s)"; timeout 150 $T/sort --test-threads 1 2>&1 | grep -E "test result|FAILED|panicked" | head -5
echo "== peers with CUB ($SECONDS s)"
timeout 150 $B bench peers --cases "sort-keys u64,sort-keys f32,sort-keys u32 bits" --json $OUT/peers.json 2>&1 | grep -E "^sort-keys|CUB"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
