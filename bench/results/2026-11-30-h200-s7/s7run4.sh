#!/usr/bin/env bash
# session 7, run 4: new defaults (early counts, 256x28x3 keys / 384x26x2 pairs tiles, single launch without memset, counts read once, pipelined digit histogram): suites, histogram A/B, bench peers in full
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s7r4; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s7r4.tgz -C /tmp s7r4; }
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
for s in pairs sort cuda_runtime; do
  timeout 200 .device/tests/$s --test-threads=8 > $R/test-$s.txt 2>&1; t $s rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s.txt | head -5
done; pack
$B gen /tmp/d/k28.npy --dtype u32 --n 2^28 --seed 9 -q; $B gen /tmp/d/k26.npy --dtype u32 --n 2^26 --seed 7 -q
for r in a b; do for lp in 0 1; do for k in k28 k26; do
  HISTOSORT_KERNEL_DEFINES=LANES_PIPELINE=$lp timeout 60 ncu --clock-control none -k regex:onesweep_histogram --section SpeedOfLight $B sort /tmp/d/$k.npy -o /tmp/d/o.npy --backend cuda -q > $R/ncu-hist-$k-lp$lp$r.txt 2>&1
  echo "hist $k LANES_PIPELINE=$lp $(dur $R/ncu-hist-$k-lp$lp$r.txt) us"
done; done; done 2>&1 | tee $R/hist.txt; t hist
python3 -c "
import numpy as np
k=np.load('/tmp/d/k26.npy'); o=np.load('/tmp/d/o.npy'); print('check k26', 'OK' if np.array_equal(o,np.sort(k)) else 'MISMATCH')"
rm -f /tmp/d/*.npy; pack
timeout 330 $B bench peers --json $R/peers.json -q > $R/peers.txt 2>&1; t peers rc=$?
grep -E "^sort|^scan|^exclusive|^inclusive" $R/peers.txt | head -40
pack; t done
