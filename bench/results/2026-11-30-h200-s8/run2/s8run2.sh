#!/usr/bin/env bash
# session 8, run 2: the cluster sort: its test, the suites (also with the counting sort off), sanitizer, ncu durations, bench peers small sizes
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s8r2; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s8r2.tgz -C /tmp s8r2; }
timeout 150 .device/tests/cuda_runtime cluster_sort --test-threads=1 > $R/test-cluster.txt 2>&1; t cluster test rc=$?; grep -E "test result|FAILED|panicked|error" $R/test-cluster.txt | head -8; pack
for e in 12 13 14 15 16 17; do
  $B gen /tmp/d/k$e.npy --dtype u32 --n 2^$e --seed 5 -q
  HISTOSORT_RANK_SORT_MAX=0 HISTOSORT_CLUSTER_SORT_MAX=131072 timeout 60 ncu --clock-control none -k regex:"rank_sort|onesweep|cluster" --section SpeedOfLight $B sort /tmp/d/k$e.npy -o /tmp/d/o$e.npy --backend cuda -q > $R/ncu-$e.txt 2>&1
  python3 -c "
import numpy as np
k=np.load('/tmp/d/k$e.npy'); o=np.load('/tmp/d/o$e.npy'); print('check 2^$e', 'OK' if np.array_equal(o,np.sort(k)) else 'MISMATCH')"
  echo "2^$e: $(grep -E '^\s+(onesweep|rank_sort|cluster)|Duration' $R/ncu-$e.txt | tr -s ' ' | paste -sd' ')"
done 2>&1 | tee $R/ncu.txt; t ncu; pack
for s in cuda_runtime pairs sort; do
  timeout 200 .device/tests/$s --test-threads=8 > $R/test-$s.txt 2>&1; t $s rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s.txt | head -5
done; pack
HISTOSORT_RANK_SORT_MAX=0 timeout 150 .device/tests/sort --test-threads=8 > $R/test-sort-norank.txt 2>&1; t sort-norank rc=$?; grep -E "test result|FAILED|panicked" $R/test-sort-norank.txt | head -5; pack
timeout 200 $B bench peers --sizes 2^12,2^13,2^14,2^15,2^16,2^17 --json $R/peers.json -q > $R/peers.txt 2>&1; t peers rc=$?
grep -E "^sort" $R/peers.txt | head -30; pack
$B gen /tmp/d/s.npy --dtype f32 --n 30001 --seed 3 -q
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool $B sort /tmp/d/s.npy -o /tmp/d/so.npy --backend cuda --descending -q > $R/san-$tool.txt 2>&1; t $tool rc=$?; tail -3 $R/san-$tool.txt
done
pack; t done
