#!/bin/bash
# Session 29 run 1 (speed): the hybrid sort for u32/u32 pairs with the one-digit top sort
# (HYB_TOP_BITS=8, now reaching the kernel) against the packed LSD passes; u64 keys and u64/u32
# pairs with the top sort's extra bits 4 (default) / 3, CUB in the same run; ncu per kernel.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s27/unpack.sh > /dev/null
D=$PWD/.device
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
S=2^22,2^24,2^26,2^28
H=HISTOSORT_HYBRID_MIN=2097152
# $1 label, $2 binary, $3 sizes, $4 cases, $5 extra bench options, then env
pk() {
  local l=$1 b=$2 s=$3 c=$4 o=$5; shift 5
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 120 $D/histosort-$b bench peers --sizes $s --cases "$c" $o --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic"
}
echo "== u32/u32 pairs ($SECONDS s)"
pk p-lsd new $S "sort-pairs u32" --no-cub X=1
pk p-hyb8 new $S "sort-pairs u32" --no-cub $H HISTOSORT_KERNEL_DEFINES=HYB_TOP_BITS=8
pk p-hyb8l new $S "sort-pairs u32" --no-cub $H HISTOSORT_KERNEL_DEFINES=HYB_TOP_BITS=8,HYB_TIE_RUN_MAX=63
pk p-lsd2 new $S "sort-pairs u32" --no-cub X=1
echo "== u32 keys ($SECONDS s)"
pk k-lsd new $S "sort-keys u32" --no-cub X=1
pk k-hyb8 new $S "sort-keys u32" --no-cub $H HISTOSORT_KERNEL_DEFINES=HYB_TOP_BITS=8
echo "== u64 keys, top extra bits 4 / 3 ($SECONDS s)"
U=2^24,2^26,2^28
pk u-4 new $U "sort-keys u64" "" X=1
pk u-3 new $U "sort-keys u64" --no-cub HISTOSORT_HYBRID_TOP=3
pk u-4b new $U "sort-keys u64" --no-cub X=1
echo "== u64/u32 pairs, top extra bits 4 / 3 ($SECONDS s)"
P=2^22,2^24,2^26
pk q-4 new $P "sort-pairs u64" "" X=1
pk q-3 new $P "sort-pairs u64" --no-cub HISTOSORT_HYBRID_TOP=3
echo "== ncu, u32/u32 pairs 2^26, hybrid with the one-digit top sort ($SECONDS s)"
for d in HYB_TOP_BITS=8; do
  env $H HISTOSORT_KERNEL_DEFINES=$d timeout 100 ncu --clock-control none -k regex:"onesweep|hybrid|histogram" -c 12 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
    --csv $D/histosort-new bench peers --no-cub --sizes 2^26 --cases "sort-pairs u32" --samples 2 --warmups 1 > $OUT/ncu-$d.csv 2>&1
  python3 bench/ncu_per_kernel.py $OUT/ncu-$d.csv
done
rm -f $OUT/*.svg
(cd $OUT && tar czf json.tgz *.json && rm -f *.json && tar czf ncu.tgz ncu-*.csv && rm -f ncu-*.csv)
echo "done ($SECONDS s)"
