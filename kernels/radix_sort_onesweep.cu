// histosort's production LSD radix sort, after the "onesweep" design (Adinets & Merrill,
// 2022) that CUB uses: one up-front pass builds the histograms of every digit, then ONE kernel
// per digit ranks, counts and scatters, with tile offsets found by a decoupled look-back
// (chained scan) instead of a separate histogram-scan-scatter round trip. Per digit the keys
// are read once and written once.
//
//  * Tiles are numbered in the order blocks start (an atomic counter), so a block only ever
//    waits on tiles whose blocks are already running: the look-back cannot deadlock.
//  * Ranking: each warp owns a contiguous segment of the tile and first counts its digits
//    (warp-private counters in shared memory, one atomic per key); the tile publishes its
//    counts at once ("early counts"), and a block-wide scan of the per-digit totals gives each
//    warp's start per digit. The warps then rank their keys (warp-level multisplit: peers by
//    ballots) against those counters, which gives every key its position in the tile.
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
#ifndef RANK_BALLOT
#error "RANK_BALLOT (1: find a digit's peers by ballots, 0: by __match_any_sync) must be defined"
#endif
#ifndef LOOKBACK
#error "LOOKBACK (status words read per look-back step) must be defined"
#endif
#ifndef PREFETCH_AHEAD
#error "PREFETCH_AHEAD (the pass kernel's L2 prefetch distance in tiles, 0 for none) must be defined"
#endif
#ifndef VALUES_LATE
#error "VALUES_LATE (2: pairs load their values after the look-back, 0: before) must be defined"
#endif
// (Value 1, which staged the late values before the keys left, measured slower than 2 in every
// case of session 6 and was removed; 2 keeps its name so the recorded runs still read right.)
static_assert(VALUES_LATE == 0 || VALUES_LATE == 2, "VALUES_LATE is 0 or 2");
#ifndef PASS_SMEM_BYTES
#error "PASS_SMEM_BYTES (the pass kernel's dynamic shared memory, from the host) must be defined"
#endif
static_assert(LOOKBACK >= 1 && LOOKBACK <= 16, "LOOKBACK is 1 to 16 words per step");
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


__device__ __forceinline__ status_t load_status(const status_t *p) {
    return *(volatile const status_t *)p;
}
__device__ __forceinline__ void store_status(status_t *p, status_t v) {
    *(volatile status_t *)p = v;
}

// Histograms of the digits of every pass, hist[pass][digit], with lane-private counters (as the
// byte histogram's `hist_lane_private`): the counter of (pass p, digit d) for lane l sits at
// s[(p * RADIX + d) * 32 + l], so a warp's 32 atomics always fall in 32 different banks whatever
// the digits (4 sub-histograms per block paid ~3.5 conflicts per atomic on uniform keys). That
// table is 32 KiB per pass: one launch counts `npasses` (1 to LANES_PASSES, as many as the
// device's shared memory holds) passes from pass `pass0`, in one block of LANES_THREADS per SM. Keys are
// read 16 bytes at a time from the first 16-byte boundary; the keys before it and the tail
// after the last whole vector are counted one by one by block 0.
#if !defined(LANES_THREADS) || !defined(LANES_PASSES)
#error "LANES_THREADS and LANES_PASSES (the lane-private digit histogram's shape) must be defined"
#endif
static_assert(LANES_PASSES == 4, "count_lanes dispatches 1 to 4 passes");
#define LANES_VEC (sizeof(key_t) >= 16 ? 1 : 16 / sizeof(key_t))
union KeyVec {
    uint4 v[(sizeof(key_t) + 15) / 16];
    key_t k[LANES_VEC];
};

template <int NP>
__device__ __forceinline__ void count_key_lanes(u32 *col, key_t k, const u32 (&shift)[LANES_PASSES],
                                                const u32 (&mask)[LANES_PASSES], u32 desc,
                                                u32 transform) {
    const key_t x = transform ? key_in(k, desc) : k;
#pragma unroll
    for (int p = 0; p < NP; p++)
        atomicAdd(&col[(p * RADIX + digit_of(x, shift[p], mask[p])) * WARP_THREADS], 1u);
}

