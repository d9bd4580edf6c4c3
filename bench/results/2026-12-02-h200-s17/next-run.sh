#!/bin/bash
# For the next session's first device call (not run in session 17: its device time was spent):
# memcheck, racecheck and synccheck on the hybrid sort's test, which under
# HISTOSORT_SANITIZE_SMALL sorts 2^20 + 3 keys (u32 and u64, keys, pairs, argsort, fallbacks).
cd "$(dirname "$0")/../../.."
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_SANITIZE_SMALL=1
for tool in memcheck racecheck synccheck; do echo "== $tool ($SECONDS s)"
  timeout 180 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 hybrid 2>&1 \
    | grep -E "SUMMARY|test result|panicked"; done
echo "done ($SECONDS s)"
