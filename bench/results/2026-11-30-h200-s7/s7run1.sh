#!/usr/bin/env bash
# session 7, run 1: early counts and shared-OR peers (ncu A/B, numpy checks, instruction metrics), small sorts, suites with both on
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s7r1; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s7r1.tgz -C /tmp s7r1; }
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
check() { python3 - "$@" <<'PY'
import numpy as np,sys
k=np.load(sys.argv[1]); o=np.load(sys.argv[2])
if len(sys.argv)>3:
    order=np.argsort(k,kind='stable'); ok=np.array_equal(o,k[order])
    v=np.load(sys.argv[3]); ov=np.load(sys.argv[4]); ok=ok and np.array_equal(ov,v[order])
else:
    ok=np.array_equal(o,np.sort(k))
print("check", "OK" if ok else "MISMATCH")
PY
}
$B gen /tmp/d/k28.npy --dtype u32 --n 2^28 --seed 9 -q
$B gen /tmp/d/k26.npy --dtype u32 --n 2^26 --seed 7 -q; $B gen /tmp/d/v26.npy --dtype u32 --n 2^26 --seed 8 -q
$B gen /tmp/d/q26.npy --dtype u64 --n 2^26 --seed 10 -q
$B gen /tmp/d/e24.npy --dtype u32 --n 2^24 --seed 11 --dist entropy-0.337 -q
$B gen /tmp/d/f28.npy --dtype f32 --n 2^28 --seed 12 -q
t gen
ncu_sort() { # tag defines keys [values] [check]
  local tag=$1 defs=$2 k=$3 v=${4:-} extra=""
  [ -n "$v" ] && extra="--values /tmp/d/$v.npy --values-out /tmp/d/ov.npy"
  env ${defs:+HISTOSORT_KERNEL_DEFINES=$defs} timeout 90 ncu --clock-control none -k regex:onesweep_pass --section SpeedOfLight $B sort /tmp/d/$k.npy -o /tmp/d/o.npy $extra --backend cuda -q > $R/ncu-$tag.txt 2>&1
  echo "$tag $k${v:+/$v} defs=${defs:-none} passes $(dur $R/ncu-$tag.txt) us"
  if [ -n "${5:-}" ]; then if [ -n "$v" ]; then check /tmp/d/$k.npy /tmp/d/o.npy /tmp/d/$v.npy /tmp/d/ov.npy; else check /tmp/d/$k.npy /tmp/d/o.npy; fi; fi
}
C0="RANK_BALLOT=1,EARLY_COUNTS=0"; C1="RANK_BALLOT=1,EARLY_COUNTS=1"; C2="RANK_BALLOT=2,EARLY_COUNTS=0"; C3="RANK_BALLOT=2,EARLY_COUNTS=1"
{
for r in a b; do
ncu_sort K0$r $C0 k28; ncu_sort K1$r $C1 k28 "" ${r/b/}; ncu_sort K2$r $C2 k28; ncu_sort K3$r $C3 k28 "" ${r/b/}
ncu_sort P0$r $C0 k26 v26; ncu_sort P1$r $C1 k26 v26 ${r/b/}; ncu_sort P2$r $C2 k26 v26; ncu_sort P3$r $C3 k26 v26 ${r/b/}
done
ncu_sort Q0 $C0 q26; ncu_sort Q1 $C1 q26; ncu_sort Q2 $C2 q26; ncu_sort Q3 $C3 q26 "" x
ncu_sort E0 $C0 e24; ncu_sort E1 $C1 e24; ncu_sort E2 $C2 e24; ncu_sort E3 $C3 e24 "" x
ncu_sort F0 $C0 f28; ncu_sort F3 $C3 f28
} 2>&1 | tee $R/sorts.txt; t sorts; pack
# instruction and issue metrics of one keys pass (the second launch of the pass kernel)
for c in 0 3; do eval defs=\$C$c
  HISTOSORT_KERNEL_DEFINES=$defs timeout 120 ncu --clock-control none -k regex:onesweep_pass -s 1 -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section Occupancy $B sort /tmp/d/k28.npy -o /tmp/d/o.npy --backend cuda -q > $R/ncu-detail-K$c.txt 2>&1
done; t detail; pack
# small sorts: every kernel of one sort
for e in 14 16; do $B gen /tmp/d/s$e.npy --dtype u32 --n 2^$e --seed 5 -q
  timeout 60 ncu --clock-control none --section SpeedOfLight $B sort /tmp/d/s$e.npy -o /tmp/d/o.npy --backend cuda -q > $R/ncu-small-$e.txt 2>&1
  grep -E "^\s+[a-z_]+.*\(|Duration" $R/ncu-small-$e.txt | tail -12
done; t small; pack
rm -f /tmp/d/k28.npy /tmp/d/f28.npy
for s in pairs sort; do
  HISTOSORT_KERNEL_DEFINES=$C3 timeout 220 .device/tests/$s --test-threads=6 > $R/test-$s-C3.txt 2>&1; t $s C3 rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s-C3.txt | head -5
done; pack; t done
