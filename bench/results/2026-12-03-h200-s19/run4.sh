#!/bin/bash
# Session 19 run 4: compute-sanitizer (memcheck, racecheck, synccheck) on the free-ranking and
# hybrid tests under HISTOSORT_SANITIZE_SMALL (the hybrid test at 2^20 + 3 keys; the free
# ranking's at the fused kernel's limit + 3, through the pass kernel). Owed since session 17.
cd "$(dirname "$0")/../../.."
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_SANITIZE_SMALL=1
for tool in memcheck racecheck synccheck; do echo "== $tool ($SECONDS s)"
  timeout ${LIMIT:-170} compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 free_ranking hybrid 2>&1 \
    | grep -E "SUMMARY|test |test result|panicked" | head -8; done
echo "done ($SECONDS s)"
