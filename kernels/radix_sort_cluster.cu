// The LSD radix sort of small inputs in thread-block clusters (sm_90 and later): the keys stay
// in a cluster's distributed shared memory (DSMEM) for every pass, so a pass costs two cluster
// barriers and on-chip traffic instead of a look-back over global status words and a grid
// barrier (the single-launch onesweep kernel, which this replaces up to CLUSTER_SORT_MAX keys).
// Each cluster of the grid sorts its own segment of the input (cluster c: keys [c * S, (c + 1)
// * S), S = the cluster's blocks * CHUNK); with more than one cluster, `cluster_merge` (at the
// end of this file) then merges the sorted segments.
//
// Block r of a cluster (its rank, 0 to the cluster's blocks - 1) owns positions
// [r * CHUNK, (r + 1) * CHUNK) of the sequence, CHUNK = THREADS * ITEMS; positions past n are
// padding with the all-ones image, which ranks after every real key, so the padding stays at
// the end and never reaches the output. Each block keeps its chunk in shared memory, in two
// buffers (the pass reads one, the others scatter into the other). Per 8-bit digit pass:
//   1. each warp reads its segment of the chunk (striped by lane) and counts its digits into
//      its row of counters (one shared atomic per key); the block's per-digit totals go to
//      `cnt` (two copies, by pass parity, so that a fast block's next counts never overwrite
//      counts a slow block is still reading);
//   2. cluster barrier A (release / acquire): every block's counts are visible;
//   3. each block reads every block's counts (one 16-byte DSMEM load per thread) into its
//      table. For digit d: the cluster's total, the count in lower-ranked blocks, hence the
//      global position of this block's first key of digit d. A pass whose digit is the same
//      for every real key is skipped here, by every block alike (they read the same table);
//   4. the warps rank their keys against counters seeded with each warp's first position
//      (the onesweep kernel's `warp_rank`) and stage the chunk sorted by digit in the buffer
//      they read from;
//   5. consecutive threads take consecutive staged slots, so a digit's run leaves in order: to
//      the owner block's other buffer (a DSMEM store), or, in the last pass, to the output in
//      global memory with the key transform undone;
//   6. cluster barrier B: the scattered chunk is complete (not after the last pass).
// No block may leave while another can still read its shared memory, so the last pass
// arrives on a final (relaxed) barrier once its counts are read and waits on it at the end.
//
// The first pass's keys come from global memory with the key transform (radix image,
// descending complement) and the values (or, for an argsort, the indices) with them. In place
// is safe: every input is read before barrier A of the first pass, every output written after
// that of the last.

#ifndef ITEMS
#error "ITEMS (keys per thread) must be defined"
#endif
#ifndef RADIX_BITS
#error "RADIX_BITS must be defined"
#endif
#ifndef RANK_BALLOT
#error "RANK_BALLOT must be defined"
#endif
#ifndef CLUSTER_MAX
#error "CLUSTER_MAX (the most blocks of a cluster) must be defined"
#endif
#ifndef CLUSTER_SMEM_BYTES
#error "CLUSTER_SMEM_BYTES (the kernel's dynamic shared memory, from the host) must be defined"
#endif
#define RADIX (1 << RADIX_BITS)
#define CHUNK (THREADS * ITEMS)
#define WARP_ITEMS (WARP_THREADS * ITEMS)
static_assert(RADIX_BITS == 8, "the counts exchange moves 256 counters per block");
static_assert(THREADS >= RADIX, "one thread per digit for the digit scans");
static_assert(KEY_BITS <= 64, "keys of up to 64 bits");
static_assert(CLUSTER_MAX <= 16, "a cluster has at most 16 blocks");

