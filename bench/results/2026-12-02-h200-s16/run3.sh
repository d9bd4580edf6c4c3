#!/bin/bash
# Session 16 run 3: the digit histogram with packed 16-bit counters (8 passes per read: u64 keys
# read once instead of twice). A/B with one binary (HISTOSORT_HIST_PACKED=0 / 1, alternating,
# twice), the cuda_runtime and sort suites with it on, then CUB in the same run for the keys.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
for r in 1 2; do for c in 0 1; do echo "== round $r packed $c ($SECONDS s)"
  HISTOSORT_HIST_PACKED=$c timeout 100 $B bench peers --no-cub --sizes 2^22,2^24,2^26,2^28 \
    --cases "sort-keys" --json $OUT/r$r-p$c.json 2>&1 | grep -E "^sort|rror"
done; done
for t in cuda_runtime sort; do echo "== $t ($SECONDS s)"
  timeout 200 $T/$t --test-threads 2 > $OUT/$t.txt 2>&1; echo "rc $?"
  grep -E "test result|FAILED|panicked" $OUT/$t.txt | head -5; done
# (Saved as run3/peers-packed-counters.json: the build had the packed counters on by default.)
echo "== peers with CUB: keys ($SECONDS s)"
timeout 200 $B bench peers --cases "sort-keys" --json $OUT/peers.json 2>&1 | grep -E "^sort|^case|rror"
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
