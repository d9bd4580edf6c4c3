#!/usr/bin/env bash
# session 9, run 4: cluster threads for u64 keys at 2^14-2^16; the look-back scan's shape and pacing for u64 (2^27) and u32 (2^28)
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
B=$PWD/.device/histosort; R=/tmp/s9r4; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s9r4.tgz -C /tmp s9r4; }
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
  sc $f-256x8 $f HISTOSORT_SCAN_SHAPE=threads=256,vecs=8
  sc $f-384x8 $f HISTOSORT_SCAN_SHAPE=threads=384,vecs=8
  sc $f-192x8 $f HISTOSORT_SCAN_SHAPE=threads=192,vecs=8
  sc $f-128x8b4 $f HISTOSORT_SCAN_SHAPE=threads=128,vecs=8,blocks=8
  sc $f-d600 $f HISTOSORT_KERNEL_DEFINES=LB_DELAY_FIRST=600,LB_DELAY_RETRY=300
  sc $f-d2400 $f HISTOSORT_KERNEL_DEFINES=LB_DELAY_FIRST=2400,LB_DELAY_RETRY=1000
  sc $f-default2 $f
done
} 2>&1 | tee $R/scan.txt; t scan; pack
python3 -c "
import numpy as np
k=np.load('/tmp/d/s32.npy'); o=np.load('/tmp/d/so.npy'); e=np.concatenate([[0],np.cumsum(k,dtype=np.uint32)[:-1]]).astype(np.uint32); print('scan u32 2^28 exclusive', 'OK' if np.array_equal(o,e) else 'MISMATCH')"
for th in 256 512 1024; do
  HISTOSORT_CLUSTER_THREADS=$th timeout 120 $B bench peers --no-cub --sizes 2^14,2^15,2^16 --json $R/peers-c$th.json -q > $R/peers-c$th.txt 2>&1; t peers c$th rc=$?
  grep -E "^sort-keys (u64|u32 ) |^sort-pairs" $R/peers-c$th.txt | head -12
done; pack; t done
