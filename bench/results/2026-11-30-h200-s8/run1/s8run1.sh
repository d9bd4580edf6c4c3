#!/usr/bin/env bash
# session 8, run 1: launch/cluster microbenchmark; kernel durations of the small sorts (ncu); bench peers small sizes with CUB
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s8r1; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s8r1.tgz -C /tmp s8r1; }
nvcc -O3 -arch=sm_90 -o /tmp/lc bench/micro/launch_cluster.cu > $R/nvcc.txt 2>&1; t nvcc rc=$?; cat $R/nvcc.txt | head -20
timeout 120 /tmp/lc > $R/micro.txt 2>&1; t micro rc=$?; cat $R/micro.txt; pack
for e in 10 12 13 14 15 16 17; do
  $B gen /tmp/d/k$e.npy --dtype u32 --n 2^$e --seed 5 -q
  timeout 60 ncu --clock-control none -k regex:"rank_sort|onesweep" --section SpeedOfLight $B sort /tmp/d/k$e.npy -o /tmp/d/o$e.npy --backend cuda -q > $R/ncu-$e.txt 2>&1
  echo "2^$e: $(grep -E '^\s+(onesweep|rank_sort)|Duration' $R/ncu-$e.txt | tr -s ' ' | paste -sd' ')"
done 2>&1 | tee $R/ncu.txt; t ncu; pack
timeout 200 $B bench peers --sizes 2^10,2^12,2^13,2^14,2^15,2^16,2^17 --json $R/peers.json -q > $R/peers.txt 2>&1; t peers rc=$?
grep -E "^sort|u32" $R/peers.txt | head -30
pack; t done
