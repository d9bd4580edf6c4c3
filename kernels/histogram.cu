// Histograms of bytes into 256 bins: the seeds' strategies, each its own entry point.
// Counts are 32-bit; the host splits inputs of 2^32 samples or more into chunks and sums the
// chunks' counts in 64 bits.

#define BINS 256

// CUDA Handbook Listing 16-2: one global atomic per sample, byte loads. Suffers badly when few
// distinct values share the same counters (Table 16-3).
extern "C" __global__ void __launch_bounds__(THREADS)
hist_global_atomic(u32 *hist, const u8 *__restrict__ data, u64 n) {
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += (u64)gridDim.x * THREADS)
        atomicAdd(&hist[data[i]], 1u);
}

// Listing 16-3: the same with 32-bit loads unrolled four ways (more than 20% faster in the
// book). The n % 4 tail bytes are counted by the first threads of block 0.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_global_atomic_u32(u32 *hist, const u8 *__restrict__ data, u64 n) {
    const u32 *words = (const u32 *)data;
    const u64 n4 = n / 4;
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n4; i += (u64)gridDim.x * THREADS) {
        u32 v = words[i];
        atomicAdd(&hist[v & 0xff], 1u);
        atomicAdd(&hist[(v >> 8) & 0xff], 1u);
        atomicAdd(&hist[(v >> 16) & 0xff], 1u);
        atomicAdd(&hist[v >> 24], 1u);
    }
    if (blockIdx.x == 0 && threadIdx.x < n - n4 * 4) atomicAdd(&hist[data[n4 * 4 + threadIdx.x]], 1u);
}

__device__ __forceinline__ void count_word(u32 *h, u32 v) {
    atomicAdd(&h[v & 0xff], 1u);
    atomicAdd(&h[(v >> 8) & 0xff], 1u);
    atomicAdd(&h[(v >> 16) & 0xff], 1u);
    atomicAdd(&h[v >> 24], 1u);
}

// The same for a lane's column of a [bin][lane] table (see hist_lane_private).
__device__ __forceinline__ void count_word_strided(u32 *col, u32 v) {
    atomicAdd(&col[(v & 0xff) * WARP_THREADS], 1u);
    atomicAdd(&col[((v >> 8) & 0xff) * WARP_THREADS], 1u);
    atomicAdd(&col[((v >> 16) & 0xff) * WARP_THREADS], 1u);
    atomicAdd(&col[(v >> 24) * WARP_THREADS], 1u);
}

// Bin b of a [bin][lane] table sums its 32 lane copies into dst[b] with one atomic (none for an
// empty bin); thread b starts at lane b % 32 so that a warp's reads fall in 32 different banks.
__device__ __forceinline__ void merge_lanes(const u32 (*s_hist)[WARP_THREADS], u32 *dst) {
    for (u32 b = threadIdx.x; b < BINS; b += THREADS) {
        u32 sum = 0;
#pragma unroll
        for (u32 l = 0; l < WARP_THREADS; l++) sum += s_hist[b][(l + b) % WARP_THREADS];
        if (sum) atomicAdd(&dst[b], sum);
    }
}

// Block-private shared-memory histogram merged into the global one with one atomic per
// non-empty bin (the "shared" kernel of the histogram study, seeds/002), with 16-byte loads.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_shared(u32 *hist, const u8 *__restrict__ data, u64 n) {
    __shared__ u32 s_hist[BINS];
    for (u32 b = threadIdx.x; b < BINS; b += THREADS) s_hist[b] = 0;
    __syncthreads();
    const uint4 *vec = (const uint4 *)data;
    const u64 n16 = n / 16;
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n16; i += (u64)gridDim.x * THREADS) {
        uint4 v = vec[i];
        count_word(s_hist, v.x);
        count_word(s_hist, v.y);
        count_word(s_hist, v.z);
        count_word(s_hist, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n - n16 * 16) atomicAdd(&s_hist[data[n16 * 16 + threadIdx.x]], 1u);
    __syncthreads();
    for (u32 b = threadIdx.x; b < BINS; b += THREADS)
        if (s_hist[b]) atomicAdd(&hist[b], s_hist[b]);
}

// One sub-histogram per warp: a warp's atomics only collide with its own lanes, so a run of
// equal bytes costs 1/NUM_WARPS of the block-wide contention. Sub-histograms are summed at the
// end of the block.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_warp_private(u32 *hist, const u8 *__restrict__ data, u64 n) {
    __shared__ u32 s_hist[NUM_WARPS][BINS];
    for (u32 b = threadIdx.x; b < NUM_WARPS * BINS; b += THREADS) (&s_hist[0][0])[b] = 0;
    __syncthreads();
    u32 *mine = s_hist[warp_id()];
    const uint4 *vec = (const uint4 *)data;
    const u64 n16 = n / 16;
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n16; i += (u64)gridDim.x * THREADS) {
        uint4 v = vec[i];
        count_word(mine, v.x);
        count_word(mine, v.y);
        count_word(mine, v.z);
        count_word(mine, v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n - n16 * 16) atomicAdd(&mine[data[n16 * 16 + threadIdx.x]], 1u);
    __syncthreads();
    for (u32 b = threadIdx.x; b < BINS; b += THREADS) {
        u32 sum = 0;
#pragma unroll
        for (int w = 0; w < NUM_WARPS; w++) sum += s_hist[w][b];
        if (sum) atomicAdd(&hist[b], sum);
    }
}

