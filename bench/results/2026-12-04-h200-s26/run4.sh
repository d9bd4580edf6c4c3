#!/bin/bash
# Session 26 run 4: the tie-run walk started from the keys that differ from their predecessor
# (runs of equal keys cost one comparison per key). The hybrid test, memcheck and racecheck
# through the CLI (uniform, equal runs, two-key runs; numpy checks), old (f27582e) and new
# kernel A/B on uniform u64 keys and on keys from 2^18 distinct values, and the sort suite
# with the hybrid from 2^16.
cd "$(dirname "$0")/../../.."
bash bench/results/2026-12-04-h200-s26/unpack.sh > /dev/null
D=$PWD/.device
B=$D/histosort-new
T=$D/tests
exec > >(tee -a $OUT/log.txt) 2>&1
export HISTOSORT_REQUIRE_GPU=1 HISTOSORT_CACHE_DIR=/tmp/hcache
echo "== hybrid test ($SECONDS s)"
timeout 170 $T/cuda_runtime --test-threads 1 hybrid > /tmp/tests.txt 2>&1; echo "rc $?"
grep -E "^test |test result|FAILED|panicked" /tmp/tests.txt | head -8
echo "== sanitizers ($SECONDS s)"
W=/tmp/hy; mkdir -p $W
python3 -c "
import numpy as np
r=np.random.default_rng(7); n=(1<<20)+5
np.save('$W/u.npy',r.integers(0,2**63,n,dtype=np.uint64)*np.uint64(2)+r.integers(0,2,n,dtype=np.uint64))
tab=r.integers(0,2**63,n//64,dtype=np.uint64)*np.uint64(2)
j=r.integers(0,n//64,n)
np.save('$W/e.npy',tab[j])
np.save('$W/m.npy',tab[j]|(np.arange(n,dtype=np.uint64)&np.uint64(1)))
np.save('$W/v.npy',np.arange(n,dtype=np.uint32))
"
for tool in memcheck racecheck; do
  for f in u e m; do
    HISTOSORT_HYBRID_MIN=1048576 timeout 100 compute-sanitizer --tool $tool $B sort $W/$f.npy -o $W/o$f.npy --values $W/v.npy --values-out $W/w$f.npy --backend cuda -q 2>&1 | grep -E "SUMMARY|rror" | head -3
  done
done
python3 -c "
import numpy as np
for f in 'uem':
    k=np.load('$W/%s.npy'%f); p=np.argsort(k,kind='stable')
    print(f, 'pairs match numpy:', np.array_equal(np.load('$W/o%s.npy'%f),k[p]) and np.array_equal(np.load('$W/w%s.npy'%f),p.astype(np.uint32)))
"
# $1 label, $2 binary (old/new), $3 sizes, $4 cases, $5 extra bench options, then env
pk() {
  local l=$1 b=$2 s=$3 c=$4 o=$5; shift 5
  echo "-- $l ($SECONDS s)"
  env "$@" timeout 120 $D/histosort-$b bench peers --no-cub --sizes $s --cases "$c" $o --json $OUT/$l.json 2>&1 | grep -E "^sort|rror|anic"
}
echo "== A/B ($SECONDS s)"
S=2^23,2^24,2^26,2^28
pk old4 old $S "sort-keys u64" "" X=1
pk new4 new $S "sort-keys u64" "" X=1
DS=2^24,2^26
pk dup-lsd new $DS "sort-keys u64" "--dist distinct-262144" HISTOSORT_HYBRID_MIN=0
pk dup-old old $DS "sort-keys u64" "--dist distinct-262144" X=1
pk dup-new new $DS "sort-keys u64" "--dist distinct-262144" X=1
pk dup-new0 new $DS "sort-keys u64" "--dist distinct-262144" HISTOSORT_HYBRID_TOP=0
pk dup16-new new $DS "sort-keys u64" "--dist distinct-1048576" X=1
pk dup16-lsd new $DS "sort-keys u64" "--dist distinct-1048576" HISTOSORT_HYBRID_MIN=0
rm -f $OUT/*.svg
(cd $OUT && tar czf json.tgz *.json && rm -f *.json)
echo "== sort suite, hybrid from 2^16 ($SECONDS s)"
HISTOSORT_HYBRID_MIN=65536 timeout 200 $T/sort --test-threads 2 > /tmp/sort.txt 2>&1; echo "rc $?"
grep -E "test result|FAILED|panicked" /tmp/sort.txt | head -5
echo "done ($SECONDS s)"
