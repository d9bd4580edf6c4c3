#!/usr/bin/env bash
# session 9, run 1: wide (11-bit) digits in the onesweep pass kernels: tile test, numpy checks, ncu 8 vs 11, peers A/B, suites
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s9r1; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s9r1.tgz -C /tmp s9r1; }
timeout 200 .device/tests/cuda_runtime onesweep_tiles --test-threads=1 > $R/test-tiles.txt 2>&1; t tiles test rc=$?; grep -E "test result|FAILED|panicked|error" $R/test-tiles.txt | head -8; pack
chk() { # dtype n seed extra-args
  $B gen /tmp/d/c.npy --dtype $1 --n $2 --seed $3 -q
  $B sort /tmp/d/c.npy -o /tmp/d/co.npy --backend cuda -q $4; echo -n "rc=$? "
  python3 -c "
import numpy as np
k=np.load('/tmp/d/c.npy'); o=np.load('/tmp/d/co.npy')
desc='$4'.find('desc')>=0
if k.dtype.kind=='f':
    b=k.view(np.uint32 if k.itemsize==4 else np.uint64).astype(np.uint64); s=np.uint64(1)<<np.uint64(k.itemsize*8-1); m=np.uint64((1<<(k.itemsize*8))-1)
    img=np.where(b&s, (~b)&m, b|s)
else: img=k
e=k[np.argsort(img, kind='stable')]
if desc: e=e[::-1]
print('$1 $2 $4', 'OK' if np.array_equal(e.view(np.uint8),o.view(np.uint8)) else 'MISMATCH')"
}
chk u32 2^24 1 ""; chk f32 2^24 2 "--descending"; chk i64 2^22 3 "--descending"; chk u64 5000001 4 ""; chk i32 2^26 5 ""; t checks; pack
python3 -c "
import numpy as np
r=np.random.default_rng(4); k=r.integers(0,2**32,size=2**24,dtype=np.uint64).astype(np.uint32); v=np.arange(2**24,dtype=np.uint32)
np.save('/tmp/d/pk.npy',k); np.save('/tmp/d/pv.npy',v)"
$B sort /tmp/d/pk.npy -o /tmp/d/pko.npy --values /tmp/d/pv.npy --values-out /tmp/d/pvo.npy --backend cuda -q; echo -n "rc=$? "
python3 -c "
import numpy as np
k=np.load('/tmp/d/pk.npy'); v=np.load('/tmp/d/pv.npy'); ko=np.load('/tmp/d/pko.npy'); vo=np.load('/tmp/d/pvo.npy')
o=np.argsort(k, kind='stable'); print('pairs u32/u32 2^24', 'OK' if np.array_equal(ko,k[o]) and np.array_equal(vo,v[o]) else 'MISMATCH')"
t pairs; pack
$B gen /tmp/d/k26.npy --dtype u32 --n 2^26 --seed 7 -q
$B gen /tmp/d/q26.npy --dtype u64 --n 2^26 --seed 8 -q
for bits in 8 11; do
  for f in k26 q26; do
    HISTOSORT_ONESWEEP_DIGIT_BITS=$bits timeout 90 ncu --clock-control none -k regex:onesweep --section SpeedOfLight $B sort /tmp/d/$f.npy -o /tmp/d/o.npy --backend cuda -q > $R/ncu-$f-$bits.txt 2>&1
    echo "$f bits=$bits: $(grep -E '^\s+onesweep|Duration' $R/ncu-$f-$bits.txt | awk '/onesweep/{n=$1} /Duration/{printf "%s %s %s; ", n, $3, $2}')"
  done
done 2>&1 | tee $R/ncu.txt; t ncu; pack
for bits in 8 11; do
  HISTOSORT_ONESWEEP_DIGIT_BITS=$bits timeout 150 $B bench peers --no-cub --sizes 2^26 --json $R/peers-$bits.json -q > $R/peers-$bits.txt 2>&1; t peers $bits rc=$?
  grep -E "^sort" $R/peers-$bits.txt | head -12
done; pack
for s in cuda_runtime pairs sort; do
  timeout 200 .device/tests/$s --test-threads=8 > $R/test-$s.txt 2>&1; t $s rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s.txt | head -5
done; pack; t done
