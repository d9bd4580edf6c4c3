#!/bin/bash
# Session 23 run 4: the default split now also asks that the device hold every cluster at
# once (cuOccupancyMaxActiveClusters), else one cluster sorts the input; an asked-for
# segment (HISTOSORT_CLUSTER_SEGMENT) still splits. On the H200 the default should keep
# splitting u64 keys and u32/u32 pairs at 2^15-2^16 (run 2-3 times), and segments of 8192
# (eight 16-block clusters) should still be slow when asked for (run 1: 54.7 us for u64 2^16).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== default ($SECONDS s)"
timeout 100 $B bench peers --no-cub --sizes 2^15,2^16 --cases "sort-keys u64,sort-pairs,sort-keys u32" \
  --json $OUT/default.json 2>&1 | grep -E "^sort|rror|anic"
echo "== asked: segments of 8192 ($SECONDS s)"
HISTOSORT_CLUSTER_SEGMENT=8192 timeout 100 $B bench peers --no-cub --sizes 2^16 --cases "sort-keys u64,sort-pairs" \
  --json $OUT/seg8192.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "== CLI: u64/u64 pairs of 60,001 (4 clusters, the last one partial) and i64 keys of 2^16 descending, against numpy ($SECONDS s)"
$B gen -q /tmp/k.npy --dtype u64 --n 60001 --seed 8
$B gen -q /tmp/v.npy --dtype u64 --n 60001 --seed 9
$B gen -q /tmp/k2.npy --dtype i64 --n 65536 --seed 10
$B sort -q --backend cuda /tmp/k.npy -o /tmp/ko.npy --values /tmp/v.npy --values-out /tmp/vo.npy; echo "rc $?"
$B sort -q --backend cuda /tmp/k2.npy -o /tmp/k2o.npy --descending; echo "rc $?"
python3 -c "
import numpy as np
k=np.load('/tmp/k.npy'); v=np.load('/tmp/v.npy'); ko=np.load('/tmp/ko.npy'); vo=np.load('/tmp/vo.npy')
o=np.argsort(k, kind='stable')
print('u64/u64 pairs, 60001:', bool((ko==k[o]).all() and (vo==v[o]).all()))
k2=np.load('/tmp/k2.npy'); k2o=np.load('/tmp/k2o.npy')
print('i64 descending, 65536:', bool((k2o==np.sort(k2)[::-1]).all()))"
echo "done ($SECONDS s)"
