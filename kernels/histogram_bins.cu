// Even and range bins over any numeric sample type: block-private shared-memory counters while
// the bins fit (dynamic shared memory, sized by the host), global atomics otherwise. The bin of
// a sample follows src/sample.rs exactly: integers in 64-bit arithmetic, floats as
// (x - lower) * scale rounded to nearest by explicit intrinsics (no FMA contraction), truncated
// and clamped to the last bin; NaN and samples outside the range are not counted.

#ifndef SAMPLE_T
#error "SAMPLE_T must be defined"
#endif
typedef SAMPLE_T sample_t;
#ifndef SAMPLE_FLOAT
#error "SAMPLE_FLOAT must be defined (0 or 1)"
#endif

__device__ __forceinline__ bool even_bin(sample_t x, sample_t lower, sample_t upper, sample_t scale,
                                         u32 bins, u32 &bin) {
#if SAMPLE_FLOAT
    if (!(x >= lower && x < upper)) return false;
#if SAMPLE_DOUBLE
    double t = __dmul_rn(__dsub_rn(x, lower), scale);
#else
    float t = __fmul_rn(__fsub_rn(x, lower), scale);
#endif
    u32 b = (u32)t;
    bin = b < bins - 1 ? b : bins - 1;
    return true;
#else
    (void)scale;
    if (x < lower || x >= upper) return false;
    u64 off = (u64)((i64)x - (i64)lower);
    u64 range = (u64)((i64)upper - (i64)lower);
    bin = (u32)(off * (u64)bins / range);
    return true;
#endif
}

__device__ __forceinline__ bool range_bin(sample_t x, const sample_t *bounds, u32 num_bounds, u32 &bin) {
    // Number of boundaries <= x (NaN compares false everywhere and counts 0).
    u32 lo = 0, hi = num_bounds;
    while (lo < hi) {
        u32 mid = (lo + hi) / 2;
        if (bounds[mid] <= x) lo = mid + 1; else hi = mid;
    }
    if (lo == 0 || lo == num_bounds) return false;
    bin = lo - 1;
    return true;
}

extern "C" __global__ void __launch_bounds__(THREADS)
hist_even(u32 *hist, const sample_t *__restrict__ data, u64 n, sample_t lower, sample_t upper,
          sample_t scale, u32 bins, u32 privatize) {
    extern __shared__ u32 s_hist[];
    u32 *h = privatize ? s_hist : hist;
    if (privatize) {
        for (u32 b = threadIdx.x; b < bins; b += THREADS) s_hist[b] = 0;
        __syncthreads();
    }
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += (u64)gridDim.x * THREADS) {
        u32 b;
        if (even_bin(data[i], lower, upper, scale, bins, b)) atomicAdd(&h[b], 1u);
    }
    if (privatize) {
        __syncthreads();
        for (u32 b = threadIdx.x; b < bins; b += THREADS)
            if (s_hist[b]) atomicAdd(&hist[b], s_hist[b]);
    }
}

// Range bins: with privatize, the dynamic shared memory holds the bins' counters followed by
// the boundaries (copied once per block); otherwise both stay in global memory.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_range(u32 *hist, const sample_t *__restrict__ data, u64 n, const sample_t *__restrict__ bounds,
           u32 num_bounds, u32 privatize) {
    extern __shared__ u64 s_mem[];  // u64 so the boundaries after the counters stay aligned
    const u32 bins = num_bounds - 1;
    u32 *s_hist = (u32 *)s_mem;
    sample_t *s_bounds = (sample_t *)(s_mem + (bins + 1) / 2);
    u32 *h = privatize ? s_hist : hist;
    const sample_t *bd = privatize ? s_bounds : bounds;
    if (privatize) {
        for (u32 b = threadIdx.x; b < bins; b += THREADS) s_hist[b] = 0;
        for (u32 b = threadIdx.x; b < num_bounds; b += THREADS) s_bounds[b] = bounds[b];
        __syncthreads();
    }
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += (u64)gridDim.x * THREADS) {
        u32 b;
        if (range_bin(data[i], bd, num_bounds, b)) atomicAdd(&h[b], 1u);
    }
    if (privatize) {
        __syncthreads();
        for (u32 b = threadIdx.x; b < bins; b += THREADS)
            if (s_hist[b]) atomicAdd(&hist[b], s_hist[b]);
    }
}
