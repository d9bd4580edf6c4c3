#!/bin/bash
# Session 15 run 1: the cluster sort's variants (HISTOSORT_CLUSTER_VARIANT: 1 rank first, 2
# direct scatter, 3 both; 0 the committed kernel). The cluster test under each variant, then
# the small sorts without CUB, variants interleaved, twice; then CUB in the same run for 0 and 3.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
for v in 1 2 3; do echo "== cluster test, variant $v ($SECONDS s)"
  HISTOSORT_CLUSTER_VARIANT=$v timeout 90 $T/cuda_runtime --test-threads 1 cluster_sort_sizes_skips_pairs_and_modes 2>&1 | grep -E "test result|FAILED|panicked"
done
C="sort-keys u32,sort-keys u64,sort-pairs"
for r in 1 2; do for v in 0 1 2 3; do echo "== round $r variant $v ($SECONDS s)"
  HISTOSORT_CLUSTER_VARIANT=$v timeout 60 $B bench peers --no-cub --sizes 2^14,2^15,2^16 \
    --cases "$C" --json $OUT/r$r-v$v.json 2>&1 | grep -E "^sort"
done; done
for v in 0 3; do echo "== with CUB, variant $v ($SECONDS s)"
  HISTOSORT_CLUSTER_VARIANT=$v timeout 150 $B bench peers --sizes 2^14,2^15,2^16 \
    --cases "$C" --json $OUT/cub-v$v.json 2>&1 | grep -E "^sort"
done
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
