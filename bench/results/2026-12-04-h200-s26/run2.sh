#!/bin/bash
# Session 26 run 2 (speed): old (f27582e) and new in-bucket kernel, A/B on one machine.
# Uniform u64 keys 2^22-2^28: old and new with the top sort, new with every digit, two rounds.
# u64 keys from 2^18 distinct values: LSD, old hybrid, new hybrid, then CUB on the same
# distribution. u64/u32 pairs: LSD against the hybrid from 2^21 (new kernel), then CUB.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s26/unpack.sh > /dev/null
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
S=2^22,2^23,2^24,2^25,2^26,2^27,2^28
# $1 label, $2 binary (old/new), $3 sizes, $4 cases, $5 extra bench options, then env
pk() {
  local l=$1 b=$2 s=$3 c=$4 o=$5; shift 5
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 120 $D/histosort-$b bench peers --sizes $s --cases "$c" $o --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic"
}
echo "== uniform u64 keys ($SECONDS s)"
for r in a b; do
  pk old4$r old $S "sort-keys u64" --no-cub X=1
  pk new4$r new $S "sort-keys u64" --no-cub X=1
done
pk new0 new $S "sort-keys u64" --no-cub HISTOSORT_HYBRID_TOP=0
echo "== u64 keys from 2^18 distinct values ($SECONDS s)"
DS=2^22,2^24,2^26
pk dup-lsd new $DS "sort-keys u64" "--no-cub --dist distinct-262144" HISTOSORT_HYBRID_MIN=0
pk dup-old old $DS "sort-keys u64" "--no-cub --dist distinct-262144" X=1
pk dup-new new $DS "sort-keys u64" "--dist distinct-262144" X=1
echo "== u64/u32 pairs ($SECONDS s)"
PS=2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
pk pairs-lsd new $PS "sort-pairs u64" --no-cub HISTOSORT_HYBRID_MIN=0
pk pairs-hyb new $PS "sort-pairs u64" --no-cub HISTOSORT_HYBRID_MIN=2097152
pk pairs-cub new $PS "sort-pairs u64" "" X=1
rm -f $OUT/*.svg
(cd $OUT && tar czf json.tgz *.json && rm -f *.json)
echo "done ($SECONDS s)"
