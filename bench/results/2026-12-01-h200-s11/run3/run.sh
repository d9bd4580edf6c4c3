#!/bin/bash
# Session 11 run 3: sanitizers on hist_bytes (fixed test), the cuda_runtime suite; ncu stall
# profile of the pairs and keys pass kernels (issue 5).
cd "$(dirname "$0")/.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== sanitizers (hist_bytes)"
for tool in memcheck racecheck synccheck; do HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 byte_histogram 2>&1 | grep -E "SUMMARY|test result"; done
echo "== cuda_runtime suite"
timeout 300 $T/cuda_runtime --test-threads 1 2>&1 | grep -E "test result|FAILED|panicked"
echo "== ncu pass kernels, 2^26 u32/u32 pairs and u32 keys"
mkdir -p /tmp/d
python3 -c "
import numpy as np
r=np.random.default_rng(3); np.save('/tmp/d/k.npy', r.integers(0,1<<32,1<<26,dtype=np.uint32)); np.save('/tmp/d/v.npy', np.arange(1<<26,dtype=np.uint32))"
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis"
timeout 120 ncu --clock-control none $S -k regex:onesweep_pass -s 1 -c 1 $B sort /tmp/d/k.npy -o /tmp/d/o.npy --values /tmp/d/v.npy --values-out /tmp/d/vo.npy --backend cuda -q > $OUT/ncu-pairs.txt 2>&1; tail -3 $OUT/ncu-pairs.txt
timeout 120 ncu --clock-control none $S -k regex:onesweep_pass -s 1 -c 1 $B sort /tmp/d/k.npy -o /tmp/d/o.npy --backend cuda -q > $OUT/ncu-keys.txt 2>&1; tail -3 $OUT/ncu-keys.txt
