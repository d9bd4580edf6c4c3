#!/bin/bash
# Session 31 run 3: issue 5's table with CUB in the same run, with the in-bucket top sort's
# extra bits now 3 (histosort-new): u32 keys, u32/u32 pairs, u64 keys and f32 keys at every
# power of two from 2^12 to 2^28, JSON and charts.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s27/unpack.sh > /dev/null
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
S=2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
for c in "sort-keys u32" "sort-pairs u32" "sort-keys u64" "sort-keys f32"; do
  l=${c// /-}
  echo "-- $c ($SECONDS s)"
  timeout 140 $D/histosort-new bench peers --sizes $S --cases "$c" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic"
done
echo "done ($SECONDS s)"
