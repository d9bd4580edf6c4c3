#!/bin/bash
# Session 14 run 4: the 8-byte keys' wide tile alone (new test), plain and under the three
# sanitizers (run 3's racecheck of the whole tile test did not finish in 230 s).
cd "$(dirname "$0")/../../.."
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== plain ($SECONDS s)"
timeout 60 $T/cuda_runtime onesweep_wide_u64_tile_alone 2>&1 | grep -E "test result|FAILED|panicked|^test "
for tool in racecheck memcheck synccheck; do echo "== $tool ($SECONDS s)"
  timeout 150 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 onesweep_wide_u64_tile_alone 2>&1 | grep -E "SUMMARY|test result|^test |hazard" | head -8; done
echo "done ($SECONDS s)"
