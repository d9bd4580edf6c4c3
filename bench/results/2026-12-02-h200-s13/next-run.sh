#!/bin/bash
# Ready for the next session's first device call (not yet run): the CUDA suites with limits
# that fit them (run F's 150 s did not), the sanitizers on the onesweep tile test (its u64
# and f64 cases take the 256x22x3 tile of 7f1f2b4), then CUB in the same run for every sort
# case. Stage with `bash scripts/stage-device.sh` (or the three test binaries), carry .device.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
for t in cuda_runtime sort pairs; do echo "== $t ($SECONDS s)"
  timeout 400 $T/$t --test-threads 1 --skip out_of_memory > $OUT/$t.txt 2>&1; echo "rc $?"
  grep -E "test result|FAILED|panicked" $OUT/$t.txt | head -5; done
for tool in memcheck racecheck synccheck; do echo "== $tool ($SECONDS s)"
  HISTOSORT_SANITIZE_SMALL=1 timeout 300 compute-sanitizer --tool $tool $T/cuda_runtime --test-threads 1 onesweep_tiles 2>&1 | grep -E "SUMMARY|test result"; done
echo "== peers with CUB: sort cases ($SECONDS s)"
timeout 400 $B bench peers --cases "sort" --json $OUT/peers.json 2>&1 | grep -vE "^\s*$" | tail -32
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
