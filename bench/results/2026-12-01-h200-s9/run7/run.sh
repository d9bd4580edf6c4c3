#!/usr/bin/env bash
# session 9, run 7: look-back scan pacing 1200/650 (default) against 2400/1000 at 2^20-2^27, u32 and u64 (192x8 tiles)
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
B=$PWD/.device/histosort; R=/tmp/s9r7; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s9r7.tgz -C /tmp s9r7; }
sc() { # label file env...
  local l=$1 f=$2; shift 2
  env "$@" timeout 60 ncu --clock-control none -k regex:scan --section SpeedOfLight $B scan /tmp/d/$f.npy -o /tmp/d/so.npy --exclusive --backend cuda -q > $R/ncu-$l.txt 2>&1
  echo "$l: $(grep -E '^\s+[a-z_]*scan|Duration' $R/ncu-$l.txt | awk '/scan/{n=$1} /Duration/{printf "%s %s %s; ", n, $3, $2}')"
}
{
for dt in u32 u64; do for e in 20 22 24 26 27; do
  $B gen /tmp/d/$dt-$e.npy --dtype $dt --n 2^$e --seed $e -q
  sc $dt-$e-p1200 $dt-$e
  sc $dt-$e-p2400 $dt-$e HISTOSORT_KERNEL_DEFINES=LB_DELAY_FIRST=2400,LB_DELAY_RETRY=1000
  sc $dt-$e-p1200b $dt-$e
  sc $dt-$e-p2400b $dt-$e HISTOSORT_KERNEL_DEFINES=LB_DELAY_FIRST=2400,LB_DELAY_RETRY=1000
  rm -f /tmp/d/$dt-$e.npy
done; done
} 2>&1 | tee $R/pacing.txt; pack; t done
