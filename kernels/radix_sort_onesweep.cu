// histosort's production LSD radix sort, after the "onesweep" design (Adinets & Merrill,
// 2022) that CUB uses: one up-front pass builds the histograms of every digit, then ONE kernel
// per digit ranks, counts and scatters, with tile offsets found by a decoupled look-back
// (chained scan) instead of a separate histogram-scan-scatter round trip. Per digit the keys
// are read once and written once.
//
//  * Tiles are numbered in the order blocks start (an atomic counter), so a block only ever
//    waits on tiles whose blocks are already running: the look-back cannot deadlock.
//  * Ranking: each warp owns a contiguous segment of the tile and ranks its keys with
//    __match_any_sync (warp-level multisplit) against warp-private digit counters in shared
//    memory; a block-wide scan of the per-digit totals gives each digit's start in the tile.
//  * The tile is staged in shared memory sorted by digit, so the global writes leave in
//    contiguous runs per digit.
//  * The key transform (radix image, descending complement) is fused into the first pass's
//    loads and the last pass's stores.
//  * The partial last tile is padded with the all-ones image, which ranks after every real key
//    of the largest digit; its count is taken off that digit before publishing.

#ifndef ITEMS
#error "ITEMS (keys per thread) must be defined"
#endif
#ifndef RADIX_BITS
#error "RADIX_BITS must be defined"
#endif
#define RADIX (1 << RADIX_BITS)
#define TILE (THREADS * ITEMS)
#define WARP_ITEMS (WARP_THREADS * ITEMS)
static_assert(THREADS >= RADIX, "one thread per digit for the look-back and the digit scan");
static_assert(RADIX_BITS <= 8, "warp counters are sized for at most 256 digits");

#if STATUS_BITS == 64
typedef u64 status_t;
#define FLAG_AGGREGATE (1ull << 62)
#define FLAG_INCLUSIVE (2ull << 62)
#define FLAG_MASK (3ull << 62)
#elif STATUS_BITS == 32
typedef u32 status_t;
#define FLAG_AGGREGATE (1u << 30)
#define FLAG_INCLUSIVE (2u << 30)
#define FLAG_MASK (3u << 30)
#else
#error "STATUS_BITS must be 32 or 64"
#endif

__device__ __forceinline__ key_t transform_in(key_t k, u32 desc) {
    key_t r = to_radix(k);
    return desc ? (key_t)~r : r;
}
__device__ __forceinline__ key_t transform_out(key_t r, u32 desc) {
    return from_radix(desc ? (key_t)~r : r);
}

__device__ __forceinline__ status_t load_status(const status_t *p) {
    return *(volatile const status_t *)p;
}
__device__ __forceinline__ void store_status(status_t *p, status_t v) {
    *(volatile status_t *)p = v;
}

// Histograms of every digit of every pass, in one read of the keys. hist[pass][digit].
extern "C" __global__ void __launch_bounds__(THREADS)
onesweep_histogram(const key_t *__restrict__ keys, u64 n, u32 *__restrict__ hist, u32 begin_bit,
                   u32 end_bit, u32 desc, u32 transform) {
    __shared__ u32 s_hist[(KEY_BITS + RADIX_BITS - 1) / RADIX_BITS][RADIX];
    const u32 passes = (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS;
    for (u32 i = threadIdx.x; i < passes * RADIX; i += THREADS) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += (u64)gridDim.x * THREADS) {
        key_t k = keys[i];
        if (transform) k = transform_in(k, desc);
        for (u32 p = 0; p < passes; p++) {
            u32 shift = begin_bit + p * RADIX_BITS;
            u32 w = min((u32)RADIX_BITS, end_bit - shift);
            atomicAdd(&s_hist[p][digit_of(k, shift, (1u << w) - 1)], 1u);
        }
    }
    __syncthreads();
    for (u32 i = threadIdx.x; i < passes * RADIX; i += THREADS) {
        u32 c = (&s_hist[0][0])[i];
        if (c) atomicAdd(&hist[i], c);
    }
}

// Exclusive scan of each pass's digit counts, in place: one block per pass.
extern "C" __global__ void __launch_bounds__(THREADS) onesweep_scan_histogram(u32 *hist) {
    __shared__ u32 s_ws[NUM_WARPS];
    u32 *h = hist + blockIdx.x * RADIX;
    u32 c = threadIdx.x < RADIX ? h[threadIdx.x] : 0;
    u32 total;
    u32 e = block_exclusive_scan(c, s_ws, total);
    if (threadIdx.x < RADIX) h[threadIdx.x] = e;
}

