// Histogram of 16-bit samples into 65536 bins.
//
// Why this design. 65536 32-bit counters (256 KiB) do not fit in a block's shared memory (227
// KiB at most on sm_90), and global atomics per sample run far below bandwidth when samples
// repeat (CUDA Handbook Table 16-3). Splitting the bins over several passes reads the data
// several times; per-block copies in global memory turn every sample into an L2 atomic. So each
// block keeps the whole histogram as 16-bit counters, two to a 32-bit word, in 128 KiB of opt-in
// dynamic shared memory (one block of 1024 threads per SM), and counts with 32-bit shared
// atomics on the word. A 16-bit counter can wrap; every atomic returns the word's previous
// value, so the one thread whose add wraps a counter knows it and adds 65536 to the bin's global
// counter at once. Adding to the low half carries into the high half: that thread subtracts the
// carry again, and any crossing of a multiple of 65536 that the carry or its correction caused in
// the high half is booked the same way (+65536 or -65536, in 32-bit arithmetic that wraps; the
// final counts are exact since a launch counts fewer than 2^32 samples). Wraps are rare (one per
// 65536 samples of a bin in a block), so nearly every sample costs one shared atomic, and the
// data is read once. At the end each block adds its nonzero counters to the global histogram.
//
// A thread counts the 8 samples of a 16-byte vector as runs of equal values (one atomic per run),
// which keeps sorted or low-entropy data from serialising on one counter.
//
// Devices with less opt-in shared memory run the kernel in passes over bin ranges
// [bin_lo, bin_lo + bins_here), each pass reading the data again (the host picks the range).

#ifndef VECS
#error "VECS (16-byte vectors per thread and step) must be defined"
#endif
static_assert(VECS >= 1 && VECS <= 8, "1 to 8 vectors per step");

// count16 (common.cuh) books the 16-bit counters' wraps.

// Counts the 8 samples of `v` (in order) as runs of equal values, those in range only.
__device__ __forceinline__ void count_vec(u32 *s, u32 *hist, uint4 v, u32 bin_lo, u32 bins_here) {
    u32 w[4] = {v.x, v.y, v.z, v.w};
    u32 prev = w[0] & 0xffffu, k = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        u32 x = (w[i / 2] >> (16 * (i & 1))) & 0xffffu;
        if (x != prev) {
            u32 b = prev - bin_lo;
            if (b < bins_here) count16(s, hist, b, k);
            prev = x;
            k = 0;
        }
        k++;
    }
    u32 b = prev - bin_lo;
    if (b < bins_here) count16(s, hist, b, k);
}

// `hist` points at the counter of bin `bin_lo` (65536 - bin_lo counters follow); the dynamic
// shared memory holds `bins_here` (even) 16-bit counters.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_u16(u32 *hist, const u16 *__restrict__ data, u64 n, u32 bin_lo, u32 bins_here) {
    extern __shared__ u32 s_words[];
    const u32 words = bins_here / 2;
    for (u32 i = threadIdx.x; i < words; i += THREADS) s_words[i] = 0;
    __syncthreads();

    // Samples before the first 16-byte boundary, then whole vectors, then the rest.
    const u64 head = min(n, (u64)(((16 - ((u64)data & 15)) & 15) / 2));
    const uint4 *vec = (const uint4 *)(data + head);
    const u64 nvec = (n - head) / 8;
    const u64 stride = (u64)gridDim.x * THREADS;
    u64 i = (u64)blockIdx.x * THREADS + threadIdx.x;
    for (; i + (VECS - 1) * stride < nvec; i += VECS * stride) {
        uint4 v[VECS];
#pragma unroll
        for (int j = 0; j < VECS; j++) v[j] = __ldcs(vec + i + j * stride);
#pragma unroll
        for (int j = 0; j < VECS; j++) count_vec(s_words, hist, v[j], bin_lo, bins_here);
    }
    for (; i < nvec; i += stride) count_vec(s_words, hist, __ldcs(vec + i), bin_lo, bins_here);
    if (blockIdx.x == 0) {
        const u64 tail = head + nvec * 8;
        for (u64 t = threadIdx.x; t < head + (n - tail); t += THREADS) {
            u32 b = (u32)data[t < head ? t : tail + (t - head)] - bin_lo;
            if (b < bins_here) count16(s_words, hist, b, 1);
        }
    }
    __syncthreads();
    for (u32 i = threadIdx.x; i < words; i += THREADS) {
        u32 w = s_words[i];
        if (w & 0xffffu) atomicAdd(&hist[2 * i], w & 0xffffu);
        if (w >> 16) atomicAdd(&hist[2 * i + 1], w >> 16);
    }
}
