#!/bin/bash
# Session 14 run 1: the pass kernel's look-back retry sleep (LOOKBACK_RETRY_NS, default 0),
# swept without CUB at 2^26 and 2^28, the 0 setting first and last as the noise floor; then
# the cuda_runtime suite (run F's 150 s limit cut it off).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
for ns in 0 250 1000 0; do echo "== LOOKBACK_RETRY_NS=$ns ($SECONDS s)"
  HISTOSORT_KERNEL_DEFINES=LOOKBACK_RETRY_NS=$ns timeout 75 $B bench peers --no-cub --sizes 2^26,2^28 \
    --cases "sort-keys u32,sort-keys f32,sort-pairs,sort-keys u64" --json $OUT/lb$ns-$SECONDS.json 2>&1 | grep -E "^sort"
done
echo "== cuda_runtime ($SECONDS s)"
timeout 280 $T/cuda_runtime --test-threads 1 --skip out_of_memory > $OUT/cuda_runtime.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked|^test " $OUT/cuda_runtime.txt | head -30
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
