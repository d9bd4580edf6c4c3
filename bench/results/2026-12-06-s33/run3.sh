#!/bin/bash
# Session 33 run 3: run 2's smaller pairs tile (384x22x2 was 1-2% faster on the H100) against
# its neighbours, defaults first and last.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-06-s33/unpack.sh
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
pk() {
  local l=$1 s=$2 c=$3; shift 3
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 60 $D/histosort bench peers --no-cub --sizes $s --cases "$c" --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic"
}
P=2^24,2^26,2^28
S=HISTOSORT_ONESWEEP_SHAPE
pk p-base $P "sort-pairs u32" X=1
pk p-384x20 $P "sort-pairs u32" $S=384x20x2
pk p-384x22 $P "sort-pairs u32" $S=384x22x2
pk p-384x24 $P "sort-pairs u32" $S=384x24x2
pk p-base2 $P "sort-pairs u32" X=1
(cd $OUT && tar czf json.tgz *.json && rm -f *.json && rm -f *.svg)
echo "done ($SECONDS s)"
