#!/bin/bash
# Session 26 run 1 (correctness first): the one-copy in-bucket kernel with equal-key runs
# skipped. The hybrid test (now with keys that repeat: equal runs of ~64, two-key runs of ~64
# and ~16), the sort suite and the pairs suite with the hybrid from 2^16; memcheck and
# racecheck of hybrid pair sorts of repeated u64 keys through the CLI, checked with numpy.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s26/unpack.sh > /dev/null
B=$PWD/.device/histosort-new
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== hybrid test ($SECONDS s)"
timeout 150 $T/cuda_runtime --test-threads 1 hybrid > /tmp/tests.txt 2>&1; echo "rc $?"
grep -E "^test |test result|FAILED|panicked" /tmp/tests.txt | head -8
echo "== sanitizers ($SECONDS s)"
W=/tmp/hy; mkdir -p $W
python3 -c "
import numpy as np
r=np.random.default_rng(7); n=(1<<20)+5
tab=r.integers(0,2**63,n//64,dtype=np.uint64)*np.uint64(2)
j=r.integers(0,n//64,n)
np.save('$W/e.npy',tab[j])                                   # equal runs of ~64
np.save('$W/m.npy',tab[j]|(np.arange(n,dtype=np.uint64)&np.uint64(1)))  # two-key runs
np.save('$W/v.npy',np.arange(n,dtype=np.uint32))
"
for tool in memcheck racecheck; do
  for f in e m; do
    HISTOSORT_HYBRID_MIN=1048576 timeout 100 compute-sanitizer --tool $tool $B sort $W/$f.npy -o $W/o$f.npy --values $W/v.npy --values-out $W/w$f.npy --backend cuda -q 2>&1 | grep -E "SUMMARY|rror" | head -3
  done
done
python3 -c "
import numpy as np
for f in 'em':
    k=np.load('$W/%s.npy'%f); p=np.argsort(k,kind='stable')
    print(f, 'pairs match numpy:', np.array_equal(np.load('$W/o%s.npy'%f),k[p]) and np.array_equal(np.load('$W/w%s.npy'%f),p.astype(np.uint32)))
"
echo "== sort suite, hybrid from 2^16 ($SECONDS s)"
HISTOSORT_HYBRID_MIN=65536 timeout 150 $T/sort --test-threads 2 > /tmp/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" /tmp/sort.txt | head -5
echo "== pairs suite, hybrid from 2^16 ($SECONDS s)"
HISTOSORT_HYBRID_MIN=65536 timeout 150 $T/pairs --test-threads 2 > /tmp/pairs.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" /tmp/pairs.txt | head -5
echo "done ($SECONDS s)"
