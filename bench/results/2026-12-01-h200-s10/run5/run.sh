#!/bin/bash
# Session 10 run 5: look-back pacing of the pipelined scan (ncu and peers with CUB).
cd "$(dirname "$0")/.."
B=$PWD/.device/histosort
exec > >(tee -a $OUT/log.txt) 2>&1
mkdir -p /tmp/d
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(12)
np.save('/tmp/d/u28.npy', rng.integers(0, 1 << 16, 1 << 28, dtype=np.uint32))
np.save('/tmp/d/q27.npy', rng.integers(0, 1 << 62, 1 << 27, dtype=np.uint64))
PY
NCU="ncu --clock-control none --section SpeedOfLight"
dur() { grep -E "^\s+Duration" | tr -s ' ' | tr '\n' ';'; echo; }
for p in 1200,650 2400,650 2400,1000 600,650 1200,300 1200,1200 3600,1000 1200,650; do
  D="LB_DELAY_FIRST=${p%,*},LB_DELAY_RETRY=${p#*,}"
  echo -n "$D u32: "; HISTOSORT_KERNEL_DEFINES=$D timeout 60 $NCU -k regex:scan_pipelined $B scan /tmp/d/u28.npy -o /tmp/d/o.npy --exclusive --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
  echo -n "$D u64: "; HISTOSORT_KERNEL_DEFINES=$D timeout 60 $NCU -k regex:scan_pipelined $B scan /tmp/d/q27.npy -o /tmp/d/o.npy --exclusive --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
done
for p in 1200,650 2400,1000 1200,1000; do
  D="LB_DELAY_FIRST=${p%,*},LB_DELAY_RETRY=${p#*,}"
  echo "-- peers $D"; HISTOSORT_KERNEL_DEFINES=$D timeout 90 $B bench peers --sizes 16777216,268435456 --cases sum 2>&1 | grep -E "sum "
done
