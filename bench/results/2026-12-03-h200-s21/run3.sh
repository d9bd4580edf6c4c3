#!/bin/bash
# Session 21 run 3: CUB in the same run as this build (keys staged as ranked), 32-bit keys on
# the 256x32x3 tile (run 2's best) and u64 / pairs on their defaults; then racecheck over the
# whole free-ranking test (owed since session 19) and memcheck of the digit histograms, under
# HISTOSORT_SANITIZE_SMALL
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== CUB, 32-bit keys at 256x32x3 ($SECONDS s)"
HISTOSORT_ONESWEEP_SHAPE=256x32x3 timeout 150 $B bench peers --sizes 2^24,2^26,2^28 \
  --cases "sort-keys u32,sort-keys f32" --json $OUT/cub-k32.json 2>&1 | grep -E "^sort|rror|anic"
echo "== CUB, u64 keys and pairs ($SECONDS s)"
timeout 100 $B bench peers --sizes 2^24,2^26 --cases "sort-keys u64,sort-pairs" \
  --json $OUT/cub-u64-pairs.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
export HISTOSORT_SANITIZE_SMALL=1
echo "== racecheck free ranking ($SECONDS s)"
timeout 300 compute-sanitizer --tool racecheck $T/cuda_runtime --test-threads 1 free_ranking 2>&1 \
  | grep -E "SUMMARY|test |test result|panicked" | head -8
echo "== memcheck digit histograms ($SECONDS s)"
timeout 60 compute-sanitizer --tool memcheck $T/cuda_runtime --test-threads 1 digit_histograms 2>&1 \
  | grep -E "SUMMARY|test |test result|panicked" | head -8
echo "done ($SECONDS s)"