// The counting loop for NP passes (a compile-time count, so the loop has no per-pass tests).
template <int NP>
__device__ __forceinline__ void count_lanes(u32 *col, const key_t *keys, u64 n,
                                            const u32 (&shift)[LANES_PASSES],
                                            const u32 (&mask)[LANES_PASSES], u32 desc,
                                            u32 transform) {
    const u64 addr = (u64)keys;
    const u64 head = min(n, (u64)(((16 - addr % 16) % 16) / sizeof(key_t)));
    const KeyVec *vec = (const KeyVec *)(keys + head);
    const u64 nvec = (n - head) / LANES_VEC;
    const u64 stride = (u64)gridDim.x * LANES_THREADS;
    u64 i = (u64)blockIdx.x * LANES_THREADS + threadIdx.x;
    // Two vectors per step, the next step's two loaded before this step's are counted, so the
    // loads of one step fly while the atomics of the previous one run.
    KeyVec a, b;
    if (i < nvec) a = vec[i];
    if (i + stride < nvec) b = vec[i + stride];
    for (; i < nvec; i += 2 * stride) {
        const u64 next = i + 2 * stride;
        KeyVec na = a, nb = b;
        if (next < nvec) na = vec[next];
        if (next + stride < nvec) nb = vec[next + stride];
#pragma unroll
        for (int j = 0; j < (int)LANES_VEC; j++)
            count_key_lanes<NP>(col, a.k[j], shift, mask, desc, transform);
        if (i + stride < nvec) {
#pragma unroll
            for (int j = 0; j < (int)LANES_VEC; j++)
                count_key_lanes<NP>(col, b.k[j], shift, mask, desc, transform);
        }
        a = na;
        b = nb;
    }
    if (blockIdx.x == 0) {
        // At most LANES_VEC - 1 keys on each side.
        const u64 tail = head + nvec * LANES_VEC;
        if (threadIdx.x < head)
            count_key_lanes<NP>(col, keys[threadIdx.x], shift, mask, desc, transform);
        else if (threadIdx.x >= WARP_THREADS && tail + (threadIdx.x - WARP_THREADS) < n)
            count_key_lanes<NP>(col, keys[tail + threadIdx.x - WARP_THREADS], shift, mask, desc,
                                transform);
    }
}

extern "C" __global__ void __launch_bounds__(LANES_THREADS, 1)
onesweep_histogram_lanes(const key_t *__restrict__ keys, u64 n, u32 *__restrict__ hist,
                         u32 begin_bit, u32 end_bit, u32 pass0, u32 npasses, u32 desc,
                         u32 transform) {
    // Chained launches: the keys are the sort's input, which nothing before this kernel in the
    // chain writes, so they are counted at once; only the merge into `hist` (cleared by the
    // kernel before) waits.
    launch_dependents();
    extern __shared__ u32 s_lanes[];
    const u32 words = npasses * RADIX * WARP_THREADS;
    for (u32 i = threadIdx.x; i < words; i += LANES_THREADS) s_lanes[i] = 0;
    __syncthreads();
    u32 shift[LANES_PASSES], mask[LANES_PASSES];
#pragma unroll
    for (int p = 0; p < LANES_PASSES; p++) {
        shift[p] = begin_bit + (pass0 + p) * RADIX_BITS;
        u32 w = p < npasses ? min((u32)RADIX_BITS, end_bit - shift[p]) : 0;
        mask[p] = (1u << w) - 1;
    }
    u32 *col = s_lanes + lane_id();
    switch (npasses) {
    case 1: count_lanes<1>(col, keys, n, shift, mask, desc, transform); break;
    case 2: count_lanes<2>(col, keys, n, shift, mask, desc, transform); break;
    case 3: count_lanes<3>(col, keys, n, shift, mask, desc, transform); break;
    default: count_lanes<4>(col, keys, n, shift, mask, desc, transform); break;
    }
    __syncthreads();
    grid_dependency_wait();
    // Counter (p, d) sums its 32 lane copies; thread c starts at lane c % 32 so that a warp's
    // reads fall in 32 different banks.
    for (u32 c = threadIdx.x; c < npasses * RADIX; c += LANES_THREADS) {
        u32 sum = 0;
#pragma unroll
        for (u32 l = 0; l < WARP_THREADS; l++)
            sum += s_lanes[c * WARP_THREADS + (l + c) % WARP_THREADS];
        if (sum) atomicAdd(&hist[pass0 * RADIX + c], sum);
    }
}

