#!/bin/bash
# Session 34 run 1: the H100's own tile for packed pairs' passes (384x18x2, the new default on
# cards named H100; the H200 keeps the u64 tile 256x22x3). Card-neutral: correctness of the
# packed test with the default and with 384x18x2 named (under compute-sanitizer too), the pairs
# suite, the new float-binning oracle test; then u32/u32 pairs with CUB in the same run at 2^21
# to 2^28: the default, 256x22x3 and 384x18x2 named, the default again.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s34/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
t() { local l=$1 s=$2; shift 2; echo "-- $l ($SECONDS s)"; env "$@" timeout $s "${CMD[@]}" 2>&1 | grep -E "^test result|FAILED|panicked|failed|rror|ERROR SUMMARY" | head -20; }
S=HISTOSORT_ONESWEEP_SHAPE
CMD=($D/tests/cuda_runtime --test-threads 1 --exact packed_pairs_tiles_orders_ranges_and_skips)
t packed-test 120 X=1
t packed-test-384x18x2 120 $S=384x18x2
CMD=($D/tests/pairs)
t pairs-suite 120 X=1
CMD=($D/tests/histogram exact)
t hist-exact 120 X=1
CMD=(compute-sanitizer --tool memcheck --error-exitcode 9 $D/tests/cuda_runtime --test-threads 1 --exact packed_pairs_tiles_orders_ranges_and_skips)
t packed-memcheck 200 X=1
pk() {
  local l=$1 s=$2 c=$3; shift 3
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 150 $D/histosort bench peers $NOCUB --sizes $s --cases "$c" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic"
}
P=2^21,2^22,2^23,2^24,2^26,2^28
NOCUB=
pk p-default $P "sort-pairs u32" X=1
NOCUB=--no-cub
pk p-256x22x3 $P "sort-pairs u32" $S=256x22x3
pk p-384x18x2 $P "sort-pairs u32" $S=384x18x2
pk p-default2 $P "sort-pairs u32" X=1
(cd $OUT && tar czf json.tgz *.json && rm -f *.json *.svg)
echo "done ($SECONDS s)"
