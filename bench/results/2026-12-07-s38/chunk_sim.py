"""Session 38: the largest chunk of buckets that the hybrid test's tie inputs
(tests/cuda_runtime.rs, hybrid_tie_runs, n = 2^22 + 3) give, in chunks of 32 buckets (the
256x10x4x13 block and the u64/u32 pairs' 512x10x2 block) and of 64 (u64 keys' 512x16x2), by
the same construction with Python's random bits in place of the test's SplitMix64. A chunk
larger than the block sends the sort to the LSD path and fails the test's path count.
`python3 chunk_sim.py` (~20 s); "even" is a variant of `repeated` that was not needed."""
import random
random.seed(5)
n=(1<<22)+3
r=[random.getrandbits(64) for _ in range(n)]
M=(1<<64)-1
def chunks_max(buckets_count, log):
    c=1<<log
    return max(sum(buckets_count[i:i+c]) for i in range(0,65536,c))
def hist(keys):
    h=[0]*65536
    for k in keys: h[k>>48]+=1
    return h
def tied(m, low5):
    out=[]
    for i,x in enumerate(r):
        top = (x & ~(0x1f<<48)) & (0xffff<<48) if low5 else x & (0xffff<<48)
        pat = ((i*7 % m) * 0x5a5a5a5a5a5a) & (0xffffff<<24) & M
        out.append(top | pat | (x & 0xffffff))
    return out
def repeated(d, twin, even):
    out=[]
    for i,x in enumerate(r):
        j = x % d + 1
        base = ((j*0x9e3779b97f4a7c15) & M) ^ (((j*0xd6e8feb86659fd93) & M) >> 32)
        if even:
            base = (base & ((1<<48)-1)) | (((j*65536)//(d+1)) << 48)
        out.append((base & ~1) | (i&1) if twin else base)
    return out
d=n
cases=[("tied2 low5",tied(2,True)),("tied3 low5",tied(3,True)),("tied2",tied(2,False)),
       ("rep d/64",repeated(d//64,False,False)),("rep d/64 twin",repeated(d//64,True,False)),("rep d/16 twin",repeated(d//16,True,False)),
       ("rep d/64 even",repeated(d//64,False,True)),("rep d/64 twin even",repeated(d//64,True,True)),("rep d/16 twin even",repeated(d//16,True,True))]
for name,k in cases:
    h=hist(k)
    print(f"{name:22s} chunk32 max {chunks_max(h,5):6d} (small cap 2560, pairs default cap 5120)   chunk64 max {chunks_max(h,6):6d} (keys default cap 8192)", flush=True)