// Exclusive scan of each pass's digit counts, in place: one block per pass.
extern "C" __global__ void __launch_bounds__(THREADS) onesweep_scan_histogram(u32 *hist) {
    launch_dependents();
    grid_dependency_wait();
    __shared__ u32 s_ws[NUM_WARPS];
    u32 *h = hist + blockIdx.x * RADIX;
    u32 c = threadIdx.x < RADIX ? h[threadIdx.x] : 0;
    u32 total;
    u32 e = block_exclusive_scan(c, s_ws, total);
    if (threadIdx.x < RADIX) h[threadIdx.x] = e;
}

// Zeroes the digit counts and tile counters (`meta`, `meta_words` words) and the first pass's
// status words (`status_words` 32-bit words) before a sort: one launch in place of two memsets,
// and the chained histogram after it counts while it runs.
extern "C" __global__ void __launch_bounds__(256) onesweep_clear(u32 *__restrict__ meta,
                                                                 u32 meta_words,
                                                                 u32 *__restrict__ status,
                                                                 u64 status_words) {
    launch_dependents();
    const u64 stride = (u64)gridDim.x * blockDim.x;
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    // The status buffer is a whole allocation (256-byte aligned): 16-byte stores, then the tail.
    uint4 *v = (uint4 *)status;
    const u64 nv = status_words / 4;
    for (u64 i = t; i < nv; i += stride) v[i] = make_uint4(0, 0, 0, 0);
    for (u64 i = nv * 4 + t; i < status_words; i += stride) status[i] = 0;
    for (u64 i = t; i < meta_words; i += stride) meta[i] = 0;
}

// Loads of data that other blocks of the same launch wrote (the fused kernel) must not be
// served from this SM's L1 or the read-only path: .cg caches them in L2 only.
template <bool COHERENT, typename T>
__device__ __forceinline__ T load(const T *p) {
    if (!COHERENT) return *p;
    if (sizeof(T) == 16) {
        ulonglong2 v = __ldcg((const ulonglong2 *)p);
        return *(T *)&v;
    } else if (sizeof(T) == 8) {
        unsigned long long v = __ldcg((const unsigned long long *)p);
        return *(T *)&v;
    } else if (sizeof(T) == 4) {
        unsigned int v = __ldcg((const unsigned int *)p);
        return *(T *)&v;
    } else if (sizeof(T) == 2) {
        unsigned short v = __ldcg((const unsigned short *)p);
        return *(T *)&v;
    } else {
        unsigned char v = __ldcg((const unsigned char *)p);
        return *(T *)&v;
    }
}

struct TileStorage {
    key_t keys[TILE];
#if HAS_VALUES
    value_t vals[TILE];
#endif
    // Per warp and digit: first the warp's count, then the running tile position.
    u32 warp_hist[NUM_WARPS][RADIX];
    u32 out_base[RADIX];
    u32 offsets[RADIX];
    u32 ws[NUM_WARPS];
    u32 tile;
};

// The key in slot p of the staged tile to its destination, the digit's base plus p (wrapping
// u32 math), which is returned for the slot's value.
__device__ __forceinline__ u32 scatter_key(const TileStorage &st, u32 p, key_t *keys_out,
                                           u32 shift, u32 mask, u32 desc, u32 last) {
    const key_t x = st.keys[p];
    const u32 dst = st.out_base[digit_of(x, shift, mask)] + p;
    keys_out[dst] = last ? key_out(x, desc) : x;
    return dst;
}

// Slot p of the staged tile, key and value, to its destination.
__device__ __forceinline__ void scatter_slot(const TileStorage &st, u32 p, key_t *keys_out,
                                             value_t *vals_out, u32 shift, u32 mask, u32 desc,
                                             u32 last) {
    const u32 dst = scatter_key(st, p, keys_out, shift, mask, desc, last);
#if HAS_VALUES
    vals_out[dst] = st.vals[p];
#else
    (void)vals_out;
#endif
}

