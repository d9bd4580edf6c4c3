// Small sorts by counting: the output position of key i is the number of keys that must come
// before it,
//     rank(i) = #{ j : k[j] < k[i] } + #{ j < i : k[j] == k[i] },
// which is the stable order. For a few thousand keys the n^2 comparisons are less work for the
// whole GPU than the serial steps of a radix sort are for one block: 2^12 keys are 2^24
// comparisons, about two thousand cycles of 132 SMs, where a single-block radix sort (histosort
// had one until session 6) runs four dependent digit passes on one SM. One launch does
// everything: the key transform (radix image, descending complement, bit range), the ranking
// and the scatter of keys and values.
//
// Block b ranks keys [32 b, 32 b + 32), one per lane of every warp; its NUM_WARPS warps split
// the comparisons over j into NUM_WARPS contiguous ranges, and the partial counts are summed
// in shared memory. Every block first copies the images of all n keys into shared memory;
// a warp then reads 4 keys per shared load, which every lane receives (a broadcast).
//
// Splitting each warp's j range at the block's own keys makes the condition uniform: before
// them every j < i, so a key counts when k[j] <= k[i]; after them every j > i, so it counts
// when k[j] < k[i]; only the block's own 32 keys need the full condition.
//
// Every block reads all n keys while other blocks already write their outputs, so the output
// must not be the input: the host copies an in-place input to scratch first.

#ifndef RANK_MAX
#error "RANK_MAX (the most keys this kernel sorts) must be defined"
#endif
static_assert(RANK_MAX % 4 == 0, "whole groups of 4 keys");
#define RANK_LOADS 8
static_assert(RANK_MAX * sizeof(key_t) <= 32 * 1024, "the images fit in 32 KiB of shared memory");

// Four consecutive images: one shared load of 4 to 16 bytes, or several for 128-bit keys.
struct alignas(4 * sizeof(key_t) > 16 ? 16 : 4 * sizeof(key_t)) Quad {
    key_t k[4];
};

// The image a sort orders by: the radix image (complemented when descending), bits
// [begin, end) only.
__device__ __forceinline__ key_t rank_image(key_t k, u32 desc, u32 begin_bit, key_t mask) {
    return (key_t)(key_in(k, desc) >> begin_bit) & mask;
}

// c += (kj < ki), or (kj <= ki) with OR_EQUAL: a compare and a predicated add (written in PTX:
// from C the compiler added 1 to a copy and moved the old value back under the predicate).
// One comparison in PTX: setp.CMP.TYPE on operands of constraint REG, then the predicated add.
#define COUNT_IF_PTX(CMP, TYPE, REG, CAST)                                                        \
    asm("{\n\t.reg .pred p;\n\tsetp." CMP "." TYPE " p, %1, %2;\n\t@p add.u32 %0, %0, 1;\n\t}"    \
        : "+r"(c)                                                                               \
        : REG((CAST)kj), REG((CAST)ki))
template <bool OR_EQUAL>
__device__ __forceinline__ void count_if_below(u32 &c, key_t kj, key_t ki) {
#if KEY_BITS <= 32
    if (OR_EQUAL)
        COUNT_IF_PTX("le", "u32", "r", u32);
    else
        COUNT_IF_PTX("lt", "u32", "r", u32);
#elif KEY_BITS == 64
    if (OR_EQUAL)
        COUNT_IF_PTX("le", "u64", "l", u64);
    else
        COUNT_IF_PTX("lt", "u64", "l", u64);
#else
    c += OR_EQUAL ? (kj <= ki) : (kj < ki);
#endif
}
#undef COUNT_IF_PTX

// How many of the images in [lo, hi) (multiples of 4) compare below `ki`; with OR_EQUAL, also
// those equal to it. Four counters (one per position in a group) keep the additions
// independent.
template <bool OR_EQUAL>
__device__ __forceinline__ u32 count_below(const key_t *s, u32 lo, u32 hi, key_t ki) {
    u32 c[4] = {0, 0, 0, 0};
    u32 j = lo;
    for (; j + 16 <= hi; j += 16) {  // 16 at a time: one bound check per 16 comparisons
#pragma unroll
        for (int g = 0; g < 4; g++) {
            const Quad q = *(const Quad *)(s + j + 4 * g);
#pragma unroll
            for (int e = 0; e < 4; e++) count_if_below<OR_EQUAL>(c[e], q.k[e], ki);
        }
    }
    for (; j < hi; j += 4) {
        const Quad q = *(const Quad *)(s + j);
#pragma unroll
        for (int e = 0; e < 4; e++) count_if_below<OR_EQUAL>(c[e], q.k[e], ki);
    }
    return (c[0] + c[1]) + (c[2] + c[3]);
}

