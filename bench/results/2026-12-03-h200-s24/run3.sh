#!/bin/bash
# Session 24 run 3: packed pairs (4-byte keys and values as one 8-byte element through the u64
# pass kernel; first pass packs, last pass unpacks). A/B by HISTOSORT_PACKED_MIN (0: off), two
# rounds in opposite orders; CUB in the same run; the packed test and the onesweep tile test;
# memcheck and racecheck of packed sorts through the CLI, checked by numpy.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
S=2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
ab() { # $1: label, $2: HISTOSORT_PACKED_MIN or "default"
  echo "-- $1"
  if [ "$2" = default ]; then
    timeout 120 $B bench peers --no-cub --sizes $S --cases sort-pairs --json $OUT/$1.json 2>&1 | grep -E "^sort|rror|anic"
  else
    HISTOSORT_PACKED_MIN=$2 timeout 120 $B bench peers --no-cub --sizes $S --cases sort-pairs --json $OUT/$1.json 2>&1 | grep -E "^sort|rror|anic"
  fi
}
echo "== A/B ($SECONDS s)"
ab r1-off 0; ab r1-packed default; ab r2-packed default; ab r2-off 0
echo "== CUB in the same run ($SECONDS s)"
timeout 150 $B bench peers --sizes 2^20,$S --cases sort-pairs --json $OUT/cub.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "== packed test, onesweep tile test ($SECONDS s)"
timeout 200 $T/cuda_runtime --test-threads 1 packed onesweep_tiles > $OUT/tests.txt 2>&1; echo "rc $?"
grep -E "^test |test result|FAILED|panicked" $OUT/tests.txt | head -8
echo "== sanitizers: packed sorts through the CLI ($SECONDS s)"
W=/tmp/pk; mkdir -p $W
python3 -c "
import numpy as np
r=np.random.default_rng(5)
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
