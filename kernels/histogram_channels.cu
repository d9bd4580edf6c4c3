// Multi-channel byte histograms: interleaved pixels of C channels (RGBA: C = 4) into C
// histograms of 256 bins, channel-major in `hist` (C x 256 32-bit counters). Byte i of the data
// belongs to channel i % C.
//
// Each block keeps C block-private shared histograms (the "shared" design of the histogram
// study, seeds/002), reads 16-byte vectors and sends each byte to its channel's histogram; the
// channel of a vector's first byte is (its index) % C, which is the same for every vector when C
// divides 16 and advances by one per vector for C = 3. Bytes before the first 16-byte boundary
// and after the last whole vector are counted one by one by block 0. At the end the block adds
// its nonzero counters to the global histograms.

#define BINS 256

template <int C>
__device__ __forceinline__ void channels(u32 *hist, const u8 *__restrict__ data, u64 n) {
    static_assert(C >= 1 && C <= 4, "1 to 4 channels");
    __shared__ u32 s_hist[C * BINS];
    for (u32 b = threadIdx.x; b < C * BINS; b += THREADS) s_hist[b] = 0;
    __syncthreads();
    const u64 head = min(n, (u64)((16 - ((u64)data & 15)) & 15));
    const uint4 *vec = (const uint4 *)(data + head);
    const u64 nvec = (n - head) / 16;
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < nvec; i += (u64)gridDim.x * THREADS) {
        uint4 v = __ldcs(vec + i);
        u32 w[4] = {v.x, v.y, v.z, v.w};
        u32 c = (u32)((head + 16 * i) % C);
#pragma unroll
        for (int k = 0; k < 16; k++) {
            atomicAdd(&s_hist[c * BINS + ((w[k / 4] >> (8 * (k & 3))) & 0xffu)], 1u);
            c = c + 1 == C ? 0 : c + 1;
        }
    }
    if (blockIdx.x == 0) {
        const u64 tail = head + nvec * 16;
        for (u64 t = threadIdx.x; t < head + (n - tail); t += THREADS) {
            u64 idx = t < head ? t : tail + (t - head);
            atomicAdd(&s_hist[(u32)(idx % C) * BINS + data[idx]], 1u);
        }
    }
    __syncthreads();
    for (u32 b = threadIdx.x; b < C * BINS; b += THREADS)
        if (s_hist[b]) atomicAdd(&hist[b], s_hist[b]);
}

extern "C" __global__ void __launch_bounds__(THREADS)
hist_channels_1(u32 *hist, const u8 *__restrict__ data, u64 n) { channels<1>(hist, data, n); }
extern "C" __global__ void __launch_bounds__(THREADS)
hist_channels_2(u32 *hist, const u8 *__restrict__ data, u64 n) { channels<2>(hist, data, n); }
extern "C" __global__ void __launch_bounds__(THREADS)
hist_channels_3(u32 *hist, const u8 *__restrict__ data, u64 n) { channels<3>(hist, data, n); }
extern "C" __global__ void __launch_bounds__(THREADS)
hist_channels_4(u32 *hist, const u8 *__restrict__ data, u64 n) { channels<4>(hist, data, n); }
