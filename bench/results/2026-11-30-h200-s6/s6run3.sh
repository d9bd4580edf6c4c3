#!/usr/bin/env bash
# session 6, run 3: final defaults (keys 384x23x2, pairs 384x20x2 late values, paced scan): tests, peers with CUB, memcheck
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s6r3; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s6r3.tgz -C /tmp s6r3; }
timeout 80 .device/tests/pairs --test-threads=6 > $R/test-pairs.txt 2>&1; t pairs rc=$?; grep -E "test result|FAILED|panicked" $R/test-pairs.txt | head -5
timeout 80 .device/tests/cuda_runtime --test-threads=6 onesweep > $R/test-cuda_runtime.txt 2>&1; t cuda_runtime rc=$?; grep -E "^test |test result|FAILED|panicked" $R/test-cuda_runtime.txt | head -8
pack
timeout 300 $B --backend cuda bench peers --json $R/peers.json > $R/peers.txt 2>&1; t peers rc=$?
grep -E "^(sort|scan)" $R/peers.txt | head -60; pack
$B gen /tmp/d/k.npy --dtype u32 --n 2200123 --seed 7 -q; $B gen /tmp/d/v.npy --dtype u32 --n 2200123 --seed 8 -q
timeout 90 compute-sanitizer --tool memcheck $B sort /tmp/d/k.npy -o /tmp/d/o.npy --values /tmp/d/v.npy --values-out /tmp/d/ov.npy --backend cuda -q > $R/memcheck-pairs.txt 2>&1; t memcheck rc=$?; tail -3 $R/memcheck-pairs.txt
pack; t done
