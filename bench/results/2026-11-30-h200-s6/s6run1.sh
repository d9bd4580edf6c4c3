#!/usr/bin/env bash
# session 6, run 1: onesweep tile shapes and VALUES_LATE (ncu pass sums, numpy check), scan pacing
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s6r1; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s6r1.tgz -C /tmp s6r1; }
dur() { python3 - "$1" "$2" <<'PY'
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
check() { python3 - "$@" <<'PY'
import numpy as np,sys
k=np.load(sys.argv[1]); o=np.load(sys.argv[2])
order=np.argsort(k,kind='stable')
ok=np.array_equal(o,k[order])
if len(sys.argv)>3:
    v=np.load(sys.argv[3]); ov=np.load(sys.argv[4]); ok=ok and np.array_equal(ov,v[order])
print("OK" if ok else "MISMATCH")
PY
}
for e in 24 26; do $B gen /tmp/d/k$e.npy --dtype u32 --n 2^$e --seed 7 -q; $B gen /tmp/d/v$e.npy --dtype u32 --n 2^$e --seed 8 -q; done
$B gen /tmp/d/k28.npy --dtype u32 --n 2^28 --seed 9 -q
t gen
ncu_sort() { # tag shape vl size pairs
  local tag=$1 shape=$2 vl=$3 e=$4 p=$5 extra=""
  [ "$p" = 1 ] && extra="--values /tmp/d/v$e.npy --values-out /tmp/d/ov.npy"
  env ${shape:+HISTOSORT_ONESWEEP_SHAPE=$shape} HISTOSORT_KERNEL_DEFINES=VALUES_LATE=$vl timeout 60 ncu --clock-control none -k regex:onesweep_pass --section SpeedOfLight $B sort /tmp/d/k$e.npy -o /tmp/d/o.npy $extra --backend cuda -q > $R/ncu-$tag-$e.txt 2>&1
  local c=""
  if [ "$e" = 24 ]; then if [ "$p" = 1 ]; then c=$(check /tmp/d/k$e.npy /tmp/d/o.npy /tmp/d/v$e.npy /tmp/d/ov.npy); else c=$(check /tmp/d/k$e.npy /tmp/d/o.npy); fi; fi
  echo "$tag shape=${shape:-default} VL=$vl pairs=$p 2^$e passes $(dur $R/ncu-$tag-$e.txt) us $c"
}
for e in 24 26; do
  ncu_sort P0 "" 0 $e 1; ncu_sort P1 "" 1 $e 1; ncu_sort P2 "" 2 $e 1
  ncu_sort P3 256x20x3 1 $e 1; ncu_sort P4 256x20x3 2 $e 1; ncu_sort P5 256x23x3 1 $e 1; ncu_sort P6 256x20x3 0 $e 1
  ncu_sort P7 384x20x2 1 $e 1; ncu_sort P8 384x23x2 1 $e 1; ncu_sort P9 384x23x2 2 $e 1; ncu_sort P10 384x23x2 0 $e 1
  ncu_sort P11 256x15x4 1 $e 1
done 2>&1 | tee $R/pairs.txt; t pairs; pack
for e in 24 28; do
  ncu_sort K0 "" 0 $e 0; ncu_sort K1 256x20x3 0 $e 0; ncu_sort K2 384x20x2 0 $e 0; ncu_sort K3 384x23x2 0 $e 0
  ncu_sort K4 512x15x2 0 $e 0; ncu_sort K5 256x18x3 0 $e 0
done 2>&1 | tee $R/keys.txt; t keys; pack
rm -f /tmp/d/k26.npy /tmp/d/v26.npy /tmp/d/o.npy /tmp/d/ov.npy
$B gen /tmp/d/s32.npy --dtype u32 --n 2^28 --seed 3 -q; $B gen /tmp/d/s64.npy --dtype u64 --n 2^27 --seed 4 -q
ncu_scan() { # tag shape defines
  for ty in 32 64; do
    env ${2:+HISTOSORT_SCAN_SHAPE=$2} ${3:+HISTOSORT_KERNEL_DEFINES=$3} timeout 60 ncu --clock-control none -k regex:scan_lookback --section SpeedOfLight $B scan /tmp/d/s$ty.npy -o /tmp/d/so.npy --exclusive --backend cuda -q > $R/ncu-$1-s$ty.txt 2>&1
    echo "$1 shape=${2:-default} defs=${3:-none} u$ty $(dur $R/ncu-$1-s$ty.txt) us"
  done
}
{
ncu_scan S0 "" ""
ncu_scan S1 "" "LB_DELAY_RETRY=650"
ncu_scan S2 "" "LB_DELAY_FIRST=1200,LB_DELAY_RETRY=650"
ncu_scan S3 "" "LB_DELAY_FIRST=600,LB_DELAY_RETRY=300"
ncu_scan S4 "windows=1" "LB_DELAY_FIRST=1200,LB_DELAY_RETRY=650"
ncu_scan S5 "" "STORE_STREAMING=0"
ncu_scan S6 "threads=224,vecs=6" ""
ncu_scan S7 "threads=224,vecs=6" "LB_DELAY_FIRST=1200,LB_DELAY_RETRY=650"
ncu_scan S8 "threads=128,vecs=6" "LB_DELAY_FIRST=1200,LB_DELAY_RETRY=650"
ncu_scan S9 "threads=128,vecs=6" ""
} 2>&1 | tee $R/scan.txt; t scan; pack
python3 -c "import numpy as np; a=np.load('/tmp/d/s64.npy'); b=np.load('/tmp/d/so.npy'); c=np.cumsum(a,dtype=np.uint64); print('scan u64 last config', 'OK' if b[0]==0 and np.array_equal(b[1:],c[:-1]) else 'MISMATCH')"
pack; t done