struct ClusterStorage {
#if HAS_VALUES
    value_t vals[2][CHUNK];
#endif
    key_t keys[2][CHUNK];
    // Per warp and digit: first the warp's count, then the running position in the chunk.
    u32 warp_hist[NUM_WARPS][RADIX];
    // This block's digit counts, by pass parity (read by every block of the cluster).
    __align__(16) u32 cnt[2][RADIX];
    // Every block's counts of the current pass.
    __align__(16) u32 table[CLUSTER_MAX][RADIX];
    // Destination of chunk slot p with digit d: out_base[d] + p (wrapping u32 math).
    u32 out_base[RADIX];
    u64 ws[NUM_WARPS];
};

__device__ __forceinline__ u32 cluster_rank() {
    u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// Blocks in this block's cluster, and the cluster's index in the grid.
__device__ __forceinline__ u32 cluster_blocks() {
    u32 r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ u32 cluster_index() {
    u32 r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}

// Split cluster barrier: arrive (release: this block's shared and global writes become visible
// to the blocks that wait), then wait (acquire). `.aligned`: every thread of the warp executes
// it, as every thread of the block does here.
__device__ __forceinline__ void cluster_arrive() {
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_sync() {
    cluster_arrive();
    cluster_wait();
}

// The shared::cluster address of `p` (this block's shared memory) in block `rank`.
__device__ __forceinline__ u32 remote_addr(const void *p, u32 rank) {
    u32 a = (u32)__cvta_generic_to_shared(p), r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}

// A store of 1 to 16 bytes into another block's shared memory.
template <typename T>
__device__ __forceinline__ void remote_store(u32 addr, const T &v) {
    if (sizeof(T) == 1) {
        asm volatile("st.shared::cluster.u8 [%0], %1;" ::"r"(addr), "r"((u32) * (const u8 *)&v)
                     : "memory");
    } else if (sizeof(T) == 2) {
        asm volatile("st.shared::cluster.u16 [%0], %1;" ::"r"(addr),
                     "h"(*(const unsigned short *)&v)
                     : "memory");
    } else if (sizeof(T) == 4) {
        asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(*(const u32 *)&v)
                     : "memory");
    } else if (sizeof(T) == 8) {
        asm volatile("st.shared::cluster.u64 [%0], %1;" ::"r"(addr), "l"(*(const u64 *)&v)
                     : "memory");
    } else {
        const u64 *w = (const u64 *)&v;
        asm volatile("st.shared::cluster.v2.u64 [%0], {%1, %2};" ::"r"(addr), "l"(w[0]),
                     "l"(w[1])
                     : "memory");
    }
}

__device__ __forceinline__ uint4 remote_load4(u32 addr) {
    uint4 v;
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}

// The sort of n keys, bits [begin_bit, end_bit), 8 per pass, by clusters of B blocks: cluster c
// sorts keys [c * B * CHUNK, min((c + 1) * B * CHUNK, n)) into the same positions of the output
// (the grid holds ceil(n / (B * CHUNK)) clusters). With `raw`, the output holds the keys'
// radix images (what `cluster_merge` compares) instead of the keys.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
cluster_sort(const key_t *keys_in, key_t *keys_out, const value_t *vals_in, value_t *vals_out,
             u32 n, u32 begin_bit, u32 end_bit, u32 desc, u32 iota, u32 raw) {
    // (No __restrict__: in place, keys_in is keys_out. Every input is read before the first
    // cluster barrier and every output written after the last pass's.)
    extern __shared__ __align__(16) unsigned char s_cluster[];
    static_assert(sizeof(ClusterStorage) <= CLUSTER_SMEM_BYTES,
                  "the host's CLUSTER_SMEM_BYTES is too small");
    ClusterStorage &st = *reinterpret_cast<ClusterStorage *>(s_cluster);
    // A merge may follow, chained: it may launch now (it waits for this grid to complete).
    launch_dependents();
    const u32 tid = threadIdx.x, lane = lane_id(), warp = warp_id();
    const u32 blocks = cluster_blocks();
    const u32 me = cluster_rank();
    // This cluster's segment: from here on, positions and n are the segment's.
    const u32 seg = cluster_index() * blocks * CHUNK;
    keys_in += seg;
    keys_out += seg;
#if HAS_VALUES
    if (!iota) vals_in += seg;
    vals_out += seg;
#endif
    n = min(n - seg, blocks * CHUNK);
    const u32 base = me * CHUNK;
    const u32 pad = blocks * CHUNK - n;
    (void)vals_in;
    (void)vals_out;
    (void)iota;

    // The chunk, transformed; padding past n.
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const u32 i = j * THREADS + tid, g = base + i;
        st.keys[0][i] = g < n ? key_in(keys_in[g], desc) : KEY_ALL_ONES;
#if HAS_VALUES
        if (g < n) {
#if VALUE_BYTES == 4 || VALUE_BYTES == 8
            st.vals[0][i] = iota ? (value_t)(seg + g) : vals_in[g];
#else
            st.vals[0][i] = vals_in[g];
#endif
        }
#endif
    }
    __syncthreads();

    const u32 passes = (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS;
    u32 cur = 0;
    bool in_output = false;
    // (The host never launches an empty bit range; should it, the chunk is copied out and the
    // final wait still has its arrive.)
    if (passes == 0) cluster_arrive_relaxed();
    for (u32 p = 0; p < passes; p++) {
        const u32 shift = begin_bit + p * RADIX_BITS;
        const u32 mask = (1u << min((u32)RADIX_BITS, end_bit - shift)) - 1;
        const bool last = p + 1 == passes;

        // 1. This warp's keys and their digit counts.
        for (u32 i = lane; i < RADIX; i += WARP_THREADS) st.warp_hist[warp][i] = 0;
        key_t k[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) k[j] = st.keys[cur][warp * WARP_ITEMS + j * WARP_THREADS + lane];
#if HAS_VALUES
        value_t v[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) v[j] = st.vals[cur][warp * WARP_ITEMS + j * WARP_THREADS + lane];
#endif
        __syncwarp();
#pragma unroll
        for (int j = 0; j < ITEMS; j++) atomicAdd(&st.warp_hist[warp][digit_of(k[j], shift, mask)], 1u);
        __syncthreads();
        u32 count = 0;
        if (tid < RADIX) {
            count = digit_total<NUM_WARPS>(&st.warp_hist[0][0], RADIX, tid);
            st.cnt[p & 1][tid] = count;
        }
        // 2. Every block's counts visible.
        cluster_sync();
        // 3. Every block's counts into the table: one 16-byte load per (block, 4 digits).
        for (u32 t = tid; t < blocks * (RADIX / 4); t += THREADS) {
            const u32 b = t / (RADIX / 4), q = t % (RADIX / 4);
            const uint4 c4 = remote_load4(remote_addr(&st.cnt[p & 1][4 * q], b));
            *(uint4 *)&st.table[b][4 * q] = c4;
        }
        __syncthreads();
        // No more reads of other blocks' memory after the last pass's table: a block may leave
        // once every block has arrived here.
        if (last) cluster_arrive_relaxed();
        u32 total = 0, below = 0;
        if (tid < RADIX) {
            for (u32 b = 0; b < blocks; b++) {
                const u32 c = st.table[b][tid];
                total += c;
                below += b < me ? c : 0;
            }
        }
        // The padding (all ones) is counted under the largest digit.
        const u32 real = tid == mask ? total - pad : total;
        if (__syncthreads_or(tid <= mask && real == n)) continue;  // same digit for every key

        // Per digit: the global first position (an exclusive scan of the totals) and this
        // chunk's first slot (a scan of its counts), in one scan of (total, count) pairs.
        u64 tot_pair;
        const u64 pair = ((u64)total << 32) | count;
        const u64 starts = block_exclusive_scan(pair, st.ws, tot_pair);
        if (tid < RADIX) {
            const u32 local = (u32)starts;
            warp_starts<NUM_WARPS>(&st.warp_hist[0][0], RADIX, tid, local);
            st.out_base[tid] = (u32)(starts >> 32) + below - local;
        }
        __syncthreads();

        // 4. Rank, and stage the chunk sorted by digit in the buffer just read.
        u32 pos[ITEMS];
        warp_rank<RADIX_BITS>(k, pos, st.warp_hist[warp], shift, mask);
#pragma unroll
        for (int j = 0; j < ITEMS; j++) st.keys[cur][pos[j]] = k[j];
#if HAS_VALUES
#pragma unroll
        for (int j = 0; j < ITEMS; j++) st.vals[cur][pos[j]] = v[j];
#endif
        __syncthreads();

        // 5. Scatter in slot order.
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const u32 s = j * THREADS + tid;
            const key_t x = st.keys[cur][s];
            const u32 dst = st.out_base[digit_of(x, shift, mask)] + s;
            if (last) {
                if (dst < n) {
                    keys_out[dst] = raw ? x : key_out(x, desc);
#if HAS_VALUES
                    vals_out[dst] = st.vals[cur][s];
#endif
                }
            } else {
                const u32 owner = dst / CHUNK, slot = dst % CHUNK;
                remote_store(remote_addr(&st.keys[cur ^ 1][slot], owner), x);
#if HAS_VALUES
                remote_store(remote_addr(&st.vals[cur ^ 1][slot], owner), st.vals[cur][s]);
#endif
            }
        }
        if (last) {
            in_output = true;
        } else {
            // 6. Every block's next chunk complete.
            cluster_sync();
            cur ^= 1;
        }
    }
    if (!in_output) {
        // The last pass (or every pass) was skipped: the chunk is in its final order here.
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const u32 i = j * THREADS + tid, g = base + i;
            if (g < n) {
                keys_out[g] = raw ? st.keys[cur][i] : key_out(st.keys[cur][i], desc);
#if HAS_VALUES
                vals_out[g] = st.vals[cur][i];
#endif
            }
        }
    }
    cluster_wait();
}

