#!/bin/bash
# Session 25 run 1: packed pairs' last pass (the unpacking one) on its own wider tile,
# PACKED_LAST_SHAPE 384x20x2, the other passes on the u64 tile 256x22x3. A/B by
# HISTOSORT_PACKED_LAST_SHAPE (256x22x3: the last pass keeps the passes' tile, i.e. off), two
# rounds in opposite orders, two other last tiles once; CUB in the same run; ncu per pass at
# 2^26; the packed and onesweep device tests; memcheck and racecheck of packed sorts through the
# CLI (70,001 pairs: past 9 tiles of 7680), checked by numpy.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
S=2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
ab() { # $1: label, $2: HISTOSORT_PACKED_LAST_SHAPE or "default"
  echo "-- $1 ($SECONDS s)"
  if [ "$2" = default ]; then unset HISTOSORT_PACKED_LAST_SHAPE; else export HISTOSORT_PACKED_LAST_SHAPE=$2; fi
  timeout 120 $B bench peers --no-cub --sizes $S --cases sort-pairs --json $OUT/$1.json 2>&1 | grep -E "^sort|rror|anic"
  unset HISTOSORT_PACKED_LAST_SHAPE
}
echo "== A/B ($SECONDS s)"
ab r1-off 256x22x3; ab r1-last default; ab t-384x24x2 384x24x2; ab t-512x16x2 512x16x2; ab r2-last default; ab r2-off 256x22x3
echo "== CUB in the same run ($SECONDS s)"
timeout 150 $B bench peers --sizes 2^20,$S --cases sort-pairs --json $OUT/cub.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "== ncu per pass, 2^26 ($SECONDS s)"
timeout 100 ncu --clock-control none -k regex:"onesweep_pass" -c 8 \
  --metrics gpu__time_duration.sum,lts__t_sectors_op_write.sum \
  --csv $B bench peers --no-cub --sizes 2^26 --cases sort-pairs --samples 3 --warmups 1 > /tmp/ncu.csv 2>&1
grep onesweep_pass /tmp/ncu.csv | grep -E "duration|sectors" | awk -F'","' '{print $(NF-2), $NF}'
echo "== packed test, onesweep tile test ($SECONDS s)"
timeout 200 $T/cuda_runtime --test-threads 1 packed onesweep_tiles > /tmp/tests.txt 2>&1; echo "rc $?"
grep -E "^test |test result|FAILED|panicked" /tmp/tests.txt | head -8
echo "== pairs suite, packing from 2 keys ($SECONDS s)"
HISTOSORT_PACKED_MIN=2 timeout 200 $T/pairs --test-threads 2 > /tmp/pairs-2.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" /tmp/pairs-2.txt | head -5
echo "== sanitizers: packed sorts through the CLI ($SECONDS s)"
W=/tmp/pk; mkdir -p $W
python3 -c "
import numpy as np
r=np.random.default_rng(6)
for n in (70001, (1<<20)+5):
    k=r.integers(0,2**32,n,dtype=np.uint64).astype(np.uint32); k[::3]&=0xffff00ff
    np.save('$W/k%d.npy'%n,k); np.save('$W/v%d.npy'%n,np.arange(n,dtype=np.uint32))
    np.save('$W/f%d.npy'%n,r.standard_normal(n).astype(np.float32))
"
for tool in memcheck racecheck; do
  HISTOSORT_PACKED_MIN=2 timeout 120 compute-sanitizer --tool $tool $B sort $W/k70001.npy -o $W/o1.npy --values $W/v70001.npy --values-out $W/w1.npy --descending --launch graph --backend cuda -q 2>&1 | grep -E "SUMMARY|rror" | head -3
  HISTOSORT_PACKED_MIN=2 timeout 150 compute-sanitizer --tool $tool $B sort $W/f1048581.npy -o $W/o2.npy --argsort --backend cuda -q 2>&1 | grep -E "SUMMARY|rror" | head -3
done
HISTOSORT_PACKED_MIN=2 $B sort $W/k70001.npy -o $W/o1.npy --values $W/v70001.npy --values-out $W/w1.npy --descending --launch graph --backend cuda -q
HISTOSORT_PACKED_MIN=2 $B sort $W/f1048581.npy -o $W/o2.npy --argsort --backend cuda -q
python3 -c "
import numpy as np
k=np.load('$W/k70001.npy'); p=np.argsort(-k.astype(np.int64),kind='stable')
print('desc pairs match numpy:', np.array_equal(np.load('$W/o1.npy'),k[p]) and np.array_equal(np.load('$W/w1.npy'),p.astype(np.uint32)))
f=np.load('$W/f1048581.npy'); print('f32 argsort matches numpy:', np.array_equal(np.load('$W/o2.npy'),np.argsort(f,kind='stable').astype(np.uint32)))
"
echo "done ($SECONDS s)"
