#!/bin/bash
# Session 31 run 2 (correctness): the hybrid tests with the default top sort and with extra bits
# 3; the sort and pairs suites with the hybrid from 2^16 keys and extra bits 3.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s27/unpack.sh > /dev/null
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test result|FAILED|panicked|failed|rror" | head -20; }
CMD=($D/tests/cuda_runtime --test-threads 1 hybrid)
t hybrid-default 150 X=1
t hybrid-top3 150 HISTOSORT_HYBRID_TOP=3
CMD=($D/tests/sort)
t sort-top3 120 HISTOSORT_HYBRID_MIN=65536 HISTOSORT_HYBRID_TOP=3
CMD=($D/tests/pairs)
t pairs-top3 120 HISTOSORT_HYBRID_MIN=65536 HISTOSORT_HYBRID_TOP=3
echo "done ($SECONDS s)"
