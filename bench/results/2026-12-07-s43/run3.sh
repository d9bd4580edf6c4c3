#!/bin/bash
# Session 43, run 3 (H100, same binaries): is the dip at 5 x 2^24 u32 keys the evenly spaced
# digit buckets of uniform keys? Reduced-entropy keys (AND of two words: skewed digit counts,
# so the 256 write fronts are unevenly spaced) at 5 x 2^24 and 5 x 2^24 + 2^20, uniform keys
# beside them as the control. Carry .device.
. "$(dirname "$0")/../device-lib.sh"
NOCUB=--no-cub
for d in uniform entropy-0.811 entropy-0.544; do
    echo "-- $d ($SECONDS s)"
    timeout 60 "$D/histosort" bench peers --no-cub --dist $d --sizes 83886080,84934656 \
        --cases "sort-keys u32" --json "$OUT/keys-$d.json" 2>&1 | grep -E "^sort|rror"
done
pack_json
echo "done ($SECONDS s)"
