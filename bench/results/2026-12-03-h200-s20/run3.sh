#!/bin/bash
# Session 20 run 3: racecheck over the whole free-ranking test (all five key types; session 19
# ran only its u32 cases under racecheck), and the digit histogram test under memcheck and
# racecheck (its grouped launch), under HISTOSORT_SANITIZE_SMALL.
cd "$(dirname "$0")/../../.."
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_SANITIZE_SMALL=1
echo "== racecheck free ranking ($SECONDS s)"
timeout 420 compute-sanitizer --tool racecheck $T/cuda_runtime --test-threads 1 free_ranking 2>&1 \
  | grep -E "SUMMARY|test |test result|panicked" | head -8
for tool in memcheck racecheck; do echo "== $tool digit histograms ($SECONDS s)"
  timeout 120 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 digit_histograms 2>&1 \
    | grep -E "SUMMARY|test |test result|panicked" | head -8; done
echo "done ($SECONDS s)"
