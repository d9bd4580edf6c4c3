#!/bin/bash
# Session 14 run 2: the sort and pairs suites, the ignored length above 2^31, and the
# sanitizers on the onesweep tile test.
cd "$(dirname "$0")/../../.."
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
for t in sort pairs; do echo "== $t ($SECONDS s)"
  timeout 200 $T/$t --test-threads 2 > $OUT/$t.txt 2>&1; echo "rc $?"
  grep -E "test result|FAILED|panicked" $OUT/$t.txt | head -5; done
echo "== onesweep_above_2_pow_31 ($SECONDS s)"
timeout 150 $T/cuda_runtime --ignored onesweep_above_2_pow_31 2>&1 | grep -E "test result|FAILED|panicked|^test "
for tool in memcheck racecheck synccheck; do echo "== $tool ($SECONDS s)"
  HISTOSORT_SANITIZE_SMALL=1 timeout 100 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 onesweep_tiles 2>&1 | grep -E "SUMMARY|test result"; done
echo "done ($SECONDS s)"