// ---------------------------------------------------------------------------------------------
// Stable merge of the sorted segments the clusters leave (`raw`: radix images, compared on the
// sort's bits only, `bits`). `src` holds sorted runs of `run` keys (the last one may be
// shorter); runs 2r and 2r + 1 merge into the same positions of `dst`, a key of run 2r before
// an equal one of run 2r + 1, so the merge keeps the order the runs' sorts kept. With `finish`,
// `dst` gets the keys (the output transform undone), else radix images for the next merge.
// Block b writes positions [b * MERGE_TILE, (b + 1) * MERGE_TILE) (2 * run is a multiple of
// the tile, so a tile never straddles two pairs of runs): two warps find where the tile's
// first and last positions split between the two runs (the merge path), the block stages the
// tile's keys of both runs in shared memory, and each thread merges MERGE_ITEMS of them.
#ifndef MERGE_THREADS
#error "MERGE_THREADS (threads per merge block) must be defined"
#endif
#ifndef MERGE_ITEMS
#error "MERGE_ITEMS (keys per merge thread) must be defined"
#endif
static_assert(MERGE_THREADS * MERGE_ITEMS <= 65536, "a tile's slots fit 16 bits");
#define MERGE_TILE (MERGE_THREADS * MERGE_ITEMS)

// How many of the first `diag` keys of the merge of a[0, na) and b[0, nb) come from a: the
// first i with a[i] > b[diag - 1 - i] (compared under `m`; a key of a goes first on a tie).
// The predicate a[i] <= b[diag - 1 - i] holds for a prefix of i, so the warp narrows the range
// 32 ways per step: every lane tests one i, and the ballot's count of trues places the answer.
__device__ __forceinline__ u32 merge_split(const key_t *a, u32 na, const key_t *b, u32 nb,
                                           u32 diag, key_t m) {
    const u32 lane = lane_id();
    u32 lo = diag > nb ? diag - nb : 0, hi = min(diag, na);
    while (lo < hi) {
        const u32 len = hi - lo;
        const u32 i = len <= WARP_THREADS ? lo + lane : lo + (u32)((u64)lane * len / WARP_THREADS);
        bool t = false;
        if (lane < len) t = (a[i] & m) <= (b[diag - 1 - i] & m);
        const u32 c = __popc(__ballot_sync(FULL_MASK, t));
        const u32 below = __shfl_sync(FULL_MASK, i, c == 0 ? 0 : c - 1);
        const u32 above = __shfl_sync(FULL_MASK, i, c == WARP_THREADS ? 0 : c);
        if (len <= WARP_THREADS) return lo + c;
        if (c == 0) return lo;  // false at lo already
        // True at `below`, false at `above` (or past every lane's test).
        lo = below + 1;
        if (c < WARP_THREADS) hi = above;
    }
    return lo;
}

