// The LSD radix sort of small inputs in ONE thread-block cluster (sm_90 and later): the keys
// stay in the cluster's distributed shared memory (DSMEM) for every pass, so a pass costs two
// cluster barriers and on-chip traffic instead of a look-back over global status words and a
// grid barrier (the single-launch onesweep kernel, which this replaces up to
// CLUSTER_SORT_MAX keys).
//
// Block r of the cluster (its rank, 0 to gridDim.x - 1; the grid is one cluster) owns positions
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

// The whole sort of n <= gridDim.x * CHUNK keys, in one cluster of gridDim.x blocks (launched
// with the cluster dimension set to the grid). Bits [begin_bit, end_bit), 8 per pass.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
cluster_sort(const key_t *keys_in, key_t *keys_out, const value_t *vals_in, value_t *vals_out,
             u32 n, u32 begin_bit, u32 end_bit, u32 desc, u32 iota) {
    // (No __restrict__: in place, keys_in is keys_out. Every input is read before the first
    // cluster barrier and every output written after the last pass's.)
    extern __shared__ __align__(16) unsigned char s_cluster[];
    static_assert(sizeof(ClusterStorage) <= CLUSTER_SMEM_BYTES,
                  "the host's CLUSTER_SMEM_BYTES is too small");
    ClusterStorage &st = *reinterpret_cast<ClusterStorage *>(s_cluster);
    const u32 tid = threadIdx.x, lane = lane_id(), warp = warp_id();
    const u32 blocks = gridDim.x;
    const u32 me = cluster_rank();
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
            st.vals[0][i] = iota ? (value_t)g : vals_in[g];
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
                    keys_out[dst] = key_out(x, desc);
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
                keys_out[g] = key_out(st.keys[cur][i], desc);
#if HAS_VALUES
                vals_out[g] = st.vals[cur][i];
#endif
            }
        }
    }
    cluster_wait();
}
