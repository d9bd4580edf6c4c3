#!/usr/bin/env bash
# session 7, run 3: single launch with the counts read once; tile shapes with early counts (wider)
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s7r3; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s7r3.tgz -C /tmp s7r3; }
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
for r in 1 2; do
$B bench peers --sizes 2^14,2^15,2^16,2^18,2^20 --no-cub -q > $R/peers-small-$r.txt 2>&1; t small rc=$?
grep -E "sort-" $R/peers-small-$r.txt | head -15
done; pack
$B gen /tmp/d/k28.npy --dtype u32 --n 2^28 --seed 9 -q
$B gen /tmp/d/k26.npy --dtype u32 --n 2^26 --seed 7 -q; $B gen /tmp/d/v26.npy --dtype u32 --n 2^26 --seed 8 -q
$B gen /tmp/d/q26.npy --dtype u64 --n 2^26 --seed 10 -q
ncu_sort() { # tag shape keys [values] [check]
  local tag=$1 shape=$2 k=$3 v=${4:-} extra=""
  [ -n "$v" ] && extra="--values /tmp/d/$v.npy --values-out /tmp/d/ov.npy"
  env ${shape:+HISTOSORT_ONESWEEP_SHAPE=$shape} timeout 90 ncu --clock-control none -k regex:onesweep_pass --section SpeedOfLight $B sort /tmp/d/$k.npy -o /tmp/d/o.npy $extra --backend cuda -q > $R/ncu-$tag.txt 2>&1
  echo "$tag $k${v:+/$v} shape=${shape:-default} passes $(dur $R/ncu-$tag.txt) us"
  if [ -n "${5:-}" ]; then python3 -c "
import numpy as np
k=np.load('/tmp/d/$k.npy'); o=np.load('/tmp/d/o.npy'); order=np.argsort(k,kind='stable'); ok=np.array_equal(o,k[order])
if '$v': ok = ok and np.array_equal(np.load('/tmp/d/ov.npy'), np.load('/tmp/d/$v.npy')[order])
print('check', 'OK' if ok else 'MISMATCH')"; fi
}
{
ncu_sort K0 "" k28; ncu_sort K1 384x26x2 k28; ncu_sort K2 384x28x2 k28; ncu_sort K3 384x30x2 k28; ncu_sort K4 448x24x2 k28; ncu_sort K5 256x28x3 k28; ncu_sort K1b 384x26x2 k28; ncu_sort K2b 384x28x2 k28
ncu_sort P0 "" k26 v26; ncu_sort P1 384x23x2 k26 v26; ncu_sort P2 384x26x2 k26 v26 x; ncu_sort P3 384x24x2 k26 v26; ncu_sort P4 256x23x3 k26 v26; ncu_sort P1b 384x23x2 k26 v26; ncu_sort P2b 384x26x2 k26 v26
ncu_sort Q0 "" q26; ncu_sort Q1 384x15x2 q26; ncu_sort Q2 384x13x2 q26; ncu_sort Q3 384x17x2 q26 x; ncu_sort Q1b 384x15x2 q26
} 2>&1 | tee $R/sorts.txt; t sorts; pack; t done