extern "C" __global__ void __launch_bounds__(THREADS)
onesweep_pass(const key_t *__restrict__ keys_in, key_t *__restrict__ keys_out,
              const value_t *__restrict__ vals_in, value_t *__restrict__ vals_out,
              status_t *__restrict__ status, status_t *__restrict__ status_next,
              u32 *__restrict__ tile_counter, const u32 *__restrict__ digit_offsets, u64 n,
              u32 shift, u32 bits, u32 num_tiles, u32 desc, u32 first, u32 last, u32 iota) {
    __shared__ union {
        key_t keys[TILE];
        u32 warp_hist[NUM_WARPS][RADIX];
    } s;
#if HAS_VALUES
    __shared__ value_t s_vals[TILE];
#endif
    __shared__ u32 s_digit_start[RADIX];
    __shared__ u32 s_out_base[RADIX];
    __shared__ u32 s_ws[NUM_WARPS];
    __shared__ u32 s_tile;

    const u32 tid = threadIdx.x;
    const u32 lane = lane_id();
    const u32 warp = warp_id();
    const u32 mask = (1u << bits) - 1;

    if (tid == 0) s_tile = atomicAdd(tile_counter, 1u);
    for (u32 i = lane; i < RADIX; i += WARP_THREADS) s.warp_hist[warp][i] = 0;
    __syncthreads();
    const u32 tile = s_tile;
    const u64 base = (u64)tile * TILE;
    const u32 valid = (u32)min((u64)TILE, n - base);

    // Clear this tile's status words for the next pass (that pass runs after this kernel).
    for (u32 d = tid; d < RADIX; d += THREADS) status_next[(u64)tile * RADIX + d] = 0;

    // Load: warp w owns positions [w * WARP_ITEMS, (w + 1) * WARP_ITEMS), striped by lane.
    key_t k[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 p = warp * WARP_ITEMS + j * WARP_THREADS + lane;
        if (p < valid) {
            key_t x = keys_in[base + p];
            k[j] = first ? transform_in(x, desc) : x;
        } else {
            k[j] = KEY_ALL_ONES;
        }
    }

    // Rank within the warp: peers with the same digit in this round, plus earlier rounds.
    u32 rank[ITEMS];
    const u32 lt = (1u << lane) - 1;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 d = digit_of(k[j], shift, mask);
        u32 peers = __match_any_sync(FULL_MASK, d);
        u32 prior = s.warp_hist[warp][d];
        __syncwarp();
        if ((peers & lt) == 0) s.warp_hist[warp][d] = prior + __popc(peers);
        __syncwarp();
        rank[j] = prior + __popc(peers & lt);
    }
    __syncthreads();

    // Per digit: warp-exclusive prefixes, the tile's count, publish, scan, look back.
    u32 count = 0;
    if (tid < RADIX) {
#pragma unroll
        for (int w = 0; w < NUM_WARPS; w++) {
            u32 c = s.warp_hist[w][tid];
            s.warp_hist[w][tid] = count;
            count += c;
        }
        if (tid == mask) count -= TILE - valid;  // padding
        if (tid <= mask)
            store_status(&status[(u64)tile * RADIX + tid],
                         (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | (status_t)count);
    }
    u32 total;
    u32 start = block_exclusive_scan(count, s_ws, total);
    if (tid <= mask) {
        status_t excl = 0;
        if (tile > 0) {
            for (i64 t = (i64)tile - 1; t >= 0; t--) {
                status_t st;
                do {
                    st = load_status(&status[(u64)t * RADIX + tid]);
                } while ((st & FLAG_MASK) == 0);
                excl += st & ~FLAG_MASK;
                if (st & FLAG_INCLUSIVE) break;
            }
            store_status(&status[(u64)tile * RADIX + tid], FLAG_INCLUSIVE | (excl + count));
        }
        s_digit_start[tid] = start;
        // Destination of tile position p with this digit: out_base + p (wrapping u32 math).
        s_out_base[tid] = digit_offsets[tid] + (u32)excl - start;
    }
    __syncthreads();

    u32 pos[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 d = digit_of(k[j], shift, mask);
        pos[j] = s_digit_start[d] + s.warp_hist[warp][d] + rank[j];
    }
    __syncthreads();  // warp_hist is about to be overwritten by the keys
#pragma unroll
    for (int j = 0; j < ITEMS; j++) s.keys[pos[j]] = k[j];
    __syncthreads();

    // Scatter in tile order: consecutive threads write consecutive slots of a digit's run.
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 p = j * THREADS + tid;
        if (p < valid) {
            key_t x = s.keys[p];
            u32 dst = s_out_base[digit_of(x, shift, mask)] + p;
            keys_out[dst] = last ? transform_out(x, desc) : x;
        }
    }
#if HAS_VALUES
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 p = warp * WARP_ITEMS + j * WARP_THREADS + lane;
        if (p < valid) {
#if VALUE_BYTES == 4 || VALUE_BYTES == 8
            // argsort: the first pass makes the value the key's input index.
            value_t v = iota ? (value_t)(base + p) : vals_in[base + p];
#else
            value_t v = vals_in[base + p];
#endif
            s_vals[pos[j]] = v;
        }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 p = j * THREADS + tid;
        if (p < valid) {
            u32 dst = s_out_base[digit_of(s.keys[p], shift, mask)] + p;
            vals_out[dst] = s_vals[p];
        }
    }
#endif
}
