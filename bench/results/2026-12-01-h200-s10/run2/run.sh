#!/bin/bash
# Session 10 run 2: pipelined scan racecheck details, numpy checks, shapes, CUB comparisons.
cd "$(dirname "$0")/.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
echo "== racecheck of the pipelined scan test (details in racecheck.txt)"
HISTOSORT_SANITIZE_SMALL=1 timeout 150 compute-sanitizer --tool racecheck --print-limit 400 $T/cuda_runtime --test-threads 1 pipelined_scan > $OUT/racecheck.txt 2>&1
grep -E "Race reported|Error:|Warning:" $OUT/racecheck.txt | sed -E 's/0x[0-9a-f]+//g' | sort | uniq -c | sort -rn | head -20
grep -A3 "Race reported" $OUT/racecheck.txt | grep -E "at .*:[0-9]+" | sed -E 's/.*(k\.cu|scan_lookback[^:]*):([0-9]+).*/\2/' | sort | uniq -c | sort -rn | head -20
tail -3 $OUT/racecheck.txt
mkdir -p /tmp/d
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(11)
np.save('/tmp/d/u28.npy', rng.integers(0, 1 << 16, 1 << 28, dtype=np.uint32))
np.save('/tmp/d/q27.npy', rng.integers(0, 1 << 62, 1 << 27, dtype=np.uint64))
np.save('/tmp/d/odd.npy', rng.integers(0, 1 << 32, (1 << 26) + 12345, dtype=np.uint32))
PY
echo "== numpy checks of the pipelined scan"
$B scan /tmp/d/u28.npy -o /tmp/d/o1.npy --exclusive --algorithm pipelined --backend cuda -q
$B scan /tmp/d/q27.npy -o /tmp/d/o2.npy --inclusive --algorithm pipelined --backend cuda -q
$B scan /tmp/d/odd.npy -o /tmp/d/o3.npy --inclusive --algorithm pipelined --backend cuda -q
python3 - <<'PY'
import numpy as np
a = np.load('/tmp/d/u28.npy'); o = np.load('/tmp/d/o1.npy')
c = np.cumsum(a, dtype=np.uint32); ex = np.empty_like(c); ex[0] = 0; ex[1:] = c[:-1]
print('u32 2^28 exclusive', o.dtype, o.shape, np.array_equal(o, ex))
a = np.load('/tmp/d/q27.npy'); o = np.load('/tmp/d/o2.npy')
print('u64 2^27 inclusive', np.array_equal(o, np.cumsum(a, dtype=np.uint64)))
a = np.load('/tmp/d/odd.npy'); o = np.load('/tmp/d/o3.npy')
print('u32 2^26+12345 inclusive', np.array_equal(o, np.cumsum(a, dtype=np.uint32)))
PY
NCU="ncu --clock-control none --section SpeedOfLight"
dur() { grep -E "^\s+Duration|DRAM Throughput" | tr -s ' ' | tr '\n' ';'; echo; }
echo "== pipelined shapes (ncu, u32 2^28 / u64 2^27)"
for s in consumers=256,vecs=8,stages=3 consumers=256,vecs=7,stages=4 consumers=224,vecs=8,stages=4 consumers=384,vecs=6,stages=3 consumers=384,vecs=4,stages=4 consumers=256,vecs=8,stages=3; do
  echo -n "$s u32: "; HISTOSORT_SCAN_PIPE=$s timeout 60 $NCU -k regex:scan_pipelined $B scan /tmp/d/u28.npy -o /tmp/d/o.npy --exclusive --algorithm pipelined --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
  echo -n "$s u64: "; HISTOSORT_SCAN_PIPE=$s timeout 60 $NCU -k regex:scan_pipelined $B scan /tmp/d/q27.npy -o /tmp/d/o.npy --exclusive --algorithm pipelined --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
done
echo "== bench scan (every variant, warm)"
timeout 200 $B bench scan --sizes 1048576,16777216,67108864,268435456 --json $OUT/scan.json 2>&1 | grep -v "^\s*$" | tail -32
echo "== peers: scans (pipelined as auto), bins, copy; CUB in the same run"
HISTOSORT_SCAN_PIPE=auto=1 timeout 250 $B bench peers --sizes 268435456 --cases "sum,copy,f32 even,i32 even,u32 even,range" --json $OUT/peers.json 2>&1 | grep -v "^\s*$" | tail -30
echo "== bins with BINS_PIPELINE=0 (no CUB)"
HISTOSORT_KERNEL_DEFINES=BINS_PIPELINE=0 timeout 150 $B bench peers --no-cub --sizes 268435456 --cases "f32 even,i32 even,u32 even,range" --json $OUT/peers_p0.json 2>&1 | grep -v "^\s*$" | tail -20
rm -f $OUT/*.svg
