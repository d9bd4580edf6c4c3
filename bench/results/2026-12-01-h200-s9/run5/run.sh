#!/usr/bin/env bash
# session 9, run 5: look-back scan shapes around 192x8 (u64 2^27, u32 2^28); bench peers 2^27 with CUB and the 192x8 shape
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
B=$PWD/.device/histosort; R=/tmp/s9r5; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s9r5.tgz -C /tmp s9r5; }
$B gen /tmp/d/s64.npy --dtype u64 --n 2^27 --seed 9 -q
$B gen /tmp/d/s32.npy --dtype u32 --n 2^28 --seed 10 -q
sc() { # label file env...
  local l=$1 f=$2; shift 2
  env "$@" timeout 60 ncu --clock-control none -k regex:scan --section SpeedOfLight $B scan /tmp/d/$f.npy -o /tmp/d/so.npy --exclusive --backend cuda -q > $R/ncu-$l.txt 2>&1
  echo "$l: $(grep -E '^\s+[a-z_]*scan|Duration' $R/ncu-$l.txt | awk '/scan/{n=$1} /Duration/{printf "%s %s %s; ", n, $3, $2}')"
}
{
for f in s64 s32; do
  sc $f-default $f
  for th in 160 192 224 288 320; do sc $f-${th}x8 $f HISTOSORT_SCAN_SHAPE=threads=$th,vecs=8; done
  sc $f-192x8-d2400 $f HISTOSORT_SCAN_SHAPE=threads=192,vecs=8 HISTOSORT_KERNEL_DEFINES=LB_DELAY_FIRST=2400,LB_DELAY_RETRY=1000
  sc $f-192x8b2 $f HISTOSORT_SCAN_SHAPE=threads=192,vecs=8
  sc $f-default2 $f
done
} 2>&1 | tee $R/scan.txt; t scan; pack
python3 -c "
import numpy as np
k=np.load('/tmp/d/s32.npy'); o=np.load('/tmp/d/so.npy'); e=np.concatenate([[0],np.cumsum(k,dtype=np.uint32)[:-1]]).astype(np.uint32); print('scan u32 2^28 exclusive', 'OK' if np.array_equal(o,e) else 'MISMATCH')"
HISTOSORT_SCAN_SHAPE=threads=192,vecs=8 HISTOSORT_SCAN_SHAPE=threads=192,vecs=8 $B scan /tmp/d/s64.npy -o /tmp/d/so.npy --backend cuda -q
python3 -c "
import numpy as np
k=np.load('/tmp/d/s64.npy'); o=np.load('/tmp/d/so.npy'); e=np.cumsum(k,dtype=np.uint64); print('scan u64 2^27 inclusive 192x8', 'OK' if np.array_equal(o,e) else 'MISMATCH')"
HISTOSORT_SCAN_SHAPE=threads=192,vecs=8 timeout 300 $B bench peers --sizes 2^27 --json $R/peers-192.json -q > $R/peers-192.txt 2>&1; t peers rc=$?
grep -E "sum|^sort" $R/peers-192.txt | head -20; pack; t done
