#!/bin/bash
# Session 14 run 3: racecheck on the onesweep tile test with a longer limit (run 2's 100 s
# cut it off), then CUB in the same run for every sort case.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
echo "== racecheck ($SECONDS s)"
HISTOSORT_SANITIZE_SMALL=1 timeout 230 compute-sanitizer --tool racecheck $T/cuda_runtime --test-threads 1 onesweep_tiles 2>&1 | grep -E "SUMMARY|test result|^test "
echo "== peers with CUB: sort cases ($SECONDS s)"
timeout 320 $B bench peers --cases "sort" --json $OUT/peers.json 2>&1 | grep -E "^sort|^case"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
