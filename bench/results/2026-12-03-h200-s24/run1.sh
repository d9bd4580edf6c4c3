#!/bin/bash
# Session 24 run 1: every sort case of issue 5 (u32 keys, u32/u32 pairs, u64 keys, f32 keys) at
# every power of two from 2^12 to 2^28, CUB in the same run. The full peers set measures pairs,
# u64 and f32 only at 2^24-2^28; issue 5 asks 1.0x at 2^17-2^22 too.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
C="sort-keys u32,sort-pairs,sort-keys u64,sort-keys f32"
echo "== 2^12-2^22 ($SECONDS s)"
timeout 260 $B bench peers --sizes 2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22 \
  --cases "$C" --json $OUT/small.json 2>&1 | grep -E "^sort|rror|anic"
echo "== 2^23-2^28 ($SECONDS s)"
timeout 280 $B bench peers --sizes 2^23,2^24,2^25,2^26,2^27,2^28 \
  --cases "$C" --json $OUT/large.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