// The tile's values in the keys' layout (warp w's segment, striped by lane); slots past
// `valid` are left unset.
template <bool COHERENT>
__device__ __forceinline__ void load_values(value_t (&v)[ITEMS], const value_t *vals_in, u64 base,
                                            u32 valid, u32 iota) {
    const u32 first = warp_id() * WARP_ITEMS + lane_id();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const u32 p = first + j * WARP_THREADS;
        if (p < valid) {
#if VALUE_BYTES == 4 || VALUE_BYTES == 8
            // argsort: the first pass makes the value the key's input index.
            v[j] = iota ? (value_t)(base + p) : load<COHERENT>(vals_in + base + p);
#else
            (void)iota;
            v[j] = load<COHERENT>(vals_in + base + p);
#endif
        }
    }
}

// The loaded values to their staged slots, by the keys' tile positions.
__device__ __forceinline__ void stage_values(TileStorage &st, const value_t (&v)[ITEMS],
                                             const u32 (&pos)[ITEMS], u32 valid) {
#if HAS_VALUES
    const u32 first = warp_id() * WARP_ITEMS + lane_id();
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if (first + j * WARP_THREADS < valid) st.vals[pos[j]] = v[j];
#else
    (void)st;
    (void)v;
    (void)pos;
    (void)valid;
#endif
}

