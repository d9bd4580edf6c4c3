#!/bin/bash
# Session 21 run 2: with keys staged as ranked (RANK_STAGE=1, this build's default), wider
# tiles for 32-bit keys (256x28x3 the default, 32, 36, 40 keys per thread at 3 blocks per SM;
# ptxas: no spills), two rounds in opposite orders; round 2 of run 1's u64 and pairs A/B.
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
for sh in 256x28x3 256x32x3 256x36x3 256x40x3; do ab r1-$sh "" $sh "$K32" 2^22,2^24,2^26,2^28; done
for sh in 256x40x3 256x36x3 256x32x3 256x28x3; do ab r2-$sh "" $sh "$K32" 2^22,2^24,2^26,2^28; done
ab r2-u64-s1 RANK_STAGE=1 "" "sort-keys u64" 2^24,2^26
ab r2-u64-s0 RANK_STAGE=0 "" "sort-keys u64" 2^24,2^26
ab r2-pairs-s1 RANK_STAGE=1 "" "sort-pairs" 2^24,2^26
ab r2-pairs-s0 RANK_STAGE=0 "" "sort-pairs" 2^24,2^26
rm -f $OUT/*.svg
cd $OUT && tar czf json.tgz *.json && rm -f *.json
echo "done ($SECONDS s)"
