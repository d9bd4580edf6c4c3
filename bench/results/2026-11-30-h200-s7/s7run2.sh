#!/usr/bin/env bash
# session 7, run 2: new defaults (early counts; single-launch sort without the memset): small-size peers, fused look-back width, shape sweep with early counts, suites
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s7r2; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s7r2.tgz -C /tmp s7r2; }
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
SM="2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20"
$B bench peers --sizes $SM --json $R/peers-small.json -q > $R/peers-small.txt 2>&1; t peers-small rc=$?
grep -E "sort u32 keys" $R/peers-small.txt | head -12
for lb in 16 4; do
HISTOSORT_KERNEL_DEFINES=LOOKBACK=$lb $B bench peers --sizes 2^14,2^16,2^18,2^20 --no-cub -q > $R/peers-small-lb$lb.txt 2>&1; t lb$lb rc=$?
grep -E "sort u32 keys" $R/peers-small-lb$lb.txt | head -6
done
pack
$B gen /tmp/d/k28.npy --dtype u32 --n 2^28 --seed 9 -q
$B gen /tmp/d/k26.npy --dtype u32 --n 2^26 --seed 7 -q; $B gen /tmp/d/v26.npy --dtype u32 --n 2^26 --seed 8 -q
$B gen /tmp/d/q26.npy --dtype u64 --n 2^26 --seed 10 -q
ncu_sort() { # tag shape keys [values]
  local tag=$1 shape=$2 k=$3 v=${4:-} extra=""
  [ -n "$v" ] && extra="--values /tmp/d/$v.npy --values-out /tmp/d/ov.npy"
  env ${shape:+HISTOSORT_ONESWEEP_SHAPE=$shape} timeout 90 ncu --clock-control none -k regex:onesweep_pass --section SpeedOfLight $B sort /tmp/d/$k.npy -o /tmp/d/o.npy $extra --backend cuda -q > $R/ncu-$tag.txt 2>&1
  echo "$tag $k${v:+/$v} shape=${shape:-default} passes $(dur $R/ncu-$tag.txt) us"
}
{
ncu_sort K0 "" k28; ncu_sort K1 384x20x2 k28; ncu_sort K2 256x23x3 k28; ncu_sort K3 384x16x3 k28; ncu_sort K4 512x16x2 k28; ncu_sort K5 256x19x4 k28; ncu_sort K6 384x26x2 k28; ncu_sort K0b "" k28
ncu_sort P0 "" k26 v26; ncu_sort P1 384x23x2 k26 v26; ncu_sort P2 256x20x3 k26 v26; ncu_sort P3 384x16x3 k26 v26; ncu_sort P4 384x17x2 k26 v26; ncu_sort P0b "" k26 v26
ncu_sort Q0 "" q26; ncu_sort Q1 384x15x2 q26; ncu_sort Q2 384x11x2 q26; ncu_sort Q3 256x11x4 q26; ncu_sort Q4 256x19x2 q26
} 2>&1 | tee $R/sorts.txt; t sorts; pack
# every kernel of a pairs 2^26 and a keys 2^28 sort; nsys timeline if there is nsys
timeout 90 ncu --clock-control none --section SpeedOfLight $B sort /tmp/d/k26.npy -o /tmp/d/o.npy --values /tmp/d/v26.npy --values-out /tmp/d/ov.npy --backend cuda -q > $R/ncu-all-P.txt 2>&1
grep -E "^  [a-z_]+|Duration" $R/ncu-all-P.txt | paste - - | awk '{print $1, $(NF)}' | head -20
which nsys && timeout 120 nsys profile -o $R/nsys-P --force-overwrite true $B sort /tmp/d/k26.npy -o /tmp/d/o.npy --values /tmp/d/v26.npy --values-out /tmp/d/ov.npy --backend cuda -q > $R/nsys-run.txt 2>&1 && timeout 60 nsys stats --report cuda_gpu_trace $R/nsys-P.nsys-rep > $R/nsys-P-trace.txt 2>&1; t nsys; ls $R | head -50
rm -f /tmp/d/*.npy
for s in cuda_runtime pairs sort; do
  timeout 220 .device/tests/$s --test-threads=6 > $R/test-$s.txt 2>&1; t $s rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s.txt | head -5
done; pack; t done
