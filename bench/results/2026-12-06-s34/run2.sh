#!/bin/bash
# Session 34 run 2: the H100 tile from 2^22 on (PACKED_H100_MIN; run 1: 12% slower at 2^21).
# Binaries in .device/t2 (histosort, cuda_runtime, histogram built at this commit; run 1's
# histogram binary had been built with a test mutation left in src/sample.rs, so its failures
# were the mutation's). Correctness: the packed test (now also around the H100 tile's
# boundaries past 2^22), the whole histogram suite with the float-binning oracle; then u32/u32
# pairs with CUB in the same run at 2^21 to 2^28, the u64 tile named as the baseline.
cd "$(dirname "$0")/../../.."
D=$PWD/.device/t2
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
$D/histosort info 2>&1 | grep -i cuda
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test |^test result|FAILED|panicked|failed|rror" | head -30; }
CMD=($D/cuda_runtime --test-threads 1 --exact packed_pairs_tiles_orders_ranges_and_skips)
t packed-test 200 X=1
CMD=($D/histogram)
t histogram-suite 200 X=1
pk() {
  local l=$1 s=$2 c=$3; shift 3
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 150 $D/histosort bench peers $NOCUB --sizes $s --cases "$c" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic|bench on"
}
P=2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
NOCUB=
pk p-default $P "sort-pairs u32" X=1
NOCUB=--no-cub
pk p-256x22x3 $P "sort-pairs u32" HISTOSORT_ONESWEEP_SHAPE=256x22x3
(cd $OUT && tar czf json.tgz *.json && rm -f *.json *.svg)
echo "done ($SECONDS s)"
