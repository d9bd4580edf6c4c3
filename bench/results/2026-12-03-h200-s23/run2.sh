#!/bin/bash
# Session 23 run 2: the default split (segments of 2^14 where passes x (key + value bytes) >= 32:
# u64 keys, u32/u32 pairs), the merge's block shape A/B (HISTOSORT_CLUSTER_MERGE), kernel
# durations under ncu, then CUB in the same run on the small sizes with the best merge shape.
# (The tests with this build's defaults: run 3.)
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== ncu: u64 2^16, one sort, kernel durations ($SECONDS s)"
$B gen -q /tmp/k.npy --dtype u64 --n 2^16 --seed 5
for m in 256x8 128x4; do
  echo "-- merge $m"
  HISTOSORT_CLUSTER_MERGE=$m timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum \
    $B sort -q --backend cuda /tmp/k.npy -o /tmp/ko.npy 2>&1 | grep -E "cluster_|gpu__time" | head -12
done
echo "== merge shapes A/B ($SECONDS s)"
for m in 256x8 128x8 128x4 256x4 64x8 256x8; do
  echo "-- merge $m"
  HISTOSORT_CLUSTER_MERGE=$m timeout 100 $B bench peers --no-cub --sizes 2^15,2^16 \
    --cases "sort-keys u64,sort-pairs" --json $OUT/merge-$m.json 2>&1 | grep -E "^sort|rror|anic"
done
rm -f $OUT/*.svg
best=$(python3 - <<'PY'
import json, glob, os
out = os.environ["OUT"]
best = None
for f in sorted(glob.glob(out + "/merge-*.json")):
    d = json.load(open(f))
    t = sum(r["median_ms"] for r in d["records"] if r["implementation"] == "histosort")
    m = f.split("merge-")[1][:-5]
    print(f"{m}: {t * 1000:.1f} us in all", file=__import__("sys").stderr)
    if best is None or t < best[0]:
        best = (t, m)
print(best[1])
PY
)
echo "== CUB in the same run, merge $best ($SECONDS s)"
HISTOSORT_CLUSTER_MERGE=$best timeout 200 $B bench peers --sizes 2^12,2^13,2^14,2^15,2^16 \
  --cases "sort-keys u32,sort-keys u64,sort-pairs,sort-keys f32" --json $OUT/cub.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
