#!/bin/bash
# Session 37, run 7 (the session's last ~3 device minutes): does run 5's balanced in-bucket
# block (HYB_BALANCE=1: -17% on the packed kernel) and the 256x10x4x13 block (-35%) speed up
# the u64 hybrid, which is the default for u64 keys from 2^23 and u64 pairs from 2^21? u64 keys
# and u64/u32 pairs at 2^24 and 2^26 (no CUB: A/B on one machine), then the hybrid test with
# HYB_BALANCE=1. Carry .device (bins.tar.xz staged from fb0f0f0).
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
pk() {
  local l=$1; shift
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 40 $D/histosort bench peers --no-cub --sizes 2^24,2^26 --cases "sort-keys u64,sort-pairs u64/u32" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
pk u64-default X=1
pk u64-bal HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
pk u64-bal-256x10 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1 HISTOSORT_HYBRID_LOCAL=256x10x4x13
echo "-- hybrid test balanced ($SECONDS s)"
HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1 timeout $((178 - SECONDS)) $D/tests/cuda_runtime --test-threads 1 --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew 2>&1 | grep -E "^test |^test result|FAILED|panicked|failed|rror|mismatch" | head -30
echo "done ($SECONDS s)"