// One tile of one digit pass. Order of work, chosen so that the look-back rarely waits:
//   1. load the keys (warp w owns a contiguous segment, striped by lane);
//   2. count the tile's digits (one shared atomic per key into the warp's counters), publish
//      the tile's counts (AGGREGATE) and scan them into each warp's first position, so that
//      later tiles' look-backs find this tile's counts while it ranks;
//   3. rank each key among the warp's keys of its digit: ballots find the peers of one round,
//      the highest peer adds the round's count to the warp's counter with one shared atomic
//      and broadcasts the counter's old value, the key's tile position. Rounds do not wait on
//      each other (the counter is only touched by atomics, which a warp issues in order);
//   4. stage the keys in shared memory sorted by digit (this work hides the predecessors'
//      latency), then look back for the exclusive prefix of each digit over earlier tiles,
//      LOOKBACK tiles per step, and publish INCLUSIVE;
//   5. scatter: consecutive threads write consecutive slots of a digit's run.
// `offsets` holds the exclusive scan of the pass's global digit counts.
template <bool COHERENT>
__device__ __forceinline__ void onesweep_tile(TileStorage &st, const u32 tile,
                                              const key_t *keys_in, key_t *keys_out,
                                              const value_t *vals_in, value_t *vals_out,
                                              status_t *status, const u32 *offsets, u64 n,
                                              u32 shift, u32 bits, u32 desc, u32 first, u32 last,
                                              u32 iota) {
    const u32 tid = threadIdx.x;
    const u32 lane = lane_id();
    const u32 warp = warp_id();
    const u32 mask = (1u << bits) - 1;
    const u64 base = (u64)tile * TILE;
    const u32 valid = (u32)min((u64)TILE, n - base);
    const bool full = valid == TILE;

    for (u32 i = lane; i < RADIX; i += WARP_THREADS) st.warp_hist[warp][i] = 0;

    // 1. Load: warp w owns positions [w * WARP_ITEMS, (w + 1) * WARP_ITEMS), striped by lane.
    key_t k[ITEMS];
    const key_t *src = keys_in + base + warp * WARP_ITEMS + lane;
    if (full) {
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            key_t x = load<COHERENT>(src + j * WARP_THREADS);
            k[j] = first ? key_in(x, desc) : x;
        }
    } else {
        // The padding is the all-ones image, which ranks after every real key.
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            u32 p = warp * WARP_ITEMS + j * WARP_THREADS + lane;
            key_t x = p < valid ? load<COHERENT>(src + j * WARP_THREADS) : KEY_ALL_ONES;
            k[j] = first && p < valid ? key_in(x, desc) : x;
        }
    }
    __syncwarp();

    // 2. Early counts: the warp's digits counted first (one shared atomic per key), so that the
    //    tile's counts are published before the ranking and later tiles' look-backs overlap it;
    //    the counters are then seeded with each warp's start in the tile.
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        atomicAdd(&st.warp_hist[warp][digit_of(k[j], shift, mask)], 1u);
    __syncthreads();

    // Per digit: the tile's count (published at once), each warp's first position.
    u32 count = 0;
    if (tid < RADIX) {
        count = digit_total<NUM_WARPS>(&st.warp_hist[0][0], RADIX, tid);
        if (tid <= mask) {
            // The padding is all ones: it is counted under the largest digit.
            u32 real = tid == mask ? count - (TILE - valid) : count;
            store_status(&status[(u64)tile * RADIX + tid],
                         (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | (status_t)real);
        }
    }
    u32 total;
    u32 start = block_exclusive_scan(count, st.ws, total);
    if (tid < RADIX) warp_starts<NUM_WARPS>(&st.warp_hist[0][0], RADIX, tid, start);
    __syncthreads();

    // 3. Rank against the seeded counters: every key's tile position.
    u32 pos[ITEMS];
    warp_rank<RADIX_BITS>(k, pos, st.warp_hist[warp], shift, mask);
    // 4. Stage the tile sorted by digit.
#pragma unroll
    for (int j = 0; j < ITEMS; j++) st.keys[pos[j]] = k[j];
#if HAS_VALUES && !VALUES_LATE
    // The values are loaded now and staged after the look-back, whose wait hides their latency
    // (staged at once, the loads stalled every warp before its look-back).
    value_t v[ITEMS];
    load_values<COHERENT>(v, vals_in, base, valid, iota);
#endif

    // Look back over earlier tiles for this digit's exclusive prefix: LOOKBACK status words
    // per step, read at once. A tile's blocks start in tile order but progress unevenly, so
    // the nearest INCLUSIVE predecessor is often more than ten tiles back (measured: 15 steps
    // per tile on average at one word per step, 2^26 keys on an H200).
    if (tid <= mask) {
        u32 real = tid == mask ? count - (TILE - valid) : count;
        status_t excl = 0;
        if (tile > 0) {
            int t = (int)tile - 1;  // tiles number far below 2^31
            for (;;) {
                status_t w[LOOKBACK];
#pragma unroll
                for (int i = 0; i < LOOKBACK; i++)
                    w[i] = t - i >= 0 ? load_status(&status[(u64)(t - i) * RADIX + tid])
                                      : FLAG_INCLUSIVE;
                // Fold the words in order up to the first unpublished one (wait for it next
                // step) or through the first inclusive one (done), without branches. Flags:
                // 0 (unpublished: the whole word is 0), AGGREGATE (bit STATUS_BITS-2) or
                // INCLUSIVE (the top bit). `first` is the first word without the AGGREGATE
                // bit; the words up to and including it are summed with their flags, the
                // AGGREGATE flags (one per word before `first`) are subtracted, and the top bit
                // of what is left says whether word `first` was inclusive (the counts stay
                // below 2^(STATUS_BITS-2), so they never carry into the flags). Tile 0 is
                // always inclusive, so the filler above is never folded.
                u32 agg = 0;
#pragma unroll
                for (int i = 0; i < LOOKBACK; i++)
                    agg |= (u32)(w[i] >> (STATUS_BITS - 2 - i)) & (1u << i);
                const u32 first = __ffs(~agg) - 1;  // <= LOOKBACK: agg < 2^LOOKBACK
                status_t sum = 0;
#pragma unroll
                for (int i = 0; i < LOOKBACK; i++) sum += (u32)i <= first ? w[i] : 0;
                sum -= (status_t)first << (STATUS_BITS - 2);
                const u32 done = (u32)(sum >> (STATUS_BITS - 1));
                excl += sum & ~FLAG_MASK;
                t -= (int)(first + done);
                if (done) break;
            }
            store_status(&status[(u64)tile * RADIX + tid], FLAG_INCLUSIVE | (excl + real));
        }
        // Destination of tile position p with this digit: out_base + p (wrapping u32 math).
        st.out_base[tid] = offsets[tid] + (u32)excl - start;
    }
#if HAS_VALUES && !VALUES_LATE
    stage_values(st, v, pos, valid);
#endif
    __syncthreads();

#if HAS_VALUES && VALUES_LATE
    // 5'. Values loaded only now, so that no value register lives through the look-back: the
    //    loads fly while the keys leave (each slot's destination kept), then the values are
    //    staged by rank and leave.
    value_t v[ITEMS];
    load_values<COHERENT>(v, vals_in, base, valid, iota);
    u32 dst[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const u32 p = j * THREADS + tid;
        if (full || p < valid) dst[j] = scatter_key(st, p, keys_out, shift, mask, desc, last);
    }
    stage_values(st, v, pos, valid);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const u32 p = j * THREADS + tid;
        if (full || p < valid) vals_out[dst[j]] = st.vals[p];
    }
