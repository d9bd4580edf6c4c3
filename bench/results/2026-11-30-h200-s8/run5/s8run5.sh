#!/usr/bin/env bash
# session 8, run 5: after the review mends (cluster only where the counting sort does not take the input, errors fall back, no __restrict__, passes==0 guard, auto's last_io on every run, has_graph): cuda_runtime suite, sanitizer, ncu durations 2^14/2^16
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s8r5; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s8r5.tgz -C /tmp s8r5; }
timeout 120 .device/tests/cuda_runtime --test-threads=8 > $R/test-cuda_runtime.txt 2>&1; t cuda_runtime rc=$?; grep -E "test result|FAILED|panicked" $R/test-cuda_runtime.txt | head -5; pack
$B gen /tmp/d/s.npy --dtype u64 --n 30001 --seed 3 -q
timeout 60 compute-sanitizer --tool memcheck $B sort /tmp/d/s.npy -o /tmp/d/so.npy --backend cuda --descending -q > $R/san-memcheck.txt 2>&1; t memcheck rc=$?; tail -1 $R/san-memcheck.txt
for e in 14 16; do
  $B gen /tmp/d/k$e.npy --dtype u32 --n 2^$e --seed 5 -q
  timeout 60 ncu --clock-control none -k regex:"cluster" --section SpeedOfLight $B sort /tmp/d/k$e.npy -o /tmp/d/o$e.npy --backend cuda -q > $R/ncu-$e.txt 2>&1
  python3 -c "
import numpy as np
k=np.load('/tmp/d/k$e.npy'); o=np.load('/tmp/d/o$e.npy'); print('check 2^$e', 'OK' if np.array_equal(o,np.sort(k)) else 'MISMATCH')"
  echo "2^$e: $(grep -E '^\s+(cluster)|Duration' $R/ncu-$e.txt | tr -s ' ' | paste -sd' ')"
done 2>&1 | tee $R/ncu.txt; pack; t done
