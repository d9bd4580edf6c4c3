// Small sorts in one block: every digit pass runs in shared memory, with no grid-wide step
// (no look-back, no grid barrier, no second launch). For inputs of a few thousand keys a sort's
// cost is launches and round trips to global memory, not bandwidth; one block of THREADS
// threads holds the whole input (TILE = THREADS * ITEMS keys) in registers between passes.
//
// Per pass: each warp ranks its keys with __match_any_sync against warp-private digit counters
// (the highest peer of a round adds the round's count with one shared atomic and broadcasts
// the old value); a block scan of the per-digit totals gives each digit's start; the keys (and
// values) are staged in shared memory in digit order and read back in the same warp-striped
// layout, which keeps the sort stable. Positions past n hold the all-ones image, which ranks
// after every real key in every digit, so the padding stays at the end.

#ifndef ITEMS
#error "ITEMS (keys per thread) must be defined"
#endif
#ifndef RADIX_BITS
#error "RADIX_BITS must be defined"
#endif
#ifndef RANK_BALLOT
#error "RANK_BALLOT (1: find a digit's peers by ballots, 0: by __match_any_sync) must be defined"
#endif
#define RADIX (1 << RADIX_BITS)
#define TILE (THREADS * ITEMS)
#define WARP_ITEMS (WARP_THREADS * ITEMS)
static_assert(THREADS >= RADIX, "one thread per digit for the digit scan");
static_assert(RADIX_BITS <= 8, "warp counters are sized for at most 256 digits");

struct BlockSortStorage {
    key_t keys[TILE];
#if HAS_VALUES
    value_t vals[TILE];
#endif
    u32 warp_hist[NUM_WARPS][RADIX];
    u32 ws[NUM_WARPS];
};


// Sorts keys_in[0..n) (n <= TILE) into keys_out, values along; in place is allowed (every
// input is read before the first write).
extern "C" __global__ void __launch_bounds__(THREADS, 1)
block_sort(const key_t *keys_in, key_t *keys_out, const value_t *vals_in, value_t *vals_out,
           u32 n, u32 begin_bit, u32 end_bit, u32 desc, u32 iota) {
    __shared__ BlockSortStorage st;
    const u32 tid = threadIdx.x;
    const u32 lane = lane_id();
    const u32 warp = warp_id();
    (void)iota;
    (void)vals_in;
    (void)vals_out;

    key_t k[ITEMS];
#if HAS_VALUES
    value_t v[ITEMS];
#endif
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 p = warp * WARP_ITEMS + j * WARP_THREADS + lane;
        k[j] = p < n ? key_in(keys_in[p], desc) : KEY_ALL_ONES;
#if HAS_VALUES
#if VALUE_BYTES == 4 || VALUE_BYTES == 8
        // argsort: the value is the key's input index.
        if (p < n) v[j] = iota ? (value_t)p : vals_in[p];
#else
        if (p < n) v[j] = vals_in[p];
#endif
#endif
    }

    for (u32 shift = begin_bit; shift < end_bit; shift += RADIX_BITS) {
        const u32 mask = (1u << min((u32)RADIX_BITS, end_bit - shift)) - 1;
        for (u32 i = lane; i < RADIX; i += WARP_THREADS) st.warp_hist[warp][i] = 0;
        __syncwarp();

        // Rank among the warp's keys of the same digit.
        u32 pos[ITEMS];
        warp_rank<RADIX_BITS>(k, pos, st.warp_hist[warp], shift, mask);
        __syncthreads();

        // Digit starts, then each warp's first position per digit.
        u32 count = tid < RADIX ? digit_total<NUM_WARPS>(&st.warp_hist[0][0], RADIX, tid) : 0;
        u32 total;
        u32 start = block_exclusive_scan(count, st.ws, total);
        if (tid < RADIX) warp_starts<NUM_WARPS>(&st.warp_hist[0][0], RADIX, tid, start);
        __syncthreads();

        // Stage in digit order, read back in the warp-striped layout.
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            u32 p = pos[j] + st.warp_hist[warp][digit_of(k[j], shift, mask)];
            st.keys[p] = k[j];
#if HAS_VALUES
            st.vals[p] = v[j];
#endif
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            u32 p = warp * WARP_ITEMS + j * WARP_THREADS + lane;
            k[j] = st.keys[p];
#if HAS_VALUES
            v[j] = st.vals[p];
#endif
        }
        __syncthreads();
    }

#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 p = warp * WARP_ITEMS + j * WARP_THREADS + lane;
        if (p < n) {
            keys_out[p] = key_out(k[j], desc);
#if HAS_VALUES
            vals_out[p] = v[j];
#endif
        }
    }
}