#else
    // 5. Scatter in tile order; a slot's value leaves with its key, to the destination found
    //    once (a separate value loop re-read the key and its digit's base: 2 more shared loads
    //    and the digit arithmetic per value).
    if (full) {
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            scatter_slot(st, j * THREADS + tid, keys_out, vals_out, shift, mask, desc, last);
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            u32 p = j * THREADS + tid;
            if (p < valid) scatter_slot(st, p, keys_out, vals_out, shift, mask, desc, last);
        }
    }
#endif
    __syncthreads();  // the storage is reused by the caller's next tile or pass
}

#ifndef PASS_MIN_BLOCKS
#error "PASS_MIN_BLOCKS (the pass kernel's minimum resident blocks per SM) must be defined"
#endif
extern "C" __global__ void __launch_bounds__(THREADS, PASS_MIN_BLOCKS)
onesweep_pass(const key_t *__restrict__ keys_in, key_t *__restrict__ keys_out,
              const value_t *__restrict__ vals_in, value_t *__restrict__ vals_out,
              status_t *__restrict__ status, status_t *__restrict__ status_next,
              u32 *__restrict__ tile_counter, const u32 *__restrict__ digit_offsets, u64 n,
              u32 shift, u32 bits, u32 num_tiles, u32 desc, u32 first, u32 last, u32 iota) {
    // Dynamic shared memory: tiles larger than the 48 KiB of static storage (the host opts in).
    extern __shared__ __align__(16) unsigned char s_pass[];
    static_assert(sizeof(TileStorage) <= PASS_SMEM_BYTES, "the host's PASS_SMEM_BYTES is too small");
    TileStorage &st = *reinterpret_cast<TileStorage *>(s_pass);
    // Chained launches: this block is resident before the previous kernel (pass, digit scan)
    // ends; it waits for it before taking a ticket (the counter is cleared at the start of the
    // chain, which may still be running) and before any global access. Every block lets the next
    // pass launch at once: that pass's blocks wait in turn, on SMs this pass no longer needs.
    launch_dependents();
    grid_dependency_wait();
    if (threadIdx.x == 0) {
        const u32 t = atomicAdd(tile_counter, 1u);
        st.tile = t;
#if PREFETCH_AHEAD > 0
        // The tile PREFETCH_AHEAD tickets on (a block that starts later will take it) is
        // brought into L2 now, so that its block's loads wait on L2, not on DRAM.
        const u32 ahead = t + PREFETCH_AHEAD;
        if (ahead < num_tiles) {
            const u64 b = (u64)ahead * TILE;
            const u64 cnt = min((u64)TILE, n - b);
            prefetch_l2(keys_in + b, cnt * sizeof(key_t));
#if HAS_VALUES
            if (!iota) prefetch_l2(vals_in + b, cnt * sizeof(value_t));
#endif
        }
#endif
    }
    __syncthreads();
    const u32 tile = st.tile;
    // Clear this tile's status words for the next pass (that pass runs after this kernel).
    for (u32 d = threadIdx.x; d < RADIX; d += THREADS) status_next[(u64)tile * RADIX + d] = 0;
    onesweep_tile<false>(st, tile, keys_in, keys_out, vals_in, vals_out, status, digit_offsets, n,
                         shift, bits, desc, first, last, iota);
}

