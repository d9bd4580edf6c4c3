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
#ifndef FREE_RANK_SKEW
#error "FREE_RANK_SKEW (free ranking only where no digit holds more than 1/FREE_RANK_SKEW of a tile) must be defined"
#endif
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
// table is 32 KiB per pass: a block counts up to LANES_PASSES passes (as many as the device's
// shared memory holds), in blocks of LANES_THREADS, one wave of them. Keys are read 16 bytes at
// a time from the first 16-byte boundary; the keys before it and the tail after the last whole
// vector are counted one by one by the blocks of slice 0.
#if !defined(LANES_THREADS) || !defined(LANES_PASSES) || !defined(LANES_MIN_BLOCKS)
#error "LANES_THREADS, LANES_PASSES and LANES_MIN_BLOCKS (the digit histogram's shape) must be defined"
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
// The block reads slice `slice` of `slices` (the keys' vectors strided over the slices).
template <int NP>
__device__ __forceinline__ void count_lanes(u32 *col, const key_t *keys, u64 n,
                                            const u32 (&shift)[LANES_PASSES],
                                            const u32 (&mask)[LANES_PASSES], u32 desc,
                                            u32 transform, u32 slice, u32 slices) {
    const u64 addr = (u64)keys;
    const u64 head = min(n, (u64)(((16 - addr % 16) % 16) / sizeof(key_t)));
    const KeyVec *vec = (const KeyVec *)(keys + head);
    const u64 nvec = (n - head) / LANES_VEC;
    const u64 stride = (u64)slices * LANES_THREADS;
    u64 i = (u64)slice * LANES_THREADS + threadIdx.x;
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
    if (slice == 0) {
        // At most LANES_VEC - 1 keys on each side.
        const u64 tail = head + nvec * LANES_VEC;
        if (threadIdx.x < head)
            count_key_lanes<NP>(col, keys[threadIdx.x], shift, mask, desc, transform);
        else if (threadIdx.x >= WARP_THREADS && tail + (threadIdx.x - WARP_THREADS) < n)
            count_key_lanes<NP>(col, keys[tail + threadIdx.x - WARP_THREADS], shift, mask, desc,
                                transform);
    }
}

