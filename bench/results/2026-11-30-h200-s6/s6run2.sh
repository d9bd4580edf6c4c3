#!/usr/bin/env bash
# session 6, run 2: GPU suites on the new defaults (384x23x2 tiles, late values, paced scan), then a finer sweep
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s6r2; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s6r2.tgz -C /tmp s6r2; }
dur() { python3 - "$1" <<'PY'
import re,sys
tot=0.0
for l in open(sys.argv[1]):
    m=re.match(r"\s*Duration\s+(\w+)\s+([\d.,]+)",l)
    if m:
        v=float(m.group(2).replace(',',''));u=m.group(1)
        tot+= v*1000 if u=="ms" else (v/1000 if u=="ns" else v)
print(f"{tot:.1f}")
PY
}
for s in cuda_runtime scan histogram pairs sort; do
  timeout 200 .device/tests/$s --test-threads=6 > $R/test-$s.txt 2>&1; t $s rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s.txt | head -5
done; pack
$B gen /tmp/d/k26.npy --dtype u32 --n 2^26 --seed 7 -q; $B gen /tmp/d/v26.npy --dtype u32 --n 2^26 --seed 8 -q
$B gen /tmp/d/k28.npy --dtype u32 --n 2^28 --seed 9 -q; $B gen /tmp/d/q26.npy --dtype u64 --n 2^26 --seed 10 -q
$B gen /tmp/d/k24.npy --dtype u32 --n 2^24 --seed 11 -q; $B gen /tmp/d/w24.npy --dtype u64 --n 2^24 --seed 12 -q
t gen
ncu_sort() { # tag shape defines keys [values]
  local tag=$1 shape=$2 defs=$3 k=$4 v=${5:-} extra=""
  [ -n "$v" ] && extra="--values /tmp/d/$v.npy --values-out /tmp/d/ov.npy"
  env ${shape:+HISTOSORT_ONESWEEP_SHAPE=$shape} ${defs:+HISTOSORT_KERNEL_DEFINES=$defs} timeout 60 ncu --clock-control none -k regex:onesweep_pass --section SpeedOfLight $B sort /tmp/d/$k.npy -o /tmp/d/o.npy $extra --backend cuda -q > $R/ncu-$tag.txt 2>&1
  echo "$tag $k${v:+/$v} shape=${shape:-default} defs=${defs:-none} passes $(dur $R/ncu-$tag.txt) us"
}
{
ncu_sort P0 "" "" k26 v26; ncu_sort P1 384x20x2 "" k26 v26; ncu_sort P2 448x20x2 "" k26 v26; ncu_sort P3 512x17x2 "" k26 v26
ncu_sort P4 320x23x2 "" k26 v26; ncu_sort P5 "" LOOKBACK=4 k26 v26; ncu_sort P6 "" LOOKBACK=16 k26 v26
ncu_sort K0 "" "" k28; ncu_sort K1 "" PREFETCH_AHEAD=0 k28; ncu_sort K2 "" PREFETCH_AHEAD=115 k28; ncu_sort K3 448x20x2 "" k28
ncu_sort K4 512x18x2 "" k28; ncu_sort K5 "" LOOKBACK=4 k28; ncu_sort K6 "" LOOKBACK=16 k28
ncu_sort Q0 "" "" q26; ncu_sort Q1 384x11x2 "" q26; ncu_sort Q2 384x15x2 "" q26; ncu_sort Q3 256x11x3 "" q26; ncu_sort Q4 384x13x2 "" q26
ncu_sort W0 "" "" k24 w24; ncu_sort W1 384x11x2 VALUES_LATE=2 k24 w24; ncu_sort W2 384x15x2 VALUES_LATE=2 k24 w24; ncu_sort W3 256x15x3 VALUES_LATE=2 k24 w24
} 2>&1 | tee $R/sorts.txt; t sorts; pack
rm -f /tmp/d/*.npy
$B gen /tmp/d/s32.npy --dtype u32 --n 2^28 --seed 3 -q; $B gen /tmp/d/s64.npy --dtype u64 --n 2^27 --seed 4 -q
ncu_scan() { # tag shape defines
  for ty in 32 64; do
    env ${2:+HISTOSORT_SCAN_SHAPE=$2} ${3:+HISTOSORT_KERNEL_DEFINES=$3} timeout 60 ncu --clock-control none -k regex:scan_lookback --section SpeedOfLight $B scan /tmp/d/s$ty.npy -o /tmp/d/so.npy --exclusive --backend cuda -q > $R/ncu-$1-s$ty.txt 2>&1
    echo "$1 shape=${2:-default} defs=${3:-none} u$ty $(dur $R/ncu-$1-s$ty.txt) us"
  done
}
{
ncu_scan S0 "" ""
ncu_scan S1 "" "LB_DELAY_FIRST=2000,LB_DELAY_RETRY=1000"
ncu_scan S2 "" "LB_DELAY_FIRST=800,LB_DELAY_RETRY=400"
ncu_scan S3 "windows=2" ""
ncu_scan S4 "" "LB_DELAY_RETRY=300"
ncu_scan S5 "" "STORE_STREAMING=0"
ncu_scan S6 "threads=128,vecs=6" ""
ncu_scan S7 "threads=256,vecs=8" ""
} 2>&1 | tee $R/scan.txt; t scan; pack
python3 -c "import numpy as np; a=np.load('/tmp/d/s64.npy'); b=np.load('/tmp/d/so.npy'); c=np.cumsum(a,dtype=np.uint64); print('scan u64 last config', 'OK' if b[0]==0 and np.array_equal(b[1:],c[:-1]) else 'MISMATCH')"
pack; t done
