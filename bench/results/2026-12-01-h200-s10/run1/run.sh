#!/bin/bash
# Session 10 run 1: f32 even-bin pipelining (A/B), classic scan tile shapes, the new pipelined
# scan (tests, shapes), suites.
cd "$(dirname "$0")/.."
B=$PWD/.device/histosort
T=$PWD/.device/tests
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
echo "== pipelined scan test first (timeout)"
timeout 120 $T/cuda_runtime --test-threads 1 pipelined_scan 2>&1 | tail -15
echo "rc=$?"
mkdir -p /tmp/d
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(10)
for e in (24, 26, 28):
    np.save(f'/tmp/d/f{e}.npy', rng.uniform(-1, 1, 1 << e).astype(np.float32))
np.save('/tmp/d/u28.npy', rng.integers(0, 1 << 16, 1 << 28, dtype=np.uint32))
np.save('/tmp/d/q27.npy', rng.integers(0, 1 << 62, 1 << 27, dtype=np.uint64))
PY
NCU="ncu --clock-control none --section SpeedOfLight"
dur() { grep -E "^\s+Duration|DRAM Throughput" | tr -s ' ' | tr '\n' ';'; echo; }
echo "== pipelined scan shapes (ncu, u32 2^28 / u64 2^27)"
for s in consumers=256,vecs=8,stages=3 consumers=256,vecs=6,stages=4 consumers=256,vecs=4,stages=6 consumers=128,vecs=8,stages=4,blocks=3 consumers=512,vecs=4,stages=3 consumers=256,vecs=8,stages=6,blocks=1; do
  echo -n "$s u32: "; HISTOSORT_SCAN_PIPE=$s timeout 60 $NCU -k regex:scan_pipelined $B scan /tmp/d/u28.npy -o /tmp/d/o.npy --exclusive --algorithm pipelined --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
  echo -n "$s u64: "; HISTOSORT_SCAN_PIPE=$s timeout 60 $NCU -k regex:scan_pipelined $B scan /tmp/d/q27.npy -o /tmp/d/o.npy --exclusive --algorithm pipelined --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
done
echo -n "default, LB_DELAY_FIRST=0 u32: "; HISTOSORT_KERNEL_DEFINES=LB_DELAY_FIRST=0 timeout 60 $NCU -k regex:scan_pipelined $B scan /tmp/d/u28.npy -o /tmp/d/o.npy --exclusive --algorithm pipelined --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
python3 -c "
import numpy as np
a=np.load('/tmp/d/q27.npy'); o=np.load('/tmp/d/o.npy'); c=np.cumsum(a,dtype=np.uint64); ex=np.concatenate([[0],c[:-1]]).astype(np.uint64)
print('numpy u64 exclusive pipelined:', np.array_equal(o,ex))"
echo "== classic scan shapes"
for s in threads=192,vecs=8 threads=192,vecs=12 threads=192,vecs=15 threads=128,vecs=16; do
  echo -n "$s u32: "; HISTOSORT_SCAN_SHAPE=$s $NCU -k regex:scan_lookback $B scan /tmp/d/u28.npy -o /tmp/d/o.npy --exclusive --algorithm decoupled-lookback --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
  echo -n "$s u64: "; HISTOSORT_SCAN_SHAPE=$s $NCU -k regex:scan_lookback $B scan /tmp/d/q27.npy -o /tmp/d/o.npy --exclusive --algorithm decoupled-lookback --backend cuda -q > /tmp/s.txt 2>&1; dur < /tmp/s.txt
done
echo "== hist_even f32, BINS_PIPELINE 0/1"
for e in 24 26 28; do for p in 0 1 0 1; do
  echo -n "f$e p$p bins100: "
  HISTOSORT_KERNEL_DEFINES=BINS_PIPELINE=$p $NCU -k regex:hist_even $B hist /tmp/d/f$e.npy --bins 100 --range=-1:1 --backend cuda -q --json > /tmp/h.txt 2>&1; dur < /tmp/h.txt
done; done
for p in 0 1; do echo -n "f26 p$p bins4096: "; HISTOSORT_KERNEL_DEFINES=BINS_PIPELINE=$p $NCU -k regex:hist_even $B hist /tmp/d/f26.npy --bins 4096 --range=-1:1 --backend cuda -q --json > /tmp/h.txt 2>&1; dur < /tmp/h.txt; done
echo "== suites"
timeout 200 $T/cuda_runtime --test-threads 1 2>&1 | tail -4
HISTOSORT_SCAN_SHAPE=threads=128,vecs=16 timeout 60 $T/cuda_runtime --test-threads 1 lookback_scan 2>&1 | tail -2
HISTOSORT_SANITIZE_SMALL=1 timeout 120 compute-sanitizer --tool memcheck $T/cuda_runtime --test-threads 1 bins_histograms 2>&1 | tail -3
HISTOSORT_SANITIZE_SMALL=1 timeout 120 compute-sanitizer --tool memcheck $T/cuda_runtime --test-threads 1 pipelined_scan 2>&1 | tail -3
HISTOSORT_SANITIZE_SMALL=1 timeout 120 compute-sanitizer --tool racecheck $T/cuda_runtime --test-threads 1 pipelined_scan 2>&1 | tail -3
echo "== peers: scans (pipelined as auto), f32 even bins, copy; CUB in the same run"
HISTOSORT_SCAN_PIPE=auto=1 timeout 200 $B bench peers --sizes 268435456 --cases "-sum,copy,f32 even" --json $OUT/peers.json 2>&1 | grep -v "^\s*$" | tail -25
rm -f $OUT/*.svg
