#!/bin/bash
# Session 36, run 2: the packed hybrid for u32/u32 pairs (default off) against the packed LSD
# sort, and the refactored host (c309d7e: one pass-launch helper; packed decided once; no
# segmented pass in the packed hybrid). Carry .device with bins.tar.xz (histosort and
# tests/cuda_runtime staged from c309d7e). 1. u32/u32 pairs 2^22-2^28: the packed LSD sort with
# CUB in the same run, then the packed hybrid (HISTOSORT_HYBRID_MIN) as it is and balanced,
# then the LSD sort again (every bench case checks its output at every element); 2. the
# cuda_runtime suite in full (the refactored launch is every onesweep pass's); 3. the hybrid
# test with the warps balanced and with keys staged, as far as the time goes.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
pk() {
  local l=$1; shift
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 100 $D/histosort bench peers $NOCUB --sizes 2^22,2^24,2^26,2^28 --cases "sort-pairs u32" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
NOCUB=
pk p-lsd X=1
NOCUB=--no-cub
pk p-hybrid HISTOSORT_HYBRID_MIN=2097152
pk p-hybrid-bal HISTOSORT_HYBRID_MIN=2097152 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
pk p-lsd-again X=1
(cd $OUT && tar czf json.tgz *.json && rm -f *.json *.svg)
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s, limit $s s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test |^test result|FAILED|panicked|failed|rror|mismatch" | head -60; }
CMD=($D/tests/cuda_runtime --test-threads 1)
t cuda_runtime $((540 - SECONDS)) X=1
CMD=($D/tests/cuda_runtime --test-threads 1 --exact hybrid_sort_takes_uniform_keys_and_falls_back_on_skew)
[ $SECONDS -lt 480 ] && t hybrid-test-balanced $((570 - SECONDS)) HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
[ $SECONDS -lt 500 ] && t hybrid-test-balanced-staged $((580 - SECONDS)) HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1,HYB_STAGE=1
echo "done ($SECONDS s)"
