#!/bin/bash
# Session 19 run 5: run 4's memcheck and synccheck again with the free-ranking test fixed for
# the sanitizer's size (its partial-tile case fell under the single-launch limit there and the
# test's path count failed after the u32 cases, which passed; racecheck ran those: 0 hazards).
cd "$(dirname "$0")/../../.."
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_SANITIZE_SMALL=1
for tool in memcheck synccheck; do echo "== $tool ($SECONDS s)"
  timeout 110 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 free_ranking 2>&1 \
    | grep -E "SUMMARY|test |test result|panicked" | head -8; done
echo "done ($SECONDS s)"
