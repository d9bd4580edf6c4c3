#!/bin/bash
# Session 26 run 3: the sort suite with the hybrid from 2^16 (run 1's 150 s limit was too short
# with a cold kernel cache), with a longer limit.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s26/unpack.sh > /dev/null
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
echo "== sort suite, hybrid from 2^16 ($SECONDS s)"
HISTOSORT_HYBRID_MIN=65536 timeout 400 $T/sort --test-threads 2 > /tmp/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" /tmp/sort.txt | head -5
grep -E "^test " /tmp/sort.txt | tail -3
echo "done ($SECONDS s)"
