#!/bin/bash
# Session 23 run 3: the final build's defaults (segments of 2^14 for u64 keys and u32/u32
# pairs, merge blocks 128x4): the cluster test (default, and segments of 2048 for every
# length), the sort and pairs suites (their u64 and pair sorts of 2^14-2^16 keys now merge),
# memcheck and racecheck of a merged sort, and the small sorts against CUB once more.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== cluster test: default, then segments of 2048 ($SECONDS s)"
timeout 150 $T/cuda_runtime --test-threads 2 cluster 2>&1 | grep -E "test |test result|FAILED|panicked" | head -5
HISTOSORT_CLUSTER_SEGMENT=2048 timeout 100 $T/cuda_runtime --test-threads 2 cluster 2>&1 \
  | grep -E "test |test result|FAILED|panicked" | head -5
echo "== sanitizers: u64/u32 pairs of 40,000 keys (3 clusters, 2 merges), descending ($SECONDS s)"
$B gen -q /tmp/k.npy --dtype u64 --n 40000 --seed 3
$B gen -q /tmp/v.npy --dtype u32 --n 40000 --seed 4
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B sort -q --backend cuda /tmp/k.npy \
    -o /tmp/ko.npy --values /tmp/v.npy --values-out /tmp/vo.npy --descending 2>&1 | tail -2
  echo "$tool rc ${PIPESTATUS[0]}"
done
python3 -c "
import numpy as np
k=np.load('/tmp/k.npy'); v=np.load('/tmp/v.npy'); ko=np.load('/tmp/ko.npy'); vo=np.load('/tmp/vo.npy')
o=np.argsort(~k, kind='stable')
print('numpy check (descending, stable):', bool((ko==k[o]).all() and (vo==v[o]).all()))"
echo "== small sorts against CUB, the build's defaults ($SECONDS s)"
timeout 150 $B bench peers --sizes 2^14,2^15,2^16 --cases "sort-keys u64,sort-pairs" \
  --json $OUT/cub.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "== sort suite ($SECONDS s)"
timeout 220 $T/sort --test-threads 4 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
echo "== pairs suite ($SECONDS s)"
timeout 200 $T/pairs --test-threads 4 > $OUT/pairs.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/pairs.txt | head -5
cd $OUT && tar czf suites.tgz sort.txt pairs.txt && rm -f sort.txt pairs.txt
echo "done ($SECONDS s)"
