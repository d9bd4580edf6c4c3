#!/bin/bash
# Session 17 run 1: the hybrid sort (MSD on the top 16 bits in two onesweep passes, then
# in-bucket sorts in shared memory). Its test first, then an A/B with one binary:
# HISTOSORT_HYBRID_MIN=0 (off, the LSD sort) against the default (32-bit keys from 2^22 on),
# and u64 keys with the hybrid forced on (HISTOSORT_HYBRID_MIN=4194304).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
echo "== hybrid test ($SECONDS s)"
timeout 120 $T/cuda_runtime --test-threads 1 hybrid 2>&1 | grep -E "test |test result|panicked|SKIP" | head
for r in 1 2; do for c in 0 default 4194304; do echo "== round $r hybrid_min $c ($SECONDS s)"
  if [ $c = default ]; then unset HISTOSORT_HYBRID_MIN; else export HISTOSORT_HYBRID_MIN=$c; fi
  timeout 100 $B bench peers --no-cub --sizes 2^22,2^24,2^26,2^28 \
    --cases "sort" --json $OUT/r$r-h$c.json 2>&1 | grep -E "^sort|rror|anic"
done; done
unset HISTOSORT_HYBRID_MIN
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
