// Even and range bins over any numeric sample type. The bin of a sample follows src/sample.rs
// exactly: integers in 64-bit arithmetic, floats as (x - lower) * scale rounded to nearest by
// explicit intrinsics (no FMA contraction), truncated and clamped to the last bin; NaN and
// samples outside the range are not counted.
//
// Counters: `copies` sub-histograms per block in shared memory while they fit (dynamic shared
// memory sized by the host), lane l counting into copy l % copies at s[bin * copies + copy]:
// with 32 copies a warp's atomics always fall in 32 different banks whatever the bins (few
// distinct values cost nothing), with fewer copies same-bin collisions are divided by the
// copies. copies == 0: the bins do not fit, every atomic goes to the global counters.
//
// Loads: 16 bytes per thread from the first 16-byte boundary, two vectors per iteration, the
// next iteration's two in flight while these are counted; the samples before that boundary and after the last whole vector (fewer than
// one vector on each side) are counted one by one by block 0.
//
// Integer even bins: floor(off * bins / range) with off < range <= 2^32, so the product fits 64
// bits; the division uses a reciprocal computed by the host, magic = floor((2^64 - 1) / range):
// q = mulhi(x, magic) is at most 2 below the quotient, and two corrections make it exact (a
// 64-bit division is a ~70-instruction subroutine on the GPU).

#ifndef SAMPLE_T
#error "SAMPLE_T must be defined"
#endif
typedef SAMPLE_T sample_t;
#ifndef SAMPLE_FLOAT
#error "SAMPLE_FLOAT must be defined (0 or 1)"
#endif

#define SVEC (16 / (int)sizeof(sample_t))
union SampleVec {
    uint4 v;
    sample_t s[SVEC];
};

struct EvenBins {
    sample_t lower, upper, scale;
    u64 range, magic;
    u32 bins;

    __device__ __forceinline__ bool operator()(sample_t x, u32 &bin) const {
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
        if (x < lower || x >= upper) return false;
        const u64 prod = (u64)((i64)x - (i64)lower) * (u64)bins;
        u64 q = __umul64hi(prod, magic);
        u64 r = prod - q * range;
        if (r >= range) { q++; r -= range; }
        if (r >= range) q++;
        bin = (u32)q;
        return true;
#endif
    }
};

struct RangeBins {
    const sample_t *bounds;
    u32 num_bounds;

    // Number of boundaries <= x (NaN compares false everywhere and counts 0).
    __device__ __forceinline__ bool operator()(sample_t x, u32 &bin) const {
        u32 lo = 0, hi = num_bounds;
        while (lo < hi) {
            u32 mid = (lo + hi) / 2;
            if (bounds[mid] <= x) lo = mid + 1; else hi = mid;
        }
        if (lo == 0 || lo == num_bounds) return false;
        bin = lo - 1;
        return true;
    }
};

template <typename Bin>
__device__ __forceinline__ void count_one(u32 *h, u32 copies, u32 copy, const Bin &bin_of,
                                          sample_t x) {
    u32 b;
    if (bin_of(x, b)) atomicAdd(&h[b * copies + copy], 1u);
}

// Counts the samples of [data, data + n) into h (sub-histogram `copy` of `copies`).
template <typename Bin>
__device__ __forceinline__ void count_samples(u32 *h, u32 copies, u32 copy, const Bin &bin_of,
                                              const sample_t *data, u64 n) {
    const u64 addr = (u64)data;
    const u64 head = min(n, (u64)(((16 - addr % 16) % 16) / sizeof(sample_t)));
    const uint4 *vec = (const uint4 *)(data + head);
    const u64 nvec = (n - head) / SVEC;
    const u64 stride = (u64)gridDim.x * THREADS;
    u64 i = (u64)blockIdx.x * THREADS + threadIdx.x;
    // Software pipelined: the next two vectors are in flight while this thread counts the
    // current two, so its loads never wait behind its own counting.
    if (i + stride < nvec) {
        SampleVec a, b;
        a.v = __ldcs(vec + i);
        b.v = __ldcs(vec + i + stride);
        while (true) {
            const u64 next = i + 2 * stride;
            const bool more = next + stride < nvec;
            SampleVec c, d;
            if (more) {
                c.v = __ldcs(vec + next);
                d.v = __ldcs(vec + next + stride);
            }
#pragma unroll
            for (int j = 0; j < SVEC; j++) count_one(h, copies, copy, bin_of, a.s[j]);
#pragma unroll
            for (int j = 0; j < SVEC; j++) count_one(h, copies, copy, bin_of, b.s[j]);
            i = next;
            if (!more) break;
            a = c;
            b = d;
        }
    }
    if (i < nvec) {
        SampleVec a;
        a.v = __ldcs(vec + i);
#pragma unroll
        for (int j = 0; j < SVEC; j++) count_one(h, copies, copy, bin_of, a.s[j]);
    }
    if (blockIdx.x == 0) {
        // Fewer than SVEC samples on each side.
        const u64 tail = head + nvec * SVEC;
        if (threadIdx.x < head)
            count_one(h, copies, copy, bin_of, data[threadIdx.x]);
        else if (threadIdx.x >= 32 && tail + (threadIdx.x - 32) < n)
            count_one(h, copies, copy, bin_of, data[tail + threadIdx.x - 32]);
    }
}

// Clears the shared counters, counts, and adds each bin's copies to the global counter.
template <typename Bin>
__device__ __forceinline__ void histogram(u32 *hist, u32 *s_hist, u32 bins, u32 copies,
                                          const Bin &bin_of, const sample_t *data, u64 n) {
    if (copies == 0) {
        count_samples(hist, 1, 0, bin_of, data, n);
        return;
    }
    count_samples(s_hist, copies, lane_id() & (copies - 1), bin_of, data, n);
    __syncthreads();
    for (u32 b = threadIdx.x; b < bins; b += THREADS) {
        u32 sum = 0;
        for (u32 c = 0; c < copies; c++) sum += s_hist[b * copies + c];
        if (sum) atomicAdd(&hist[b], sum);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
hist_even(u32 *hist, const sample_t *__restrict__ data, u64 n, sample_t lower, sample_t upper,
          sample_t scale, u64 range, u64 magic, u32 bins, u32 copies) {
    extern __shared__ u32 s_hist[];
    for (u32 i = threadIdx.x; i < bins * copies; i += THREADS) s_hist[i] = 0;
    __syncthreads();
    const EvenBins bin_of{lower, upper, scale, range, magic, bins};
    histogram(hist, s_hist, bins, copies, bin_of, data, n);
}

// Range bins: with shared counters, the dynamic shared memory holds the counters (padded to 8
// bytes) followed by the boundaries (copied once per block); otherwise the boundaries are read
// from global memory.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_range(u32 *hist, const sample_t *__restrict__ data, u64 n, const sample_t *__restrict__ bounds,
           u32 num_bounds, u32 copies) {
    extern __shared__ u64 s_mem[];  // u64 so the boundaries after the counters stay aligned
    const u32 bins = num_bounds - 1;
    u32 *s_hist = (u32 *)s_mem;
    sample_t *s_bounds = (sample_t *)(s_mem + (bins * copies + 1) / 2);
    if (copies > 0) {
        for (u32 i = threadIdx.x; i < bins * copies; i += THREADS) s_hist[i] = 0;
        for (u32 b = threadIdx.x; b < num_bounds; b += THREADS) s_bounds[b] = bounds[b];
        __syncthreads();
    }
    const RangeBins bin_of{copies > 0 ? s_bounds : bounds, num_bounds};
    histogram(hist, s_hist, bins, copies, bin_of, data, n);
}
