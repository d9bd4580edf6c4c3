#!/usr/bin/env bash
# session 8, run 4: final defaults (cluster sort 512 threads, auto launch mode): cluster test, suites, sanitizers, numpy pairs check, bench peers 2^12-2^17 with CUB
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH HISTOSORT_REQUIRE_GPU=1
B=$PWD/.device/histosort; R=/tmp/s8r4; mkdir -p $R /tmp/d
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
pack() { tar czf $OUT/s8r4.tgz -C /tmp s8r4; }
timeout 100 .device/tests/cuda_runtime cluster_sort --test-threads=1 > $R/test-cluster.txt 2>&1; t cluster test rc=$?; grep -E "test result|FAILED|panicked" $R/test-cluster.txt | head -4
for s in cuda_runtime pairs sort; do
  timeout 200 .device/tests/$s --test-threads=8 > $R/test-$s.txt 2>&1; t $s rc=$?; grep -E "test result|FAILED|panicked" $R/test-$s.txt | head -5
done; pack
python3 -c "
import numpy as np
r=np.random.default_rng(4); k=(r.integers(0,2**64,size=50000,dtype=np.uint64)%1000).astype(np.uint64); v=np.arange(50000,dtype=np.uint32)
np.save('/tmp/d/pk.npy',k); np.save('/tmp/d/pv.npy',v)"
$B sort /tmp/d/pk.npy -o /tmp/d/pko.npy --values /tmp/d/pv.npy --values-out /tmp/d/pvo.npy --backend cuda --descending -q; t cli rc=$?
python3 -c "
import numpy as np
k=np.load('/tmp/d/pk.npy'); v=np.load('/tmp/d/pv.npy'); ko=np.load('/tmp/d/pko.npy'); vo=np.load('/tmp/d/pvo.npy')
o=np.argsort(-k.astype(np.float64), kind='stable'); print('pairs u64/u32 50000 desc', 'OK' if np.array_equal(ko,k[o]) and np.array_equal(vo,v[o]) else 'MISMATCH')"
$B gen /tmp/d/s.npy --dtype f32 --n 30001 --seed 3 -q
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool $B sort /tmp/d/s.npy -o /tmp/d/so.npy --backend cuda --descending -q > $R/san-$tool.txt 2>&1; t $tool rc=$?; tail -1 $R/san-$tool.txt
  timeout 60 compute-sanitizer --tool $tool $B sort /tmp/d/pk.npy -o /tmp/d/pko.npy --values /tmp/d/pv.npy --values-out /tmp/d/pvo.npy --backend cuda -q > $R/san-pairs-$tool.txt 2>&1; t pairs $tool rc=$?; tail -1 $R/san-pairs-$tool.txt
done; pack
timeout 200 $B bench peers --sizes 2^12,2^13,2^14,2^15,2^16,2^17 --json $R/peers.json -q > $R/peers.txt 2>&1; t peers rc=$?
grep -E "^sort" $R/peers.txt | head -30; pack; t done
