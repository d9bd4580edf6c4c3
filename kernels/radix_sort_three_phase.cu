// The seeds' GPU-resident LSD radix sort (CUDA Handbook ch. 16 and the course page, seeds/000
// and seeds/001): per digit of b bits, three phases that ping-pong between buffers:
//   1. local sort: each block loads a tile and stably sorts it by the digit with b one-bit
//      splits, each a block-wide exclusive scan ("t = i - f + totalFalses"), and counts the
//      tile's digits in shared memory, so the histogram needs no global atomics;
//   2. one device-wide exclusive scan of the digit-major (digit, tile) count matrix gives each
//      (tile, digit) its base offset (scan.cu);
//   3. scatter: each block writes its sorted tile to base + rank within the digit's run.
// The digit width b is a runtime argument of the same code (1, 2, 4 or 8 bits). Partial last
// tiles are padded with the all-ones image, which sorts to the end of the tile, instead of
// guarding the splits. Values ride along on every split (the course page's exercise).
// Keys arrive here as radix images (keys.cu), so this file only sorts unsigned integers.

#ifndef ITEMS
#error "ITEMS (keys per thread) must be defined"
#endif
#define TILE (THREADS * ITEMS)
#define MAX_DIGIT_BITS 8
static_assert(TILE <= 8192, "a tile's keys and values must fit in shared memory");

extern "C" __global__ void __launch_bounds__(THREADS)
three_phase_local_sort(const key_t *__restrict__ keys_in, const value_t *__restrict__ vals_in,
                       key_t *__restrict__ keys_tile, value_t *__restrict__ vals_tile,
                       u32 *__restrict__ tile_hist, u64 n, u32 shift, u32 bits, u32 num_tiles) {
    __shared__ key_t s_keys[TILE];
#if HAS_VALUES
    __shared__ value_t s_vals[TILE];
#endif
    __shared__ u32 s_ws[NUM_WARPS];
    __shared__ u32 s_hist[1 << MAX_DIGIT_BITS];

    const u32 tid = threadIdx.x;
    const u32 tile = blockIdx.x;
    const u64 base = (u64)tile * TILE;
    const u32 valid = (u32)min((u64)TILE, n - base);
    const u32 num_digits = 1u << bits;

    // Striped, coalesced load into shared memory; padding sorts last.
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 i = j * THREADS + tid;
        s_keys[i] = i < valid ? keys_in[base + i] : KEY_ALL_ONES;
#if HAS_VALUES
        if (i < valid) s_vals[i] = vals_in[base + i];
#endif
    }
    for (u32 d = tid; d < num_digits; d += THREADS) s_hist[d] = 0;
    __syncthreads();

    // Each thread owns ITEMS consecutive positions of the tile ("blocked" arrangement).
    key_t k[ITEMS];
#if HAS_VALUES
    value_t v[ITEMS];
#endif
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        k[j] = s_keys[tid * ITEMS + j];
#if HAS_VALUES
        v[j] = s_vals[tid * ITEMS + j];
#endif
    }
    __syncthreads();

    for (u32 bit = 0; bit < bits; bit++) {
        const u32 b = shift + bit;
        u32 zeros = 0;
#pragma unroll
        for (int j = 0; j < ITEMS; j++) zeros += 1 - (u32)((k[j] >> b) & 1);
        u32 total_zeros;
        u32 f = block_exclusive_scan(zeros, s_ws, total_zeros);
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const u32 p = tid * ITEMS + j;
            const u32 flag = (u32)((k[j] >> b) & 1);
            const u32 dest = flag ? total_zeros + p - f : f;
            f += 1 - flag;
            s_keys[dest] = k[j];
#if HAS_VALUES
            s_vals[dest] = v[j];
#endif
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            k[j] = s_keys[tid * ITEMS + j];
#if HAS_VALUES
            v[j] = s_vals[tid * ITEMS + j];
#endif
        }
        __syncthreads();
    }

    // The tile's digit histogram, from shared-memory atomics (CUDA Handbook section 16.3).
    const u32 mask = num_digits - 1;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        if (tid * ITEMS + j < valid) atomicAdd(&s_hist[digit_of(k[j], shift, mask)], 1u);
    }
    // s_keys/s_vals hold the sorted tile since the last split: write it out striped.
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 i = j * THREADS + tid;
        keys_tile[base + i] = s_keys[i];
#if HAS_VALUES
        vals_tile[base + i] = s_vals[i];
#endif
    }
    __syncthreads();
    for (u32 d = tid; d < num_digits; d += THREADS) tile_hist[(u64)d * num_tiles + tile] = s_hist[d];
}

extern "C" __global__ void __launch_bounds__(THREADS)
three_phase_scatter(const key_t *__restrict__ keys_tile, const value_t *__restrict__ vals_tile,
                    key_t *__restrict__ keys_out, value_t *__restrict__ vals_out,
                    const u32 *__restrict__ tile_offsets, u64 n, u32 shift, u32 bits,
                    u32 num_tiles) {
    __shared__ u32 s_start[1 << MAX_DIGIT_BITS];
    const u32 tid = threadIdx.x;
    const u32 tile = blockIdx.x;
    const u64 base = (u64)tile * TILE;
    const u32 valid = (u32)min((u64)TILE, n - base);
    const u32 mask = (1u << bits) - 1;

    key_t k[ITEMS];
    u32 d[ITEMS];
    // Where each digit's run starts in the sorted tile: where the digit differs from the left
    // neighbour's (the seed's Listing 16-11).
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 i = j * THREADS + tid;
        k[j] = keys_tile[base + i];
        d[j] = digit_of(k[j], shift, mask);
        if (i < valid) {
            u32 prev = i > 0 ? digit_of(keys_tile[base + i - 1], shift, mask) : 0xffffffffu;
            if (d[j] != prev) s_start[d[j]] = i;
        }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 i = j * THREADS + tid;
        if (i < valid) {
            u64 dst = (u64)tile_offsets[(u64)d[j] * num_tiles + tile] + (i - s_start[d[j]]);
            keys_out[dst] = k[j];
#if HAS_VALUES
            vals_out[dst] = vals_tile[base + i];
#endif
        }
    }
}