extern "C" __global__ void __launch_bounds__(THREADS)
rank_sort(const key_t *keys_in, key_t *keys_out, const value_t *vals_in, value_t *vals_out, u32 n,
          u32 begin_bit, u32 end_bit, u32 desc, u32 iota) {
    __shared__ __align__(16) key_t s_keys[RANK_MAX];
    __shared__ u32 s_count[NUM_WARPS][WARP_THREADS];
    (void)vals_in;
    (void)vals_out;
    (void)iota;
    const u32 width = end_bit - begin_bit;
    const key_t mask = width >= KEY_BITS ? KEY_ALL_ONES : (key_t)(((key_t)1 << width) - 1);
    // Images of every key; positions n .. n rounded up to 4 hold the all-ones image, which no
    // key's image is above, so they never count (they only ever fall after the block's keys).
    const u32 n4 = (n + 3) & ~3u;
    const u32 lane = lane_id(), warp = warp_id();
    const u32 i0 = blockIdx.x * WARP_THREADS;  // the block's first key
    const u32 i = i0 + lane;
#if HAS_VALUES
    // Warp 0 writes the block's keys and values: its value load overlaps the ranking.
    value_t v{};
    if (warp == 0 && i < n) {
#if VALUE_BYTES == 4 || VALUE_BYTES == 8
        v = iota ? (value_t)i : vals_in[i];  // argsort: the value is the key's input index
#else
        v = vals_in[i];
#endif
    }
#endif
    // RANK_LOADS loads in flight per thread: one round trip per batch, not per key (a loop of
    // single loads cost ~0.25 us a key per thread: 2^13 u32 keys are 32 per thread).
    for (u32 b = 0; b < n4; b += THREADS * RANK_LOADS) {
        key_t r[RANK_LOADS];
#pragma unroll
        for (int e = 0; e < RANK_LOADS; e++) {
            const u32 j = b + e * THREADS + threadIdx.x;
            r[e] = j < n ? keys_in[j] : KEY_ALL_ONES;
        }
#pragma unroll
        for (int e = 0; e < RANK_LOADS; e++) {
            const u32 j = b + e * THREADS + threadIdx.x;
            if (j < n4) s_keys[j] = j < n ? rank_image(r[e], desc, begin_bit, mask) : KEY_ALL_ONES;
        }
    }
    __syncthreads();

    const key_t ki = s_keys[min(i, n4 - 1)];
    // This warp's comparisons: j in [lo, hi), a multiple of 4 wide.
    const u32 per = ((n4 / 4 + NUM_WARPS - 1) / NUM_WARPS) * 4;
    const u32 lo = min(warp * per, n4), hi = min(lo + per, n4);
    const u32 own_lo = max(lo, i0), own_hi = min(hi, i0 + WARP_THREADS);  // multiples of 4
    u32 c = count_below<true>(s_keys, lo, min(hi, i0), ki) +
            count_below<false>(s_keys, max(lo, i0 + WARP_THREADS), hi, ki);
    for (u32 j = own_lo; j < own_hi; j++) {
        const key_t kj = s_keys[j];
        c += (kj < ki) | ((kj == ki) & (j < i));
    }
    s_count[warp][lane] = c;
    __syncthreads();

    if (warp == 0 && i < n) {
        u32 rank = 0;
#pragma unroll
        for (int w = 0; w < NUM_WARPS; w++) rank += s_count[w][lane];
        // Over the whole key the image inverts back to the key; over a bit range it does not,
        // and the key is read again.
        keys_out[rank] = width >= KEY_BITS ? key_out(ki, desc) : keys_in[i];
#if HAS_VALUES
        vals_out[rank] = v;
#endif
    }
}
