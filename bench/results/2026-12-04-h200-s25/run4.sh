#!/bin/bash
# Session 25 run 4: the hybrid's in-bucket top sort (a chunk sorted by its top varying digits
# only, then runs tied on them by the rest; HISTOSORT_HYBRID_TOP, 0 = every varying digit).
# The hybrid test (uniform, signed, float, pairs, tie runs short and long); u64 keys 2^21-2^28,
# LSD against the hybrid (HISTOSORT_HYBRID_MIN=2^21) without and with the top sort, then CUB
# in the same run; memcheck and racecheck of hybrid sorts through the CLI, checked by numpy;
# the sort suite with the hybrid from 2^16.
cd "$(dirname "$0")/../../.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=$PWD/.device/cache
echo "== hybrid test ($SECONDS s)"
timeout 120 $T/cuda_runtime --test-threads 1 hybrid > /tmp/tests.txt 2>&1; echo "rc $?"
grep -E "^test |test result|FAILED|panicked" /tmp/tests.txt | head -8
S=2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28
ab() { # $1 label, $2 HISTOSORT_HYBRID_MIN, $3 HISTOSORT_HYBRID_TOP
  echo "-- $1 ($SECONDS s)"
  HISTOSORT_HYBRID_MIN=$2 HISTOSORT_HYBRID_TOP=$3 timeout 90 $B bench peers --no-cub --sizes $S --cases "sort-keys u64" --json $OUT/$1.json 2>&1 | grep -E "^sort|rror|anic"
}
echo "== A/B ($SECONDS s)"
ab lsd 0 4; ab full 2097152 0; ab top4 2097152 4; ab top8 2097152 8
echo "== CUB, hybrid from 2^21 with the top sort ($SECONDS s)"
HISTOSORT_HYBRID_MIN=2097152 timeout 120 $B bench peers --sizes $S --cases "sort-keys u64" --json $OUT/cub.json 2>&1 | grep -E "^sort|rror|anic"
rm -f $OUT/*.svg
echo "== sanitizers ($SECONDS s)"
W=/tmp/hy; mkdir -p $W
python3 -c "
import numpy as np
r=np.random.default_rng(7); n=(1<<20)+5
u=r.integers(0,2**63,n,dtype=np.uint64)*np.uint64(2)+r.integers(0,2,n,dtype=np.uint64)
np.save('$W/u.npy',u)
pat=(np.arange(n,dtype=np.uint64)%np.uint64(2))*np.uint64(0x5a5a5a5a5a5a)&np.uint64(0xffffff<<24)
t=(u&np.uint64(0xffff<<48))|pat|(u&np.uint64(0xffffff)); np.save('$W/t.npy',t)
np.save('$W/v.npy',np.arange(n,dtype=np.uint32))
"
for tool in memcheck racecheck; do
  for f in u t; do
    HISTOSORT_HYBRID_MIN=1048576 timeout 100 compute-sanitizer --tool $tool $B sort $W/$f.npy -o $W/o$f.npy --values $W/v.npy --values-out $W/w$f.npy --backend cuda -q 2>&1 | grep -E "SUMMARY|rror" | head -3
  done
done
python3 -c "
import numpy as np
for f in 'ut':
    k=np.load('$W/%s.npy'%f); p=np.argsort(k,kind='stable')
    print(f, 'pairs match numpy:', np.array_equal(np.load('$W/o%s.npy'%f),k[p]) and np.array_equal(np.load('$W/w%s.npy'%f),p.astype(np.uint32)))
"
echo "== sort suite, hybrid from 2^16 ($SECONDS s)"
HISTOSORT_HYBRID_MIN=65536 timeout 150 $T/sort --test-threads 2 > /tmp/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" /tmp/sort.txt | head -5
echo "done ($SECONDS s)"
