#!/usr/bin/env bash
# session 8, run 3: auto launch mode (graph replay of one-kernel sorts); cluster sort threads per block A/B (1024/512/256), profile; suites; bench peers small sizes
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s8r3; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s8r3.tgz -C /tmp s8r3; }
for th in 1024 512 256; do
  HISTOSORT_CLUSTER_THREADS=$th timeout 150 .device/tests/cuda_runtime cluster_sort --test-threads=1 > $R/test-cluster-$th.txt 2>&1; t cluster test $th rc=$?; grep -E "test result|FAILED|panicked" $R/test-cluster-$th.txt | head -4
done; pack
for e in 12 13 14 15 16 17; do $B gen /tmp/d/k$e.npy --dtype u32 --n 2^$e --seed 5 -q; done
for th in 1024 512 256; do for e in 12 14 15 16 17; do
  HISTOSORT_CLUSTER_THREADS=$th HISTOSORT_RANK_SORT_MAX=0 HISTOSORT_CLUSTER_SORT_MAX=131072 timeout 60 ncu --clock-control none -k regex:"cluster" --section SpeedOfLight $B sort /tmp/d/k$e.npy -o /tmp/d/o$e.npy --backend cuda -q > $R/ncu-$th-$e.txt 2>&1
  echo "threads $th 2^$e: $(grep -E '^\s+(cluster)|Duration' $R/ncu-$th-$e.txt | tr -s ' ' | paste -sd' ')"
done; done 2>&1 | tee $R/ncu.txt; t ncu; pack
for th in 1024 256; do
  HISTOSORT_CLUSTER_THREADS=$th timeout 90 ncu --set full --import-source yes -k regex:cluster -o $R/prof-$th-14 $B sort /tmp/d/k14.npy -o /tmp/d/o14.npy --backend cuda -q > /dev/null 2>&1
  ncu -i $R/prof-$th-14.ncu-rep --page source --csv --print-source cuda > $R/src-$th-14.csv 2> $R/src-$th-14.err
  ncu -i $R/prof-$th-14.ncu-rep --page details > $R/details-$th-14.txt 2>&1
  t prof $th; ls -la $R/src-$th-14.csv; head -c 300 $R/src-$th-14.err
done; pack
for s in cuda_runtime pairs sort; do
  timeout 200 .device/tests/$s --test-threads=8 > $R/test-$s.txt 2>&1; t $s rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s.txt | head -5
done; pack
timeout 200 $B bench peers --sizes 2^12,2^13,2^14,2^15,2^16 --json $R/peers.json -q > $R/peers.txt 2>&1; t peers rc=$?
grep -E "^sort" $R/peers.txt | head -30; pack
HISTOSORT_CLUSTER_THREADS=256 timeout 200 $B bench peers --sizes 2^14,2^15,2^16 --no-cub --json $R/peers-256.json -q > $R/peers-256.txt 2>&1; t peers256 rc=$?
grep -E "^sort" $R/peers-256.txt | head -30; pack; t done
