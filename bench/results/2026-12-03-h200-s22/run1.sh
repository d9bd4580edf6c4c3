#!/bin/bash
# Session 22 run 1 (one round; the second comes in run 2 beside CUB): session 21's next-run.sh
# sweep of 32-bit keys' tiles over 2^23-2^28 (32-44 keys per thread), the same question for
# u32/u32 pairs (384x26x2 default, 28-32 pairs per thread) and u64 keys (256x22x3 default,
# 24-26 keys per thread; session 13 measured these before keys were staged as ranked), then
# the pairs suite (owed since session 21's ranking change).
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
ab() {  # tag, shape, cases, sizes
  echo "== $1 ($SECONDS s)"
  HISTOSORT_ONESWEEP_SHAPE=$2 timeout 100 $B bench peers --no-cub \
    --sizes $4 --cases "$3" --json $OUT/$1.json 2>&1 | grep -E "^sort|rror|anic"
}
K32="sort-keys u32,sort-keys f32"
S32=2^23,2^24,2^25,2^26,2^27,2^28
for sh in 256x32x3 256x36x3 256x40x3 256x44x3; do ab k32-$sh $sh "$K32" $S32; done
for sh in 384x26x2 384x28x2 384x30x2 384x32x2; do ab pairs-$sh $sh sort-pairs 2^24,2^26,2^28; done
for sh in 256x22x3 256x24x3 256x26x3; do ab u64-$sh $sh "sort-keys u64" 2^24,2^26,2^27; done
rm -f $OUT/*.svg
cd $OUT && tar czf json.tgz *.json && rm -f *.json && cd - >/dev/null
echo "== pairs suite ($SECONDS s)"
timeout 200 $T/pairs --test-threads 2 > $OUT/pairs.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" $OUT/pairs.txt | head -5
echo "done ($SECONDS s)"
