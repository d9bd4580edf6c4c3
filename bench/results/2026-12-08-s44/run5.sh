#!/bin/bash
# Session 44, run 5 (<= 200 s, the session's last device time): compute-sanitizer memcheck and
# racecheck on the default paths changed since the sanitizers last ran (sessions 25-34): the
# u64 keys' hybrid (balanced warps, the 256x10x4x13 in-bucket block, its L2 prefetch), the
# u64/u32 pairs' hybrid (an argsort), the single-launch sort's kernel from the pass module
# (session 42) and the packed u32/u32 pairs; every output then checked against numpy's stable
# sort at every element (outside the sanitizer). Carry .device.
. "$(dirname "$0")/../device-lib.sh"
W=/tmp/san; mkdir -p $W
python3 -c "
import numpy as np
r=np.random.default_rng(44)
np.save('$W/u64.npy', r.integers(0,2**64,3*2**20+5,dtype=np.uint64))
np.save('$W/u64a.npy', r.integers(0,2**64,2**20+5,dtype=np.uint64))
k=r.integers(0,2**32,2**19+7,dtype=np.uint64).astype(np.uint32); k[::5]&=0xffff00ff
np.save('$W/u32.npy', k)
np.save('$W/p32.npy', r.integers(0,2**32,2**21+3,dtype=np.uint64).astype(np.uint32))
np.save('$W/v32.npy', r.integers(0,2**32,2**21+3,dtype=np.uint64).astype(np.uint32))
"
S="$D/histosort sort --backend cuda -q"
cases=("$W/u64.npy -o $W/o-u64.npy"
       "$W/u64a.npy -o $W/o-u64a.npy --argsort"
       "$W/u32.npy -o $W/o-u32.npy --descending"
       "$W/p32.npy -o $W/o-p32.npy --values $W/v32.npy --values-out $W/o-v32.npy")
for c in "${cases[@]}"; do
    for tool in memcheck racecheck; do
        echo "== $tool: ${c%% -o*} ($SECONDS s)"
        [ "$SECONDS" -gt "${SAN_STOP:-140}" ] && { echo "skipped (time)"; continue; }
        timeout 60 compute-sanitizer --tool $tool $S $c 2>&1 | grep -E "SUMMARY|rror" | head -3
    done
done
echo "== outputs against numpy ($SECONDS s)"
for c in "${cases[@]}"; do $S $c || echo "FAILED: $c"; done
python3 -c "
import numpy as np
W='$W'
k=np.load(W+'/u64.npy'); print('u64 keys', np.array_equal(np.load(W+'/o-u64.npy'), np.sort(k)))
k=np.load(W+'/u64a.npy'); print('u64 argsort', np.array_equal(np.load(W+'/o-u64a.npy'), np.argsort(k,kind='stable')))
k=np.load(W+'/u32.npy'); print('u32 desc', np.array_equal(np.load(W+'/o-u32.npy'), np.sort(k)[::-1]))
k=np.load(W+'/p32.npy'); v=np.load(W+'/v32.npy'); p=np.argsort(k,kind='stable')
print('u32/u32 pairs', np.array_equal(np.load(W+'/o-p32.npy'), k[p]) and np.array_equal(np.load(W+'/o-v32.npy'), v[p]))
"
echo "done ($SECONDS s)"