// (Only where its tile fits the 48 KiB of static shared memory. The host builds it with 256
// threads of at most the narrow tile's keys; a pass module whose tile also fits, such as the
// keys' 256x28, compiles one too, unused.)
#if STATUS_BITS == 32 && (KEY_BITS + RADIX_BITS - 1) / RADIX_BITS <= NUM_WARPS && \
    THREADS * ITEMS * (KEY_BITS / 8 + VALUE_BYTES) + (NUM_WARPS + 2) * RADIX * 4 + 256 <= 48 * 1024
#define HAS_FUSED 1
// The passes of a full key (at most 8: the kernel is built for keys of up to 64 bits).
#define FUSED_PASSES_MAX ((KEY_BITS + RADIX_BITS - 1) / RADIX_BITS)
// A barrier across the whole grid. Every block must be resident (cooperative launch). The last
// block to arrive resets the counter to zero and then advances the generation, which the others
// wait on, so the counter is zero again after every barrier and no launch has to clear it.
__device__ __forceinline__ void grid_barrier(u32 *counter, u32 *generation) {
    __syncthreads();
    if (threadIdx.x == 0) {
        // The generation is read before arriving: it cannot advance until this block arrives.
        const u32 g = *(volatile u32 *)generation;
        __threadfence();
        if (atomicAdd(counter, 1u) == gridDim.x - 1) {
            *(volatile u32 *)counter = 0;
            __threadfence();
            atomicAdd(generation, 1u);
        } else {
            while (*(volatile u32 *)generation == g) __nanosleep(64);
        }
        __threadfence();
    }
    __syncthreads();
}

