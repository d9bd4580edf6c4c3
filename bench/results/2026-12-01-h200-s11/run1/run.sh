#!/bin/bash
# Session 11 run 1: tests of the one-launch byte histogram, counters written by every call,
# the pipelined scan's per-grid pacing and the session-10 host change; sanitizers; numpy.
cd "$(dirname "$0")/.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== cuda_runtime (histograms, scans)"
timeout 200 $T/cuda_runtime --test-threads 1 byte_histogram pipelined_scan lookback_scan bins_histograms u16_and_channel device_resident unsupported 2>&1 | grep -E "^test |test result|panicked|assert" | head -30
for t in 256 1024; do HISTOSORT_HIST_THREADS=$t timeout 100 $T/cuda_runtime --test-threads 1 byte_histogram 2>&1 | grep -E "test result|panicked" ; done
echo "== suites"
timeout 150 $T/scan 2>&1 | grep -E "test result|FAIL|panicked" | head
timeout 150 $T/histogram 2>&1 | grep -E "test result|FAIL|panicked" | head
timeout 100 $T/bench_cli 2>&1 | grep -E "test result|FAIL|panicked" | head
echo "== sanitizers (hist_bytes)"
HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool racecheck $T/cuda_runtime --test-threads 1 byte_histogram 2>&1 | tail -2
HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool memcheck $T/cuda_runtime --test-threads 1 byte_histogram 2>&1 | tail -2
HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool synccheck $T/cuda_runtime --test-threads 1 byte_histogram 2>&1 | tail -2
echo "== numpy: 1 GiB + 5 bytes through the CLI"
mkdir -p /tmp/d
python3 -c "
import numpy as np
r=np.random.default_rng(5); a=(r.integers(0,256,(1<<30)+5,dtype=np.uint8)&r.integers(0,256,(1<<30)+5,dtype=np.uint8)); np.save('/tmp/d/b.npy',a)
np.save('/tmp/d/want.npy', np.bincount(a, minlength=256))"
timeout 60 $B hist /tmp/d/b.npy --backend cuda --json -q > /tmp/d/h.json && python3 -c "
import json, numpy as np
h=json.load(open('/tmp/d/h.json')); w=np.load('/tmp/d/want.npy')
c=np.array([b['count'] for b in h['bins']], dtype=np.int64)
print('backend', h['backend'], 'algorithm', h['algorithm'], 'n', h['n'])
print('match numpy:', c.shape==w.shape and bool((c==w).all()), int(w.sum()))"
