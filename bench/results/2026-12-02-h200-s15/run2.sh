#!/bin/bash
# Session 15 run 2: the cluster sort's counts pushed into every block's table before barrier A
# (instead of pulled after it). The cluster test, racecheck and synccheck of it on small
# sizes, the small sorts without CUB (twice), then with CUB.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
echo "== cluster test ($SECONDS s)"
timeout 90 $T/cuda_runtime --test-threads 1 cluster_sort 2>&1 | grep -E "test result|FAILED|panicked"
C="sort-keys u32,sort-keys u64,sort-pairs"
for r in 1 2; do echo "== round $r ($SECONDS s)"
  timeout 60 $B bench peers --no-cub --sizes 2^14,2^15,2^16 --cases "$C" --json $OUT/r$r.json 2>&1 | grep -E "^sort"
done
echo "== with CUB ($SECONDS s)"
timeout 150 $B bench peers --sizes 2^12,2^13,2^14,2^15,2^16 --cases "$C" --json $OUT/cub.json 2>&1 | grep -E "^sort"
for tool in synccheck racecheck; do echo "== $tool ($SECONDS s)"
  HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 cluster_sort 2>&1 | grep -E "SUMMARY|test result" | tail -3
done
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
