#!/bin/bash
# Session 23 run 1: the cluster sort split between clusters, the sorted segments merged
# (HISTOSORT_CLUSTER_SEGMENT: the most keys per cluster; the build's default takes one
# cluster up to 2^16 keys, as before). Correctness first: the cluster test with the default
# and with segments of 2048 keys (every length merged), the sort and pairs suites with 2048,
# memcheck of a merged u64 pair sort; then the segments A/B (no CUB: run 2).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== cluster test, default ($SECONDS s)"
timeout 150 $T/cuda_runtime --test-threads 2 cluster > $OUT/cl-default.txt 2>&1; echo "rc $?"
grep -E "test |test result|FAILED|panicked" $OUT/cl-default.txt | head
echo "== cluster test, segment 2048 ($SECONDS s)"
HISTOSORT_CLUSTER_SEGMENT=2048 timeout 150 $T/cuda_runtime --test-threads 2 cluster > $OUT/cl-2048.txt 2>&1; echo "rc $?"
grep -E "test |test result|FAILED|panicked" $OUT/cl-2048.txt | head
echo "== memcheck, u64/u32 pairs 40000, segment 2048 ($SECONDS s)"
$B gen -q /tmp/k.npy --dtype u64 --n 40000 --seed 3
$B gen -q /tmp/v.npy --dtype u32 --n 40000 --seed 4
HISTOSORT_CLUSTER_SEGMENT=2048 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
  $B sort -q --backend cuda /tmp/k.npy -o /tmp/ko.npy --values /tmp/v.npy --values-out /tmp/vo.npy --descending 2>&1 | tail -3
echo "rc ${PIPESTATUS[0]}"
python3 -c "
import numpy as np
k=np.load('/tmp/k.npy'); v=np.load('/tmp/v.npy'); ko=np.load('/tmp/ko.npy'); vo=np.load('/tmp/vo.npy')
o=np.argsort(~k, kind='stable')
print('numpy check (descending, stable):', bool((ko==k[o]).all() and (vo==v[o]).all()))"
echo "== segments A/B ($SECONDS s)"
i=0
for seg in 65536 32768 16384 8192 4096 65536; do
  i=$((i + 1)); echo "-- segment $seg"
  HISTOSORT_CLUSTER_SEGMENT=$seg timeout 100 $B bench peers --no-cub --sizes 2^14,2^15,2^16 \
    --cases "sort-keys u64,sort-keys u32,sort-pairs" --json $OUT/seg$i-$seg.json 2>&1 | grep -E "^sort|rror|anic"
done
echo "-- 2^17, 2^18: single launch (default) against clusters of 2^14 and merges"
timeout 100 $B bench peers --no-cub --sizes 2^17,2^18 --cases "sort-keys u64,sort-keys u32,sort-pairs" \
  --json $OUT/big-default.json 2>&1 | grep -E "^sort|rror|anic"
HISTOSORT_CLUSTER_SORT_MAX=262144 HISTOSORT_CLUSTER_SEGMENT=16384 timeout 100 $B bench peers --no-cub \
  --sizes 2^17,2^18 --cases "sort-keys u64,sort-keys u32,sort-pairs" --json $OUT/big-merge.json 2>&1 \
  | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "== sort suite, segment 2048 ($SECONDS s)"
HISTOSORT_CLUSTER_SEGMENT=2048 timeout 200 $T/sort --test-threads 2 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
echo "== pairs suite, segment 2048 ($SECONDS s)"
HISTOSORT_CLUSTER_SEGMENT=2048 timeout 150 $T/pairs --test-threads 2 > $OUT/pairs.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/pairs.txt | head -5
cd $OUT && tar czf tests.tgz *.txt && rm -f *.txt
echo "done ($SECONDS s)"
