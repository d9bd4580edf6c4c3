#!/bin/bash
# Session 24 run 4: the sort and pairs suites on the packed-pairs build (packing from 2^20 + 1
# by default), and the pairs suite with packing from 2 keys (graph sorts past the cluster sort).
cd "$(dirname "$0")/../../.."
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== pairs suite, packing from 2 keys ($SECONDS s)"
HISTOSORT_PACKED_MIN=2 timeout 200 $T/pairs --test-threads 2 > $OUT/pairs-2.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/pairs-2.txt | head -5
echo "== pairs suite, defaults ($SECONDS s)"
timeout 150 $T/pairs --test-threads 2 > $OUT/pairs.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/pairs.txt | head -5
echo "== sort suite, defaults ($SECONDS s)"
timeout 200 $T/sort --test-threads 2 > $OUT/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/sort.txt | head -5
echo "done ($SECONDS s)"