// The whole sort in one cooperative launch, for inputs small enough that every tile's block
// is resident at once (the case where CUB pays for many launches): histogram every digit,
// then per active digit a onesweep pass, with grid barriers instead of kernel boundaries.
// `meta` holds: [0] the barrier counter, [1] its generation, then passes * RADIX counts, then
// passes * num_tiles * RADIX status words (32-bit: these sorts are far below 2^30 keys). All
// but the generation must be zero at the start, and the kernel leaves them zero at its end, so
// the host clears `meta` once, when it allocates it, instead of before every launch.
// Three resident blocks per SM (at most 85 registers) let 2^20 u32 keys (273 tiles) run in
// one launch on 132 SMs.
extern "C" __global__ void __launch_bounds__(THREADS, 3)
onesweep_fused(const key_t *keys_in, key_t *keys_out, const value_t *vals_in, value_t *vals_out,
               key_t *tmp_keys0, key_t *tmp_keys1, value_t *tmp_vals0, value_t *tmp_vals1,
               u32 *meta, u64 n, u32 begin_bit, u32 end_bit, u32 desc, u32 iota, u32 in_place) {
    __shared__ TileStorage st;
    const u32 passes = (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS;
    u32 *barrier = meta, *generation = meta + 1;
    u32 *hist = meta + 2;
    status_t *status = (status_t *)(hist + passes * RADIX);
    const u32 tiles = gridDim.x;
    const u32 tile = blockIdx.x;  // all blocks are resident: no need for an atomic ticket
    const u64 base = (u64)tile * TILE;
    const u32 valid = (u32)min((u64)TILE, n - base);

    // Phase 0: this tile's digits of every pass, into the global counts.
    {
        u32 *sh = &st.warp_hist[0][0];  // NUM_WARPS * RADIX >= passes * RADIX is asserted below
        for (u32 i = threadIdx.x; i < passes * RADIX; i += THREADS) sh[i] = 0;
        __syncthreads();
        for (u32 i = threadIdx.x; i < valid; i += THREADS) {
            key_t k = key_in(keys_in[base + i], desc);
            for (u32 p = 0; p < passes; p++) {
                u32 shift = begin_bit + p * RADIX_BITS;
                u32 w = min((u32)RADIX_BITS, end_bit - shift);
                atomicAdd(&sh[p * RADIX + digit_of(k, shift, (1u << w) - 1)], 1u);
            }
        }
        __syncthreads();
        for (u32 i = threadIdx.x; i < passes * RADIX; i += THREADS)
            if (sh[i]) atomicAdd(&hist[i], sh[i]);
    }
    grid_barrier(barrier, generation);

    // Which passes do anything: a digit shared by every key leaves the order as it is. The
    // counts of every pass are read once, here (thread d keeps digit d's), so every block takes
    // the same decisions and no block reads the counts past this point.
    u32 c[FUSED_PASSES_MAX];
#pragma unroll
    for (u32 p = 0; p < FUSED_PASSES_MAX; p++)
        c[p] = threadIdx.x < RADIX && p < passes ? __ldcg(&hist[p * RADIX + threadIdx.x]) : 0;
    u32 active = 0, active_mask = 0, first_active = passes, last_active = 0;
#pragma unroll
    for (u32 p = 0; p < FUSED_PASSES_MAX; p++) {
        if (p >= passes || __syncthreads_or(c[p] == n)) continue;
        active++;
        active_mask |= 1u << p;
        first_active = min(first_active, p);
        last_active = p;
    }
    const key_t *src_k = keys_in;
    const value_t *src_v = vals_in;
    u32 done = 0;
    for (u32 p = 0; p < passes; p++) {
        if (!(active_mask >> p & 1)) continue;
        u32 cp = 0;
#pragma unroll
        for (u32 q = 0; q < FUSED_PASSES_MAX; q++) cp = q == p ? c[q] : cp;
        // The pass's digit offsets: an exclusive scan of its counts, in every block.
        u32 total;
        u32 e = block_exclusive_scan(cp, st.ws, total);
        if (threadIdx.x < RADIX) st.offsets[threadIdx.x] = e;
        __syncthreads();
        const u32 shift = begin_bit + p * RADIX_BITS;
        const u32 w = min((u32)RADIX_BITS, end_bit - shift);
        const bool is_last = p == last_active;
        const bool direct = is_last && !(in_place && active == 1);
        key_t *dst_k = direct ? keys_out : (done % 2 ? tmp_keys1 : tmp_keys0);
        value_t *dst_v = direct ? vals_out : (done % 2 ? tmp_vals1 : tmp_vals0);
        onesweep_tile<true>(st, tile, src_k, dst_k, src_v, dst_v, status + (u64)p * tiles * RADIX,
                            st.offsets, n, shift, w, desc, p == first_active, is_last,
                            iota && p == first_active);
        grid_barrier(barrier, generation);
        src_k = dst_k;
        src_v = dst_v;
        done++;
    }
    // Leave `meta` zeroed for the next launch: past the last barrier no block reads the counts
    // or the status words (with no active pass, one more barrier ends the reads above). Each
    // block clears its own status words; block 0 the counts.
    if (active == 0) grid_barrier(barrier, generation);
    for (u32 i = threadIdx.x; i < passes * RADIX; i += THREADS) {
        status[(u64)(i / RADIX) * tiles * RADIX + (u64)tile * RADIX + i % RADIX] = 0;
        if (tile == 0) hist[i] = 0;
    }
    if (active == 0) {
        // The stable sort is the identity: copy this block's tile.
        for (u32 i = threadIdx.x; i < valid; i += THREADS) {
            keys_out[base + i] = keys_in[base + i];
#if HAS_VALUES
#if VALUE_BYTES == 4 || VALUE_BYTES == 8
            vals_out[base + i] = iota ? (value_t)(base + i) : vals_in[base + i];
#else
            vals_out[base + i] = vals_in[base + i];
#endif
#endif
        }
    } else if (src_k != keys_out) {
        // In place with a single pass: the result went to a temporary, copy it back.
        for (u32 i = threadIdx.x; i < valid; i += THREADS) {
            keys_out[base + i] = load<true>(src_k + base + i);
#if HAS_VALUES
            vals_out[base + i] = load<true>(src_v + base + i);
#endif
        }
    }
}
#endif  // fused kernel: 32-bit status words, phase-0 histogram fits the warp counters