extern "C" __global__ void __launch_bounds__(MERGE_THREADS)
cluster_merge(const key_t *__restrict__ ks, key_t *__restrict__ kd,
              const value_t *__restrict__ vs, value_t *__restrict__ vd, u32 n, u32 run, u64 bits,
              u32 finish, u32 desc) {
    __shared__ key_t sk[MERGE_TILE];
    __shared__ key_t so[MERGE_TILE];
#if HAS_VALUES
    __shared__ u16 sfrom[MERGE_TILE];
#endif
    __shared__ u32 split[2];
    (void)vs;
    (void)vd;
    // Chained after the sort or the merge before: wait for its writes, let the next one launch.
    grid_dependency_wait();
    launch_dependents();
    const key_t m = (key_t)bits;
    const u32 tid = threadIdx.x, lane = lane_id(), warp = warp_id();
    const u32 o0 = blockIdx.x * MERGE_TILE;
    if (o0 >= n) return;
    const u32 pb = o0 / (2 * run) * (2 * run);
    const u32 na = min(run, n - pb), nb = min(run, n - pb - na);
    const key_t *a = ks + pb, *b = a + na;
    const u32 d0 = o0 - pb, d1 = min(d0 + MERGE_TILE, na + nb);
    if (warp < 2) {
        const u32 s = merge_split(a, na, b, nb, warp ? d1 : d0, m);
        if (lane == 0) split[warp] = s;
    }
    __syncthreads();
    const u32 a0 = split[0], la = split[1] - a0, b0 = d0 - a0, lb = (d1 - d0) - la;
    const u32 cnt = la + lb;
    for (u32 i = tid; i < cnt; i += MERGE_THREADS) sk[i] = i < la ? a[a0 + i] : b[b0 + i - la];
    __syncthreads();
    // This thread's outputs [d, d + MERGE_ITEMS) of the tile: where they split, by bisection in
    // shared memory, then a sequential merge.
    const u32 d = min(tid * MERGE_ITEMS, cnt);
    u32 lo = d > lb ? d - lb : 0, hi = min(d, la);
    while (lo < hi) {
        const u32 mid = (lo + hi) / 2;
        if ((sk[mid] & m) <= (sk[la + d - 1 - mid] & m))
            lo = mid + 1;
        else
            hi = mid;
    }
    u32 ia = lo, ib = la + d - lo;
#pragma unroll
    for (int j = 0; j < MERGE_ITEMS; j++) {
        if (d + j < cnt) {
            const bool take_a =
                ib >= cnt || (ia < la && (sk[ia] & m) <= (sk[ib] & m));
            const u32 from = take_a ? ia++ : ib++;
            so[d + j] = sk[from];
#if HAS_VALUES
            sfrom[d + j] = (u16)from;
#endif
        }
    }
    __syncthreads();
    key_t *out = kd + pb + d0;
#if HAS_VALUES
    value_t *vout = vd + pb + d0;
#endif
    for (u32 i = tid; i < cnt; i += MERGE_THREADS) {
        out[i] = finish ? key_out(so[i], desc) : so[i];
#if HAS_VALUES
        const u32 f = sfrom[i];
        vout[i] = f < la ? vs[pb + a0 + f] : vs[pb + na + b0 + f - la];
#endif
    }
}
