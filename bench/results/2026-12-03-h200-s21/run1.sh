#!/bin/bash
# Session 21 run 1: the onesweep pass stages each key as it is ranked (RANK_STAGE=1), which
# frees its register for the rest of the ranking, against ranking every key first (0); and the
# tiles that the freed registers allow (256x32x3 without spills; 256x24x4 at 4 blocks per SM).
# One binary, A/B by HISTOSORT_KERNEL_DEFINES / HISTOSORT_ONESWEEP_SHAPE, no CUB (round 2 of a
# later run has it). Medians of the bench's samples.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
ab() {  # tag, defines, shape, cases, sizes
  echo "== $1 ($SECONDS s)"
  HISTOSORT_KERNEL_DEFINES=$2 HISTOSORT_ONESWEEP_SHAPE=$3 timeout 100 $B bench peers --no-cub \
    --sizes $5 --cases "$4" --json $OUT/$1.json 2>&1 | grep -E "^sort|rror|anic"
}
K32="sort-keys u32,sort-keys f32"
for r in ${ROUNDS:-1 2}; do
  ab r$r-k32-s0 RANK_STAGE=0 "" "$K32" 2^24,2^26,2^28
  ab r$r-k32-s1 RANK_STAGE=1 "" "$K32" 2^24,2^26,2^28
  ab r$r-k32-s1-32x3 RANK_STAGE=1 256x32x3 "$K32" 2^24,2^26,2^28
  ab r$r-k32-s1-24x4 RANK_STAGE=1 256x24x4 "$K32" 2^24,2^26,2^28
  ab r$r-u64-s0 RANK_STAGE=0 "" "sort-keys u64" 2^24,2^26
  ab r$r-u64-s1 RANK_STAGE=1 "" "sort-keys u64" 2^24,2^26
  ab r$r-pairs-s0 RANK_STAGE=0 "" "sort-pairs" 2^24,2^26
  ab r$r-pairs-s1 RANK_STAGE=1 "" "sort-pairs" 2^24,2^26
done
rm -f $OUT/*.svg
echo "done ($SECONDS s)"
