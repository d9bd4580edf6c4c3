#!/bin/bash
# Session 35 run 3 (run 2 hung at a `wait` on its own log's process substitution after the
# hybrid tests): u32/u32 pairs, the packed LSD sort with CUB in the same run, then the packed
# hybrid (HISTOSORT_HYBRID_MIN, warps as today), then with the warps balanced (its rounds
# bound fixed after run 2's failure), 2^22 / 2^24 / 2^26 / 2^28. The bench checks every result
# (pairs: stable, values = indices) before timing it. Only the histosort binary is carried.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
pk() {
  local l=$1; shift
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 90 $D/histosort bench peers $NOCUB --sizes 2^24,2^26,2^28 --cases "sort-pairs u32" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
NOCUB=
pk p-lsd X=1
NOCUB=--no-cub
pk p-hybrid HISTOSORT_HYBRID_MIN=2097152
pk p-hybrid-bal HISTOSORT_HYBRID_MIN=2097152 HISTOSORT_KERNEL_DEFINES=HYB_BALANCE=1
echo "done ($SECONDS s)"