// Counts passes [pass0, pass0 + npasses) in `groups` groups of `per_group` (at most
// LANES_PASSES; the last group may have fewer): block b counts group b % groups over slice
// b / groups of the keys. The host launches one wave (every block resident), so the blocks of
// a slice read the same keys at about the same time, and the L2 serves all but the first of
// them: one read of the keys from memory for all the passes (64-bit keys: 8 passes in 2
// groups of 4).
extern "C" __global__ void __launch_bounds__(LANES_THREADS, LANES_MIN_BLOCKS)
onesweep_histogram_lanes(const key_t *__restrict__ keys, u64 n, u32 *__restrict__ hist,
                         u32 begin_bit, u32 end_bit, u32 pass0, u32 npasses, u32 desc,
                         u32 transform, u32 groups, u32 per_group) {
    // Chained launches: the keys are the sort's input, which nothing before this kernel in the
    // chain writes, so they are counted at once; only the merge into `hist` (cleared by the
    // kernel before) waits.
    launch_dependents();
    const u32 group = blockIdx.x % groups;
    pass0 += group * per_group;
    npasses = min(npasses - group * per_group, per_group);
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
    const u32 slice = blockIdx.x / groups, slices = gridDim.x / groups;
    switch (npasses) {
    case 1: count_lanes<1>(col, keys, n, shift, mask, desc, transform, slice, slices); break;
    case 2: count_lanes<2>(col, keys, n, shift, mask, desc, transform, slice, slices); break;
    case 3: count_lanes<3>(col, keys, n, shift, mask, desc, transform, slice, slices); break;
    default: count_lanes<4>(col, keys, n, shift, mask, desc, transform, slice, slices); break;
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
// status words (`status_words` 32-bit words; `status2_words` more at `status2`, where a later
// pass needs words that no pass before it clears) before a sort: one launch in place of several
// memsets, and the chained histogram after it counts while it runs.
extern "C" __global__ void __launch_bounds__(256) onesweep_clear(u32 *__restrict__ meta,
                                                                 u32 meta_words,
                                                                 u32 *__restrict__ status,
                                                                 u64 status_words,
                                                                 u32 *__restrict__ status2,
                                                                 u64 status2_words) {
    launch_dependents();
    const u64 stride = (u64)gridDim.x * blockDim.x;
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    // The status ranges start 16-byte aligned (a whole allocation, or whole tiles into one):
    // 16-byte stores, then the tail.
    uint4 *v = (uint4 *)status;
    const u64 nv = status_words / 4;
    for (u64 i = t; i < nv; i += stride) v[i] = make_uint4(0, 0, 0, 0);
    for (u64 i = nv * 4 + t; i < status_words; i += stride) status[i] = 0;
    for (u64 i = t; i < status2_words; i += stride) status2[i] = 0;
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

// Packed pairs (PACKED 1): a pair sort of 32-bit keys and 32-bit values runs as a sort of
// 64-bit elements, the key's radix image in the low half and the value in the high half, on
// bits [0, 32): one 8-byte element per slot moves faster through a pass than a 4-byte key and
// a 4-byte value in two arrays (one load and one scattered run per digit instead of two). The
// module is the u64 keys' (KEY_BITS 64, KEY_KIND 0, no values); the first pass loads the two
// input arrays and packs them (PACKED_KIND: the key's kind, 0 unsigned, 1 signed, 2 float), the
// last pass writes the two output arrays. Passes in between sort plain 64-bit elements.
#ifndef PACKED
#define PACKED 0
#endif
#if PACKED
static_assert(KEY_BITS == 64 && KEY_KIND == 0 && !HAS_VALUES,
              "packed pairs run in the u64 keys-only module");
#ifndef PACKED_KIND
#error "PACKED_KIND (the packed 32-bit key's kind) must be defined with PACKED"
#endif
__device__ __forceinline__ u32 packed_key_in(u32 k, u32 desc) {
#if PACKED_KIND == 1
    const u32 r = k ^ 0x80000000u;
#elif PACKED_KIND == 2
    const u32 r = (k & 0x80000000u) ? ~k : (k | 0x80000000u);
#else
    const u32 r = k;
#endif
    return desc ? ~r : r;
}
__device__ __forceinline__ u32 packed_key_out(u32 r, u32 desc) {
    r = desc ? ~r : r;
#if PACKED_KIND == 1
    return r ^ 0x80000000u;
#elif PACKED_KIND == 2
    return (r & 0x80000000u) ? (r ^ 0x80000000u) : ~r;
#else
    return r;
#endif
}
// Element i of the pair arrays as one packed element (argsort: the value is the index).
template <bool COHERENT>
__device__ __forceinline__ key_t packed_load(const key_t *keys_in, const value_t *vals_in, u64 i,
                                             u32 desc, u32 iota) {
    const u32 k = load<COHERENT>(reinterpret_cast<const u32 *>(keys_in) + i);
    const u32 v = iota ? (u32)i : load<COHERENT>(reinterpret_cast<const u32 *>(vals_in) + i);
    return (key_t)packed_key_in(k, desc) | (key_t)v << 32;
}
#endif

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
    u32 ballots;  // the tile ranks by ballots (not free, or some digit holds > 1/FREE_RANK_SKEW)
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
#if PACKED
    // The last pass of packed pairs writes the key and the value arrays.
    const key_t x = st.keys[p];
    const u32 dst = st.out_base[digit_of(x, shift, mask)] + p;
    if (last) {
        reinterpret_cast<u32 *>(keys_out)[dst] = packed_key_out((u32)x, desc);
        reinterpret_cast<u32 *>(vals_out)[dst] = (u32)(x >> 32);
    } else {
        keys_out[dst] = x;
    }
#else
    const u32 dst = scatter_key(st, p, keys_out, shift, mask, desc, last);
#if HAS_VALUES
    vals_out[dst] = st.vals[p];
#else
    (void)vals_out;
#endif
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
// `offsets` holds the exclusive scan of the pass's global digit counts. The tile is the
// `valid` keys from `base`; its status words are those of tile number `tile`, and `seg_first`
// says that no earlier tile adds to its digits' prefixes (tile 0 of a plain pass, the first
// tile of a bucket in the hybrid sort's segmented pass).
//
// `unstable` (free ranking): the pass's order among keys of one digit does not matter (the
// first pass of a keys-only sort of whole keys, whose equal digits carry no earlier order, or
// an MSD pass that a full sort of the lower bits follows). A full tile of such a pass ranks
// each key with one more shared atomic on its digit's seeded counter, which returns the key's
// tile position in whatever order the atomics land: no ballots. Where some digit holds more
// than 1/FREE_RANK_SKEW of the tile, the lanes' atomics on one counter serialize, and the
// ballot ranking (one atomic per peer group) is taken instead; a flag set before the barrier
// after the block scan decides it. (Ranks returned by the count's own atomic and kept over the
// block scan made the pass spill, in registers, or needed one more barrier, in shared memory:
// no faster. bench/NOTES.md, sessions 18 and 19.)
template <bool COHERENT>
__device__ __forceinline__ void onesweep_tile(TileStorage &st, const u32 tile, const u64 base,
                                              const u32 valid, const bool seg_first,
                                              const key_t *keys_in, key_t *keys_out,
                                              const value_t *vals_in, value_t *vals_out,
                                              status_t *status, const u32 *offsets, u32 shift,
                                              u32 bits, u32 desc, u32 first, u32 last, u32 iota,
                                              u32 unstable) {
    const u32 tid = threadIdx.x;
    const u32 lane = lane_id();
    const u32 warp = warp_id();
    const u32 mask = (1u << bits) - 1;
    const bool full = valid == TILE;

    for (u32 i = lane; i < RADIX; i += WARP_THREADS) st.warp_hist[warp][i] = 0;
    if (tid == 0) st.ballots = HAS_VALUES || !unstable || !full;

    // 1. Load: warp w owns positions [w * WARP_ITEMS, (w + 1) * WARP_ITEMS), striped by lane.
    key_t k[ITEMS];
    const key_t *src = keys_in + base + warp * WARP_ITEMS + lane;
#if PACKED
    if (first) {
        // Packed pairs: the first pass reads the key and value arrays.
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const u32 p = warp * WARP_ITEMS + j * WARP_THREADS + lane;
            k[j] = full || p < valid ? packed_load<COHERENT>(keys_in, vals_in, base + p, desc, iota)
                                     : KEY_ALL_ONES;
        }
    } else
#endif
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
    for (int j = 0; j < ITEMS; j++) atomicAdd(&st.warp_hist[warp][digit_of(k[j], shift, mask)], 1u);
    __syncthreads();

    // Per digit: the tile's count (published at once), each warp's first position.
    u32 count = 0;
    if (tid < RADIX) {
        count = digit_total<NUM_WARPS>(&st.warp_hist[0][0], RADIX, tid);
        if (tid <= mask) {
            // The padding is all ones: it is counted under the largest digit.
            u32 real = tid == mask ? count - (TILE - valid) : count;
            store_status(&status[(u64)tile * RADIX + tid],
                         (seg_first ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | (status_t)real);
        }
    }
    u32 total;
    u32 start = block_exclusive_scan(count, st.ws, total);
    if (tid < RADIX) warp_starts<NUM_WARPS>(&st.warp_hist[0][0], RADIX, tid, start);
    // (A flag in shared memory: `__syncthreads_or` here made ptxas fail on the fused kernel.)
    if (tid < RADIX && count * FREE_RANK_SKEW > TILE) st.ballots = 1;
    __syncthreads();

    // 3. Rank against the seeded counters: every key's tile position; 4. stage the tile sorted
    //    by digit, each key as soon as it is ranked, so that its register is free from that
    //    round on (keys-only sorts keep no positions at all; ranking every key first held all
    //    keys and positions at once, at the register cap: 1-4.5% slower, session 21).
    u32 pos[ITEMS];
    if (!HAS_VALUES && !st.ballots) {
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            pos[j] = atomicAdd(&st.warp_hist[warp][digit_of(k[j], shift, mask)], 1u);
            st.keys[pos[j]] = k[j];
        }
    } else {
        warp_rank<RADIX_BITS>(k, pos, st.warp_hist[warp], shift, mask, ITEMS, st.keys);
    }
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
        if (!seg_first) {
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
              u32 shift, u32 bits, u32 num_tiles, u32 desc, u32 first, u32 last, u32 iota,
              u32 unstable) {
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
#if PACKED
            if (first) {
                // Packed pairs: the first pass reads 4-byte keys and values.
                prefetch_l2(reinterpret_cast<const u32 *>(keys_in) + b, cnt * 4);
                if (!iota) prefetch_l2(reinterpret_cast<const u32 *>(vals_in) + b, cnt * 4);
            } else {
                prefetch_l2(keys_in + b, cnt * sizeof(key_t));
            }
#else
            prefetch_l2(keys_in + b, cnt * sizeof(key_t));
#endif
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
    const u64 base = (u64)tile * TILE;
    const u32 valid = (u32)min((u64)TILE, n - base);
    onesweep_tile<false>(st, tile, base, valid, tile == 0, keys_in, keys_out, vals_in, vals_out,
                         status, digit_offsets, shift, bits, desc, first, last, iota, unstable);
}

// (Only where its tile fits the 48 KiB of static shared memory. The host builds it with 256
// threads of at most the narrow tile's keys, and takes it from the pass module where the pass
// tile is that same narrow one; other pass modules whose tile fits compile one too, unused.)
#if !PACKED && STATUS_BITS == 32 && (KEY_BITS + RADIX_BITS - 1) / RADIX_BITS <= NUM_WARPS && \
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
        onesweep_tile<true>(st, tile, base, valid, tile == 0, src_k, dst_k, src_v, dst_v,
                            status + (u64)p * tiles * RADIX, st.offsets, shift, w, desc,
                            p == first_active, is_last, iota && p == first_active, 0);
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

// ---------------------------------------------------------------------------------------------
// The hybrid sort (MSD first, then LSD inside small buckets), after Stehle & Jacobsen, "A
// Memory Bandwidth-Efficient Hybrid Radix Sort on GPUs" (SIGMOD 2017). A plain LSD sort of
// 32-bit keys reads and writes every key four times, in scattered runs; the hybrid does it
// three times, and the last time in contiguous runs:
//   1. `hybrid_histogram16`: the histogram of the keys' top 16 bits (65536 buckets), one read;
//   2. `hybrid_scan16`: their exclusive scan (every bucket's place in the output), the top 8
//      bits' offsets, the segmented pass's tiles per top-8 bucket, and the largest chunk;
//   3. a onesweep pass on the top 8 bits (`onesweep_pass`, offsets from step 2);
//   4. `onesweep_pass_segmented`: a onesweep pass on the next 8 bits inside each top-8 bucket
//      (tiles never straddle two buckets; each bucket's first tile starts its look-back chain);
//   5. `hybrid_local_sort`: one block per chunk of 2^chunk_log2 consecutive 16-bit buckets loads
//      it into shared memory, sorts it by its low bits (LSD passes in shared memory) and writes
//      it out in one contiguous run.
// The host takes it only where every chunk fits a block (it reads the largest chunk after
// step 2) and otherwise runs the LSD sort.
#if defined(HYBRID_LOCAL_ITEMS) && KEY_BITS >= 32 && KEY_BITS <= 64
#ifndef HYBRID_LOCAL_THREADS
#error "HYBRID_LOCAL_THREADS must be defined with HYBRID_LOCAL_ITEMS"
#endif
#define HYBRID_BUCKETS 65536u
#define HYBRID_HIST_THREADS 1024
// Word offsets in the hybrid's meta buffer (u32 words): the bucket counts (left zeroed by the
// scan for the next sort), their exclusive scan, the top-8 offsets, the segmented pass's first
// tile per top-8 bucket (257 words: the last is the tile count), the largest chunk, the two
// passes' tile counters, and the offsets of the next 8 bits (bits 16-23 of a 32-bit key) over
// all the keys (packed pairs' MSD passes run in LSD order: those bits, then the top 8).
#define HYB_COUNTS 0u
#define HYB_OFFSETS 65536u
#define HYB_TOP8 131072u
#define HYB_TILE_START 131328u
#define HYB_MAX_CHUNK 131585u
#define HYB_COUNTERS 131586u
#define HYB_MID8 131588u
#define HYB_WORDS 131844u

__device__ __forceinline__ u32 top16(key_t x) { return (u32)(x >> (KEY_BITS - 16)); }

// Counts one key's bucket (radix image taken with `desc`).
__device__ __forceinline__ void hybrid_count_key(u32 *s, u32 *counts, key_t k, u32 desc) {
    count16(s, counts, top16(key_in(k, desc)), 1);
}

extern "C" __global__ void __launch_bounds__(HYBRID_HIST_THREADS, 1)
hybrid_histogram16(const key_t *__restrict__ keys, u64 n, u32 *__restrict__ meta, u32 desc) {
    // Chained: the keys are the sort's input and the counts were left zeroed by the previous
    // sort's scan, so nothing here waits; the wait before the merge keeps the chain's order.
    launch_dependents();
    extern __shared__ u32 s_words16[];
    u32 *counts = meta + HYB_COUNTS;
    for (u32 i = threadIdx.x; i < HYBRID_BUCKETS / 2; i += HYBRID_HIST_THREADS) s_words16[i] = 0;
    __syncthreads();
    const u64 addr = (u64)keys;
    const u64 head = min(n, (u64)(((16 - addr % 16) % 16) / sizeof(key_t)));
    const uint4 *vec = (const uint4 *)(keys + head);
    const u32 per = 16 / sizeof(key_t);
    const u64 nvec = (n - head) / per;
    const u64 stride = (u64)gridDim.x * HYBRID_HIST_THREADS;
    u64 i = (u64)blockIdx.x * HYBRID_HIST_THREADS + threadIdx.x;
    for (; i + stride < nvec; i += 2 * stride) {
        uint4 a = __ldcs(vec + i), b = __ldcs(vec + i + stride);
        const key_t *ka = (const key_t *)&a, *kb = (const key_t *)&b;
#pragma unroll
        for (u32 j = 0; j < 16 / sizeof(key_t); j++) hybrid_count_key(s_words16, counts, ka[j], desc);
#pragma unroll
        for (u32 j = 0; j < 16 / sizeof(key_t); j++) hybrid_count_key(s_words16, counts, kb[j], desc);
    }
    for (; i < nvec; i += stride) {
        uint4 a = __ldcs(vec + i);
        const key_t *ka = (const key_t *)&a;
#pragma unroll
        for (u32 j = 0; j < 16 / sizeof(key_t); j++) hybrid_count_key(s_words16, counts, ka[j], desc);
    }
    if (blockIdx.x == 0) {
        const u64 tail = head + nvec * per;
        for (u64 t = threadIdx.x; t < head + (n - tail); t += HYBRID_HIST_THREADS)
            hybrid_count_key(s_words16, counts, keys[t < head ? t : tail + (t - head)], desc);
    }
    __syncthreads();
    grid_dependency_wait();
    for (u32 w = threadIdx.x; w < HYBRID_BUCKETS / 2; w += HYBRID_HIST_THREADS) {
        const u32 x = s_words16[w];
        if (x & 0xffffu) atomicAdd(&counts[2 * w], x & 0xffffu);
        if (x >> 16) atomicAdd(&counts[2 * w + 1], x >> 16);
    }
}

// One block of 1024 threads, 64 buckets each. `tile` is the segmented pass's tile; chunks are
// 2^chunk_log2 consecutive buckets.
#define HYB_SCAN_THREADS 1024
#define HYB_SCAN_PER (HYBRID_BUCKETS / HYB_SCAN_THREADS)
extern "C" __global__ void __launch_bounds__(HYB_SCAN_THREADS, 1)
hybrid_scan16(u32 *__restrict__ meta, u64 n, u32 tile, u32 chunk_log2, u32 mid8) {
    launch_dependents();
    grid_dependency_wait();
    __shared__ u32 s_ws[HYB_SCAN_THREADS / WARP_THREADS];
    __shared__ u32 s_max;
    u32 *counts = meta + HYB_COUNTS;
    u32 *offsets = meta + HYB_OFFSETS;
    const u32 t = threadIdx.x;
    u32 c[HYB_SCAN_PER];
    u32 sum = 0;
    const uint4 *cv = (const uint4 *)(counts + t * HYB_SCAN_PER);
#pragma unroll
    for (u32 j = 0; j < HYB_SCAN_PER / 4; j++) {
        uint4 v = __ldcg(cv + j);
        c[4 * j] = v.x;
        c[4 * j + 1] = v.y;
        c[4 * j + 2] = v.z;
        c[4 * j + 3] = v.w;
    }
#pragma unroll
    for (u32 j = 0; j < HYB_SCAN_PER; j++) sum += c[j];
    u32 total;
    u32 run = block_exclusive_scan_warps<HYB_SCAN_THREADS / WARP_THREADS>(sum, s_ws, total);
    if (mid8) {
        // The counts of the bucket's low 8 bits (the key's bits 16-23) over all the keys, and
        // their exclusive scan: bucket t * 64 + j has low bits (t % 4) * 64 + j, and the lanes
        // of a warp with the same t % 4 add up first (lanes 0-3 then hold the warp's sums).
        __shared__ u32 s_col[256];
        if (t < 256) s_col[t] = 0;
        __syncthreads();
        const u32 lane = lane_id();
#pragma unroll
        for (u32 j = 0; j < HYB_SCAN_PER; j++) {
            u32 x = c[j];
            x += __shfl_xor_sync(FULL_MASK, x, 4);
            x += __shfl_xor_sync(FULL_MASK, x, 8);
            x += __shfl_xor_sync(FULL_MASK, x, 16);
            if (lane < 4) atomicAdd(&s_col[lane * HYB_SCAN_PER + j], x);
        }
        __syncthreads();
        u32 all;
        const u32 col = block_exclusive_scan_warps<HYB_SCAN_THREADS / WARP_THREADS>(
            t < 256 ? s_col[t] : 0u, s_ws, all);
        if (t < 256) meta[HYB_MID8 + t] = col;
    }
    uint4 *ov = (uint4 *)(offsets + t * HYB_SCAN_PER);
    uint4 *zv = (uint4 *)(counts + t * HYB_SCAN_PER);
#pragma unroll
    for (u32 j = 0; j < HYB_SCAN_PER / 4; j++) {
        uint4 o;
        o.x = run;
        run += c[4 * j];
        o.y = run;
        run += c[4 * j + 1];
        o.z = run;
        run += c[4 * j + 2];
        o.w = run;
        run += c[4 * j + 3];
        ov[j] = o;
        zv[j] = make_uint4(0, 0, 0, 0);  // the counts are left zeroed for the next sort
    }
    // The largest chunk of 2^chunk_log2 buckets: within a thread's 64 buckets from its counts,
    // across threads from their sums (in shared memory).
    const u32 K = 1u << chunk_log2;
    u32 most = 0;
    if (K <= HYB_SCAN_PER) {
        u32 acc = 0;
#pragma unroll
        for (u32 j = 0; j < HYB_SCAN_PER; j++) {
            acc += c[j];
            if (((j + 1) & (K - 1)) == 0) {
                most = max(most, acc);
                acc = 0;
            }
        }
    }
    __shared__ u32 s_sums[HYB_SCAN_THREADS];
    s_sums[t] = sum;
    if (t == 0) s_max = 0;
    __syncthreads();  // the offsets and the sums are visible to the whole block
    if (K > HYB_SCAN_PER) {
        const u32 span = K / HYB_SCAN_PER;  // threads per chunk
        if (t < HYBRID_BUCKETS / K) {
            u32 acc = 0;
            for (u32 i = 0; i < span; i++) acc += s_sums[t * span + i];
            most = acc;
        }
    }
    atomicMax(&s_max, most);
    // Top-8 buckets: offsets, and the segmented pass's tiles per bucket.
    u32 tiles_b = 0;
    if (t < 256) {
        const u32 lo = offsets[t << 8];
        const u64 hi = t < 255 ? offsets[(t + 1) << 8] : n;
        meta[HYB_TOP8 + t] = lo;
        tiles_b = (u32)((hi - lo + tile - 1) / tile);
    }
    u32 all_tiles;
    const u32 first_tile =
        block_exclusive_scan_warps<HYB_SCAN_THREADS / WARP_THREADS>(tiles_b, s_ws, all_tiles);
    if (t < 256) meta[HYB_TILE_START + t] = first_tile;
    if (t == 0) meta[HYB_TILE_START + 256] = all_tiles;
    __syncthreads();
    if (t == 0) meta[HYB_MAX_CHUNK] = s_max;
}

// The segmented pass: tiles numbered by ticket over the top-8 buckets in order (bucket b has
// tiles [tile_start[b], tile_start[b + 1])), each tile within one bucket, sorted by the digit
// at `shift` into the bucket's place for that digit (the 16-bit offsets).
extern "C" __global__ void __launch_bounds__(THREADS, PASS_MIN_BLOCKS)
onesweep_pass_segmented(const key_t *__restrict__ keys_in, key_t *__restrict__ keys_out,
                        const value_t *__restrict__ vals_in, value_t *__restrict__ vals_out,
                        status_t *__restrict__ status, const u32 *__restrict__ meta,
                        u32 *__restrict__ tile_counter, u64 n, u32 shift, u32 unstable) {
    extern __shared__ __align__(16) unsigned char s_pass[];
    TileStorage &st = *reinterpret_cast<TileStorage *>(s_pass);
    launch_dependents();
    grid_dependency_wait();
    if (threadIdx.x == 0) st.tile = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const u32 tile = st.tile;
    const u32 *tile_start = meta + HYB_TILE_START;
    // The bucket whose tiles hold this one: thread b checks bucket b (one round of loads; a
    // binary search's chain of eight dependent loads cost ~30% of the pass). Empty buckets
    // match no tile. `out_base` is free until the tile's look-back.
    if (threadIdx.x < 256) {
        const u32 lo = tile_start[threadIdx.x], hi = tile_start[threadIdx.x + 1];
        if (lo <= tile && tile < hi) st.out_base[0] = threadIdx.x;
    }
    if (tile >= tile_start[256]) return;  // the grid is an upper bound of the tiles
    __syncthreads();
    const u32 b = st.out_base[0];
    const u32 local = tile - tile_start[b];
    const u64 seg_lo = meta[HYB_TOP8 + b];
    const u64 seg_hi = b < 255 ? meta[HYB_TOP8 + b + 1] : n;
    const u64 base = seg_lo + (u64)local * TILE;
    const u32 valid = (u32)min((u64)TILE, seg_hi - base);
    const u32 *offsets = meta + HYB_OFFSETS + (b << 8);
    onesweep_tile<false>(st, tile, base, valid, local == 0, keys_in, keys_out, vals_in, vals_out,
                         status, offsets, shift, RADIX_BITS, 0, 0, 0, 0, unstable);
}

// The in-bucket sort: block c sorts the keys of buckets [c << chunk_log2, (c + 1) << chunk_log2)
// (at most HYBRID_LOCAL_CAP) by their low `sort_bits` bits, which with the chunk's buckets
// already in place is their full order, and writes them out with the output transform.
// Digits that do not vary in the chunk are skipped. With `top_extra` > 0 the chunk is sorted
// first by its highest varying digits only, as many as hold log2(valid) + top_extra varying
// bits (for uniform 64-bit keys 3 passes instead of 6 or 7), and then every run of keys tied
// on those bits is sorted by the bits below them, one thread per run (a stable insertion sort;
// runs are short and rare unless keys repeat; a run of equal keys needs none, however long).
// Where a run that mixes different keys is longer than HYB_TIE_RUN_MAX (or there are more runs
// than the list holds), the chunk takes every varying digit after all: a stable sort of the
// arrangement so far, which keeps the input's order among equal keys.
#define HYBRID_LOCAL_WARPS (HYBRID_LOCAL_THREADS / WARP_THREADS)
#define HYBRID_LOCAL_WARP_ITEMS (WARP_THREADS * HYBRID_LOCAL_ITEMS)
#define HYBRID_LOCAL_CAP (HYBRID_LOCAL_THREADS * HYBRID_LOCAL_ITEMS)
#ifndef HYB_TIE_RUN_MAX
#define HYB_TIE_RUN_MAX 32u
#endif
static_assert(HYB_TIE_RUN_MAX < 64u, "a tie run's length fits its list entry");
// HYB_BALANCE 1 (a tuning switch): a chunk's keys are spread over every warp of the block
// rather than filling the warps in order (see `hybrid_local_sort`).
#ifndef HYB_BALANCE
#define HYB_BALANCE 0
#endif
// HYB_STAGE 1 (keys only, packed pairs too): the ranking stages each key as it goes.
#ifndef HYB_STAGE
#define HYB_STAGE 0
#endif
// HYB_DIAG (a diagnostic for bench/proto/hybrid_inbucket.cu; its output is wrong unless 0): 1
// skips the passes and the tie walk (load, stage, write out), 2 runs the top sort's highest
// digit only, 3 the top sort without the tie walk.
#ifndef HYB_DIAG
#define HYB_DIAG 0
#endif
// HYB_PREFETCH_AHEAD > 0 (a tuning switch): block c asks L2 for the chunk of block c +
// HYB_PREFETCH_AHEAD (about one wave of resident blocks later), so that the block that takes it
// loads from L2, not from DRAM.
#ifndef HYB_PREFETCH_AHEAD
#define HYB_PREFETCH_AHEAD 0u
#endif
// HYB_TOP_BITS > 0 (a tuning override): the top sort takes the highest varying digits until
// they hold this many varying bits, whatever the chunk's size.
#ifndef HYB_TOP_BITS
#define HYB_TOP_BITS 0u
#endif
#define HYB_TIE_LIST (HYBRID_LOCAL_WARPS * RADIX)
static_assert(HYBRID_LOCAL_THREADS >= RADIX, "one thread per digit");
static_assert(HYBRID_LOCAL_CAP < (1u << 26), "a tie run's start fits its list entry");
struct LocalStorage {
    key_t keys[HYBRID_LOCAL_CAP];
#if HAS_VALUES
    value_t vals[HYBRID_LOCAL_CAP];
#endif
    // The ranking's counters; after the passes, the list of tie runs (start << 6 | length).
    u32 warp_hist[HYBRID_LOCAL_WARPS][RADIX];
    u32 ws[HYBRID_LOCAL_WARPS];
    // The chunk's OR (2 words) and AND (2 words) of its keys, tie runs listed, a long run seen.
    u32 extra[8];
};

// The in-bucket digits are counted from the top of the low `sort_bits` bits: digit d (0: the
// lowest) covers [hyb_digit_lo(d), sort_bits - (ndigits - 1 - d) * RADIX_BITS), so the lowest
// digit is the short one and the top sort's digits hold whole RADIX_BITS each.
__device__ __forceinline__ u32 hyb_ndigits(u32 sort_bits) {
    return (sort_bits + RADIX_BITS - 1) / RADIX_BITS;
}
__device__ __forceinline__ u32 hyb_digit_lo(u32 d, u32 sort_bits) {
    const int lo = (int)sort_bits - (int)((hyb_ndigits(sort_bits) - d) * RADIX_BITS);
    return lo > 0 ? (u32)lo : 0u;
}
// The mask of digit d's bits, shifted down to bit 0.
__device__ __forceinline__ u32 hyb_digit_mask(u32 d, u32 sort_bits) {
    const u32 hi = sort_bits - (hyb_ndigits(sort_bits) - 1 - d) * RADIX_BITS;
    return (1u << (hi - hyb_digit_lo(d, sort_bits))) - 1;
}

#if HAS_VALUES
#define HYB_VALS_PARAM , value_t(&v)[HYBRID_LOCAL_ITEMS]
#else
#define HYB_VALS_PARAM
#endif

// LSD passes over the digits set in `digits` (bit d: digit d, see `hyb_digit_lo`), lowest
// first, of the keys (and values) in registers, in warp-striped slots; the result is staged in
// `st.keys` (and `st.vals`) in order, and the registers are stale. `free_first`: the first pass
// may rank freely (keys only, whole keys).
__device__ __forceinline__ void hybrid_local_passes(LocalStorage &st,
                                                    key_t (&k)[HYBRID_LOCAL_ITEMS] HYB_VALS_PARAM,
                                                    u32 digits, u32 sort_bits, u32 rounds,
                                                    u32 own, u32 valid, bool free_first) {
    const u32 tid = threadIdx.x, lane = lane_id(), warp = warp_id();
    if (digits == 0) {
#pragma unroll
        for (u32 j = 0; j < HYBRID_LOCAL_ITEMS; j++) {
            const u32 p = own + j * WARP_THREADS + lane;
            if (j < rounds) {
                st.keys[p] = k[j];
#if HAS_VALUES
                st.vals[p] = v[j];
#endif
            }
        }
        __syncthreads();
        return;
    }
    bool first = true;
    for (u32 d = 0; d < 8; d++) {
        if (!((digits >> d) & 1)) continue;
        const u32 shift = hyb_digit_lo(d, sort_bits), mask = hyb_digit_mask(d, sort_bits);
        for (u32 i = lane; i < RADIX; i += WARP_THREADS) st.warp_hist[warp][i] = 0;
        __syncwarp();
#pragma unroll
        for (u32 j = 0; j < HYBRID_LOCAL_ITEMS; j++)
            if (j < rounds) atomicAdd(&st.warp_hist[warp][digit_of(k[j], shift, mask)], 1u);
        __syncthreads();  // (also: every read of the previous pass's staging is done)
        u32 count = 0;
        if (tid < RADIX) count = digit_total<HYBRID_LOCAL_WARPS>(&st.warp_hist[0][0], RADIX, tid);
        u32 total;
        const u32 start = block_exclusive_scan_warps<HYBRID_LOCAL_WARPS>(count, st.ws, total);
        if (tid < RADIX) warp_starts<HYBRID_LOCAL_WARPS>(&st.warp_hist[0][0], RADIX, tid, start);
        const bool skewed = __syncthreads_or(tid < RADIX && count * FREE_RANK_SKEW > total);
        u32 pos[HYBRID_LOCAL_ITEMS];
        bool staged = false;
        if (!HAS_VALUES && free_first && first && !skewed) {
            // The first pass of keys only ranks freely (as the pass kernel's free ranking), the
            // real keys first, then the padding, which so ranks after them: a warp's atomics
            // on a counter land in the order it issues them.
#pragma unroll
            for (u32 j = 0; j < HYBRID_LOCAL_ITEMS; j++)
                if (j < rounds && own + j * WARP_THREADS + lane < valid)
                    pos[j] = atomicAdd(&st.warp_hist[warp][digit_of(k[j], shift, mask)], 1u);
#pragma unroll
            for (u32 j = 0; j < HYBRID_LOCAL_ITEMS; j++)
                if (j < rounds && own + j * WARP_THREADS + lane >= valid)
                    pos[j] = atomicAdd(&st.warp_hist[warp][digit_of(k[j], shift, mask)], 1u);
        } else if (HYB_STAGE && !HAS_VALUES) {
            // Each key is staged as soon as it is ranked (every read of the staging area ended
            // at the barrier above), so its position needs no register.
            warp_rank<RADIX_BITS>(k, pos, st.warp_hist[warp], shift, mask, rounds, st.keys);
            staged = true;
        } else {
            warp_rank<RADIX_BITS>(k, pos, st.warp_hist[warp], shift, mask, rounds);
        }
        if (!staged) {
#pragma unroll
            for (u32 j = 0; j < HYBRID_LOCAL_ITEMS; j++) {
                if (j < rounds) {
                    st.keys[pos[j]] = k[j];
#if HAS_VALUES
                    st.vals[pos[j]] = v[j];
#endif
                }
            }
        }
        __syncthreads();
        first = false;
        if ((digits >> (d + 1)) != 0) {
#pragma unroll
            for (u32 j = 0; j < HYBRID_LOCAL_ITEMS; j++) {
                const u32 p = own + j * WARP_THREADS + lane;
                if (j < rounds) {
                    k[j] = st.keys[p];
#if HAS_VALUES
                    v[j] = st.vals[p];
#endif
                }
            }
        }
    }
}

__device__ __forceinline__ u32 warp_or(u32 x) {
#pragma unroll
    for (u32 o = 16; o > 0; o >>= 1) x |= __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}
__device__ __forceinline__ u32 warp_and(u32 x) {
#pragma unroll
    for (u32 o = 16; o > 0; o >>= 1) x &= __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

#ifndef HYBRID_LOCAL_SMEM_BYTES
#error "HYBRID_LOCAL_SMEM_BYTES (the in-bucket sort's dynamic shared memory) must be defined"
#endif
static_assert(sizeof(LocalStorage) <= HYBRID_LOCAL_SMEM_BYTES, "HYBRID_LOCAL_SMEM_BYTES is too small");
extern "C" __global__ void __launch_bounds__(HYBRID_LOCAL_THREADS, HYBRID_LOCAL_MIN_BLOCKS)
hybrid_local_sort(const key_t *__restrict__ keys_in, key_t *__restrict__ keys_out,
                  const value_t *__restrict__ vals_in, value_t *__restrict__ vals_out,
                  const u32 *__restrict__ meta, u64 n, u32 chunk_log2, u32 sort_bits, u32 desc,
                  u32 unstable, u32 top_extra) {
    extern __shared__ __align__(16) unsigned char s_local[];
    LocalStorage &st = *reinterpret_cast<LocalStorage *>(s_local);
    launch_dependents();
    grid_dependency_wait();
    const u32 tid = threadIdx.x, lane = lane_id(), warp = warp_id();
    const u32 b0 = blockIdx.x << chunk_log2, b1 = (blockIdx.x + 1) << chunk_log2;
    const u64 start = meta[HYB_OFFSETS + b0];
    const u64 end = b1 < HYBRID_BUCKETS ? meta[HYB_OFFSETS + b1] : n;
    const u32 valid = (u32)(end - start);  // <= HYBRID_LOCAL_CAP: checked by the host
#if HYB_PREFETCH_AHEAD > 0
    if (tid == 0 && blockIdx.x + HYB_PREFETCH_AHEAD < gridDim.x) {
        const u32 a0 = (blockIdx.x + HYB_PREFETCH_AHEAD) << chunk_log2;
        const u32 a1 = (blockIdx.x + HYB_PREFETCH_AHEAD + 1) << chunk_log2;
        const u64 s2 = meta[HYB_OFFSETS + a0];
        const u64 e2 = a1 < HYBRID_BUCKETS ? meta[HYB_OFFSETS + a1] : n;
        prefetch_l2(keys_in + s2, (e2 - s2) * sizeof(key_t));
#if HAS_VALUES
        prefetch_l2(vals_in + s2, (e2 - s2) * sizeof(value_t));
#endif
    }
#endif
    if (valid == 0) return;
    if (tid < 8) st.extra[tid] = tid == 2 || tid == 3 ? ~0u : 0u;
#if HYB_BALANCE
    // Warp w owns positions [w * per, (w + 1) * per), striped by lane, with `per` the fewest
    // whole rounds that spread the chunk over every warp (a chunk half the block's size keeps
    // every warp ranking instead of half of them); only its rounds that hold keys take part (the
    // padding, all ones, fills the last one's tail and ranks after every key).
    const u32 per = (valid + HYBRID_LOCAL_THREADS - 1) / HYBRID_LOCAL_THREADS * WARP_THREADS;
#else
    // Warp w owns positions [w * WARP_ITEMS, (w + 1) * WARP_ITEMS), striped by lane; only its
    // rounds that hold keys take part (the padding, all ones, fills the last one's tail and
    // ranks after every key).
    const u32 per = HYBRID_LOCAL_WARP_ITEMS;
#endif
    const u32 own = warp * per;
    const u32 rounds =
        valid > own ? min(per / WARP_THREADS, (valid - own + WARP_THREADS - 1) / WARP_THREADS) : 0;
    key_t k[HYBRID_LOCAL_ITEMS];
#if HAS_VALUES
    value_t v[HYBRID_LOCAL_ITEMS];
#define HYB_VALS_ARG , v
#else
#define HYB_VALS_ARG
#endif
    u32 or_lo = 0, or_hi = 0, and_lo = ~0u, and_hi = ~0u;
#pragma unroll
    for (u32 j = 0; j < HYBRID_LOCAL_ITEMS; j++) {
        const u32 p = own + j * WARP_THREADS + lane;
        if (j < rounds) {
            k[j] = p < valid ? keys_in[start + p] : KEY_ALL_ONES;
#if HAS_VALUES
            if (p < valid) v[j] = vals_in[start + p];
#endif
            if (p < valid) {
                const u64 x = (u64)k[j];
                or_lo |= (u32)x;
                or_hi |= (u32)(x >> 32);
                and_lo &= (u32)x;
                and_hi &= (u32)(x >> 32);
            }
        }
    }
    // Which digits vary in the chunk (the padding excluded).
    or_lo = warp_or(or_lo);
    or_hi = warp_or(or_hi);
    and_lo = warp_and(and_lo);
    and_hi = warp_and(and_hi);
    __syncthreads();  // st.extra set
    if (lane == 0) {
        atomicOr(&st.extra[0], or_lo);
        atomicOr(&st.extra[1], or_hi);
        atomicAnd(&st.extra[2], and_lo);
        atomicAnd(&st.extra[3], and_hi);
    }
    __syncthreads();
    const u64 range = sort_bits >= 64 ? ~0ull : (1ull << sort_bits) - 1;
    const u64 varying = ((((u64)st.extra[1] << 32) | st.extra[0]) ^
                         (((u64)st.extra[3] << 32) | st.extra[2])) & range;
    const u32 ndigits = hyb_ndigits(sort_bits);
    u32 all = 0;
    for (u32 d = 0; d < ndigits; d++)
        if ((varying >> hyb_digit_lo(d, sort_bits)) & hyb_digit_mask(d, sort_bits)) all |= 1u << d;
    // The top sort's digits: the highest varying ones, until they hold enough varying bits.
    u32 top = all;
    if (top_extra > 0 && all != 0) {
        const u32 need = HYB_TOP_BITS > 0 ? HYB_TOP_BITS : (32 - __clz(valid)) + top_extra;
        u32 got = 0;
        top = 0;
        for (int d = (int)ndigits - 1; d >= 0 && got < need; d--) {
            if (!((all >> d) & 1)) continue;
            top |= 1u << d;
            got += __popcll((varying >> hyb_digit_lo(d, sort_bits)) & hyb_digit_mask(d, sort_bits));
        }
    }
#if HYB_DIAG == 1
    top = all = 0;
#elif HYB_DIAG == 2
    if (top != 0) top = all = 1u << (31 - __clz(top));
#elif HYB_DIAG == 3
    all = top;
#endif
    // One copy of the passes: the top sort, then (where a tie run is too long) every digit.
    u32 digits = top;
    for (u32 attempt = 0;; attempt++) {
        hybrid_local_passes(st, k HYB_VALS_ARG, digits, sort_bits, rounds, own, valid,
                            attempt == 0 && unstable != 0);
        if (digits == all) break;
        const u32 lo = hyb_digit_lo(__ffs(top) - 1, sort_bits);
        // Ties are judged on the sort's bits only (packed pairs carry their values above them).
        const key_t rk = (key_t)range;
        u32 *list = &st.warp_hist[0][0];
        // A run tied on the top digits needs sorting only if it mixes different keys (equal
        // keys are in input order already: the top sort is stable), so the work starts from
        // the positions that differ from the key before them within a run: the first such
        // position of each run finds the run's ends and lists it, or, where the run is longer
        // than HYB_TIE_RUN_MAX, sends the chunk through every digit. Runs of equal keys, the
        // usual runs of keys that repeat, cost one comparison per key.
        for (u32 p = 1 + tid; p < valid; p += HYBRID_LOCAL_THREADS) {
            const key_t a = st.keys[p - 1] & rk, b = st.keys[p] & rk;
            const key_t x = b >> lo;
            if ((a >> lo) != x || a == b) continue;
            u32 s0 = p - 1;
            bool first = true;
            while (s0 > 0 && p - s0 <= HYB_TIE_RUN_MAX && ((st.keys[s0 - 1] & rk) >> lo) == x) {
                if ((st.keys[s0 - 1] & rk) != (st.keys[s0] & rk)) {
                    first = false;  // an earlier position of this run lists it
                    break;
                }
                s0--;
            }
            if (!first) continue;
            u32 e = p + 1;
            while (e < valid && e - s0 <= HYB_TIE_RUN_MAX && ((st.keys[e] & rk) >> lo) == x) e++;
            if (e - s0 > HYB_TIE_RUN_MAX) {
                atomicOr(&st.extra[5], 1u);
            } else {
                const u32 slot = atomicAdd(&st.extra[4], 1u);
                if (slot < HYB_TIE_LIST) list[slot] = s0 << 6 | (e - s0);
                else atomicOr(&st.extra[5], 1u);
            }
        }
        __syncthreads();
        const u32 runs = min(st.extra[4], HYB_TIE_LIST);
        if (st.extra[5] == 0) {
            if (runs > 0) {
                const key_t low = ((key_t)1 << lo) - 1;
                for (u32 r = tid; r < runs; r += HYBRID_LOCAL_THREADS) {
                    const u32 p = list[r] >> 6, len = list[r] & 63;
                    for (u32 i = p + 1; i < p + len; i++) {
                        const key_t x = st.keys[i];
#if HAS_VALUES
                        const value_t y = st.vals[i];
#endif
                        u32 q = i;
                        while (q > p && (st.keys[q - 1] & low) > (x & low)) {
                            st.keys[q] = st.keys[q - 1];
#if HAS_VALUES
                            st.vals[q] = st.vals[q - 1];
#endif
                            q--;
                        }
                        st.keys[q] = x;
#if HAS_VALUES
                        st.vals[q] = y;
#endif
                    }
                }
                __syncthreads();
            }
            break;
        }
        // A long run: every varying digit, from the arrangement the top sort left.
#pragma unroll
        for (u32 j = 0; j < HYBRID_LOCAL_ITEMS; j++) {
            const u32 p = own + j * WARP_THREADS + lane;
            if (j < rounds) {
                k[j] = st.keys[p];
#if HAS_VALUES
                v[j] = st.vals[p];
#endif
            }
        }
        digits = all;
    }
#undef HYB_VALS_ARG
    // Out in one contiguous run, keys through the output transform.
    for (u32 p = tid; p < valid; p += HYBRID_LOCAL_THREADS) {
#if PACKED
        // Packed pairs: the key's image in the low half, the value in the high half.
        const key_t e = st.keys[p];
        reinterpret_cast<u32 *>(keys_out)[start + p] = packed_key_out((u32)e, desc);
        reinterpret_cast<u32 *>(vals_out)[start + p] = (u32)(e >> 32);
#else
        keys_out[start + p] = key_out(st.keys[p], desc);
#if HAS_VALUES
        vals_out[start + p] = st.vals[p];
#endif
#endif
    }
}
#undef HYB_VALS_PARAM
#endif  // hybrid sort