// Lane-private copies in one block-wide table: the counter of bin b for lane l sits at
// s_hist[b][l], so a warp's 32 atomics always fall in 32 different banks, whatever the bytes
// (uniform data costs the shared kernel ~3.5 bank conflicts per atomic; here none; equal bytes
// hit 32 different addresses instead of one). The warps of the block share the lane columns
// with atomics. Two 16-byte loads in flight per thread; the remainder (n % 32 bytes) is
// counted by block 0.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_lane_private(u32 *hist, const u8 *__restrict__ data, u64 n) {
    __shared__ u32 s_hist[BINS][WARP_THREADS];
    for (u32 i = threadIdx.x; i < BINS * WARP_THREADS; i += THREADS) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    const u32 lane = lane_id();
    u32 *col = &s_hist[0][lane];
    const uint4 *vec = (const uint4 *)data;
    const u64 n16 = n / 16;
    const u64 stride = (u64)gridDim.x * THREADS;
    u64 i = (u64)blockIdx.x * THREADS + threadIdx.x;
    for (; i + stride < n16; i += 2 * stride) {
        uint4 a = vec[i];
        uint4 b = vec[i + stride];
        count_word_strided(col, a.x);
        count_word_strided(col, a.y);
        count_word_strided(col, a.z);
        count_word_strided(col, a.w);
        count_word_strided(col, b.x);
        count_word_strided(col, b.y);
        count_word_strided(col, b.z);
        count_word_strided(col, b.w);
    }
    if (i < n16) {
        uint4 a = vec[i];
        count_word_strided(col, a.x);
        count_word_strided(col, a.y);
        count_word_strided(col, a.z);
        count_word_strided(col, a.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n - n16 * 16)
        atomicAdd(&col[(u32)data[n16 * 16 + threadIdx.x] * WARP_THREADS], 1u);
    __syncthreads();
    merge_lanes(s_hist, hist);
}

// The default byte histogram (`auto`): hist_lane_private's table, with each thread's next two
// vectors in flight while it counts the current two, any alignment of `data`, and one launch
// that needs no zeroed output. The blocks merge into `acc` (256 counters and a ticket, all
// zero between launches); the last block to finish moves the sums to `hist` and leaves `acc`
// zeroed for the next launch. The host sizes
// the grid to one wave of resident blocks, so that no block starts after the others end.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_bytes(u32 *hist, u32 *acc, const u8 *__restrict__ data, u64 n) {
    __shared__ u32 s_hist[BINS][WARP_THREADS];
    __shared__ u32 s_last;
    for (u32 i = threadIdx.x; i < BINS * WARP_THREADS; i += THREADS) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    u32 *col = &s_hist[0][lane_id()];
    const u64 head = min(n, (u64)((16 - (u64)data % 16) % 16));
    const u64 n16 = (n - head) / 16;
    const u64 tail = head + n16 * 16;
    const uint4 *vec = (const uint4 *)(data + head);
    const u64 stride = (u64)gridDim.x * THREADS;
    u64 i = (u64)blockIdx.x * THREADS + threadIdx.x;
    if (i + stride < n16) {
        uint4 a = __ldcs(vec + i);
        uint4 b = __ldcs(vec + i + stride);
        while (true) {
            const u64 next = i + 2 * stride;
            const bool more = next + stride < n16;
            uint4 c, d;
            if (more) {
                c = __ldcs(vec + next);
                d = __ldcs(vec + next + stride);
            }
            count_word_strided(col, a.x);
            count_word_strided(col, a.y);
            count_word_strided(col, a.z);
            count_word_strided(col, a.w);
            count_word_strided(col, b.x);
            count_word_strided(col, b.y);
            count_word_strided(col, b.z);
            count_word_strided(col, b.w);
            i = next;
            if (!more) break;
            a = c;
            b = d;
        }
    }
    if (i < n16) {
        uint4 a = __ldcs(vec + i);
        count_word_strided(col, a.x);
        count_word_strided(col, a.y);
        count_word_strided(col, a.z);
        count_word_strided(col, a.w);
    }
    // Fewer than 16 bytes before the first whole vector and fewer than 16 after the last.
    if (blockIdx.x == 0 && threadIdx.x < head) atomicAdd(&col[(u32)data[threadIdx.x] * WARP_THREADS], 1u);
    if (blockIdx.x == 0 && threadIdx.x < n - tail)
        atomicAdd(&col[(u32)data[tail + threadIdx.x] * WARP_THREADS], 1u);
    __syncthreads();
    merge_lanes(s_hist, acc);
    // Every thread's merge is ordered before the block's ticket (fence, then the barrier that
    // thread 0 passes before taking it).
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(&acc[BINS], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    for (u32 b = threadIdx.x; b < BINS; b += THREADS) hist[b] = atomicExch(&acc[b], 0u);
    if (threadIdx.x == 0) atomicExch(&acc[BINS], 0u);
}
