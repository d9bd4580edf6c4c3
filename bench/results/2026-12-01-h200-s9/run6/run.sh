#!/usr/bin/env bash
# session 9, run 6: the look-back scan at 192 threads by default: scan and cuda_runtime suites, peers 2^16/2^20/2^24 with CUB
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s9r6; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s9r6.tgz -C /tmp s9r6; }
for s in scan cuda_runtime; do
  timeout 200 .device/tests/$s --test-threads=8 > $R/test-$s.txt 2>&1; t $s rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s.txt | head -5
done; pack
timeout 300 $B bench peers --sizes 2^16,2^20,2^24 --json $R/peers.json -q > $R/peers.txt 2>&1; t peers rc=$?
grep -E "sum" $R/peers.txt | head -20; pack; t done
