// Device-wide prefix sum in one pass with a decoupled look-back (Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVR-2016-002): every element is read once and
// written once, so the scan can run near the copy bandwidth.
//
// One block per tile. A tile is THREADS x VECS 16-byte vectors; warp w owns a contiguous
// stretch of WARP_VECS vectors and lane l loads vectors l, l + 32, ... of it, so every load and
// store instruction of a warp covers 512 contiguous bytes. Per tile:
//   1. take a tile id from an atomic counter (ids follow the order in which blocks start, so a
//      tile's predecessors are all running or done and the look-back never waits on a block
//      that is not yet scheduled);
//   2. copy the tile into shared memory (16-byte cp.async, no registers held while in flight),
//      reduce each vector, scan the vector sums across the warp and the warp sums across the
//      block: the tile's aggregate;
//   3. warp 0 publishes the aggregate, looks back over LB_WINDOWS x 32 predecessors per step
//      (one status load per lane and window, all in flight together) until it meets an
//      inclusive prefix, then publishes its own inclusive prefix;
//   4. every thread adds the tile's exclusive prefix and stores.
//
// Status words carry an epoch (a launch number chosen by the host, 1..2^30-1): a word written
// by an earlier launch reads as "not ready", so the status array needs no clearing between
// launches; the host clears it once when it is allocated and whenever the epoch wraps. The
// block that draws the last tile id resets the counter for the next launch (every other block
// has drawn its id by then).
//
// Memory order. No fences: every status is self-validating. 4-byte types pack flag and value
// into one 64-bit word written and read with single 64-bit accesses, so a reader never sees a
// flag without its value. 8-byte types split the value into two 32-bit halves, each packed with
// the flag into a 64-bit word; the two words of a tile are written and read together (one
// 16-byte access where the hardware makes it one, two 64-bit accesses otherwise, each of them
// single-copy atomic). A reader takes the status only when both words carry the same flag:
// a tile publishes at most once per state and launch, so equal flags mean both halves come
// from the same publication (an aggregate half next to an inclusive half reads as "not ready",
// and the next step reads it again).

// Float sums are not associated left to right: within a thread, then across the warp and the
// block, then across tiles in whatever grouping the look-back met; the result may differ from
// run to run in the last bits.

#ifndef SCAN_T
#error "SCAN_T must be defined"
#endif
#ifndef VECS
#error "VECS (16-byte vectors per thread) must be defined"
#endif
#ifndef LB_WINDOWS
#error "LB_WINDOWS (look-back windows of 32 tiles per step) must be defined"
#endif
#if !defined(LB_DELAY_FIRST) || !defined(LB_DELAY_RETRY)
#error "LB_DELAY_FIRST / LB_DELAY_RETRY (look-back pacing in ns) must be defined"
#endif
#ifndef STORE_STREAMING
#error "STORE_STREAMING (1: evict-first stores of the output, 0: plain stores) must be defined"
#endif
#ifndef SCAN_T_BYTES
#error "SCAN_T_BYTES (the size of SCAN_T) must be defined"
#endif
typedef SCAN_T scan_t;
static_assert(sizeof(scan_t) == SCAN_T_BYTES, "SCAN_T_BYTES is the size of SCAN_T");
static_assert(SCAN_T_BYTES == 4 || SCAN_T_BYTES == 8, "4- or 8-byte elements");
static_assert(VECS >= 1 && VECS <= 16, "1 to 16 vectors per thread");
static_assert(LB_WINDOWS >= 1 && LB_WINDOWS <= 8, "1 to 8 look-back windows per step");

#ifdef PIPE_STAGES
// The pipelined kernel (below): PIPE_CONSUMERS threads scan, one warp looks back, one loads.
#ifndef PIPE_CONSUMERS
#error "PIPE_CONSUMERS (the scanning threads of the pipelined kernel) must be defined"
#endif
static_assert(THREADS == PIPE_CONSUMERS + 2 * WARP_THREADS,
              "the pipelined kernel: consumers, a look-back warp and a load warp");
static_assert(PIPE_STAGES >= 2 && PIPE_STAGES <= 16, "2 to 16 stages");
#define TILE_THREADS PIPE_CONSUMERS
#else
static_assert(THREADS * VECS * 16 + 512 <= 48 * 1024,
              "the staged tile and the other shared variables fit in static shared memory");
#define TILE_THREADS THREADS
#endif

#define VEC_ITEMS (16 / (int)sizeof(scan_t))
#define WARP_VECS (VECS * WARP_THREADS)
#define TILE_VECS (TILE_THREADS * VECS)
#define TILE_ITEMS (TILE_VECS * VEC_ITEMS)

#define ST_INVALID 0u
#define ST_AGGREGATE 1u
#define ST_INCLUSIVE 2u
#define EPOCH_MAX ((1u << 30) - 1)

union Vec {
    uint4 v;
    scan_t e[VEC_ITEMS];
};

// The bits of an element and back.
union Bits32 {
    u32 u;
    scan_t x;
};
union Bits64 {
    u64 u;
    scan_t x;
};

// The flag of a status: (epoch << 2) | state.
__device__ __forceinline__ u32 state_of(u32 flag, u32 epoch) {
    return (flag >> 2) == epoch ? (flag & 3u) : ST_INVALID;
}

// Scratch layout (the host sizes it with the same formulas, src/cuda/scan.rs):
//   [0, 16)                       u32 tile counter, padding
//   4-byte types:  u64 status[cap]            (flag << 32 | value bits)
//   8-byte types:  u64 status[cap][2]         (flag << 32 | low half, flag << 32 | high half)
// `cap` is the scratch's capacity in tiles (fixed for its lifetime).
struct Status {
    u8 *base;
    u32 cap;
    u32 epoch;

    __device__ __forceinline__ u32 *counter() const { return (u32 *)base; }

#if SCAN_T_BYTES == 4
    __device__ __forceinline__ volatile u64 *words() const { return (volatile u64 *)(base + 16); }
    __device__ __forceinline__ void publish(u32 tile, u32 state, scan_t value) const {
        Bits32 b;
        b.x = value;
        words()[tile] = ((u64)((epoch << 2) | state) << 32) | b.u;
    }
    // Loads the status of `tile`: its state, and its value when the state is not invalid.
    __device__ __forceinline__ u32 load(u32 tile, scan_t &value) const {
        u64 w = words()[tile];
        Bits32 b;
        b.u = (u32)w;
        value = b.x;
        return state_of((u32)(w >> 32), epoch);
    }
#else
    __device__ __forceinline__ u64 *words() const { return (u64 *)(base + 16); }
    __device__ __forceinline__ void publish(u32 tile, u32 state, scan_t value) const {
        Bits64 b;
        b.x = value;
        const u64 flag = (u64)((epoch << 2) | state) << 32;
        const u64 lo = flag | (b.u & 0xffffffffull), hi = flag | (b.u >> 32);
        asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};"
                     :: "l"(words() + 2 * (u64)tile), "l"(lo), "l"(hi) : "memory");
    }
    __device__ __forceinline__ u32 load(u32 tile, scan_t &value) const {
        u64 lo, hi;
        asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                     : "=l"(lo), "=l"(hi) : "l"(words() + 2 * (u64)tile) : "memory");
        Bits64 b;
        b.u = (lo & 0xffffffffull) | (hi << 32);
        value = b.x;
        const u32 flag = (u32)(lo >> 32);
        return flag == (u32)(hi >> 32) ? state_of(flag, epoch) : ST_INVALID;
    }
#endif
};

template <typename T>
__device__ __forceinline__ T warp_sum(T x) {
    // Butterfly: every lane ends with the bitwise same sum (each step adds the same two
    // partial sums, and IEEE addition commutes).
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) x = x + __shfl_xor_sync(FULL_MASK, x, m);
    return x;
}

// The sum of a vector's elements, left to right.
__device__ __forceinline__ scan_t vector_sum(const Vec &x) {
    scan_t s = x.e[0];
#pragma unroll
    for (int e = 1; e < VEC_ITEMS; e++) s = s + x.e[e];
    return s;
}

// Scans vector x in place from `start` (the sum of everything before it): each element
// becomes the sum up to and including it (inclusive) or before it (exclusive).
__device__ __forceinline__ void vector_scan(Vec &x, scan_t start, u32 inclusive) {
    scan_t r = start;
#pragma unroll
    for (int e = 0; e < VEC_ITEMS; e++) {
        scan_t before = r;
        r = r + x.e[e];
        x.e[e] = inclusive ? r : before;
    }
}

// Stores a whole output vector (evict-first where STORE_STREAMING asks for it).
__device__ __forceinline__ void store_vector(uint4 *p, uint4 v) {
#if STORE_STREAMING
    __stcs(p, v);
#else
    *p = v;
#endif
}

// Scans a warp's vectors: lane l holds in inc[j] the sum of its vector j, and the warp's
// vectors come in the order vector j of lanes 0..31, then vector j + 1. Leaves in exc[j] the
// sum of every vector before this lane's vector j (VECS independent chains, interleaved;
// exclusive by shuffle, not by subtraction, so exact for floats too) and returns the warp's
// total. inc[] is overwritten.
__device__ __forceinline__ scan_t warp_scan_vectors(scan_t (&inc)[VECS], scan_t (&exc)[VECS]) {
    const u32 lane = lane_id();
#pragma unroll
    for (int off = 1; off < WARP_THREADS; off <<= 1) {
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            scan_t y = __shfl_up_sync(FULL_MASK, inc[j], off);
            if (lane >= (u32)off) inc[j] = inc[j] + y;
        }
    }
    scan_t run = scan_t(0);
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        scan_t up = __shfl_up_sync(FULL_MASK, inc[j], 1);
        scan_t total = __shfl_sync(FULL_MASK, inc[j], WARP_THREADS - 1);
        exc[j] = lane == 0 ? run : run + up;
        run = run + total;
    }
    return run;
}

// Warp 0 of tile `tile` (> 0): the sum of every element before the tile. All lanes return it.
__device__ __forceinline__ scan_t look_back(const Status &st, u32 tile) {
    const u32 lane = lane_id();
    scan_t prefix = scan_t(0);
    i64 end = tile;  // the window covers tiles [end - 32 * LB_WINDOWS, end)
    while (true) {
        u32 state[LB_WINDOWS];
        scan_t val[LB_WINDOWS];
        u32 nearest;  // distance (0 = tile end - 1) of the nearest inclusive prefix, or W
        while (true) {
#pragma unroll
            for (int k = 0; k < LB_WINDOWS; k++) {
                i64 p = end - 1 - (i64)(k * WARP_THREADS + lane);
                if (p < 0) {
                    state[k] = ST_INCLUSIVE;  // before the first tile: an inclusive zero
                    val[k] = scan_t(0);
                } else {
                    state[k] = st.load((u32)p, val[k]);
                }
            }
            nearest = WARP_THREADS * LB_WINDOWS;
            u32 invalid_before = 0;  // any invalid status nearer than `nearest`
            bool found = false;
#pragma unroll
            for (int k = 0; k < LB_WINDOWS; k++) {
                u32 inc = __ballot_sync(FULL_MASK, state[k] == ST_INCLUSIVE);
                u32 bad = __ballot_sync(FULL_MASK, state[k] == ST_INVALID);
                if (!found) {
                    if (inc) {
                        u32 first = __ffs(inc) - 1;
                        nearest = k * WARP_THREADS + first;
                        invalid_before |= bad & ((1u << first) - 1);
                        found = true;
                    } else {
                        invalid_before |= bad;
                    }
                }
            }
            if (!invalid_before) break;
#if __CUDA_ARCH__ >= 700
            __nanosleep(LB_DELAY_RETRY);
#endif
        }
        scan_t part = scan_t(0);
#pragma unroll
        for (int k = 0; k < LB_WINDOWS; k++) {
            u32 d = k * WARP_THREADS + lane;
            if (d <= nearest && d < WARP_THREADS * LB_WINDOWS) {
                i64 p = end - 1 - (i64)d;
                if (p >= 0) part = part + val[k];
            }
        }
        prefix = warp_sum(part) + prefix;
        if (nearest < WARP_THREADS * LB_WINDOWS) return prefix;
        end -= WARP_THREADS * LB_WINDOWS;
    }
}

#ifndef PIPE_STAGES
// `in` and `out` may be the same buffer (each block reads its whole tile before it writes it).
// `shift`: elements between the 16-byte boundary below `in` and `in`; the tiles cover the
// virtual index range [0, n + shift) from that boundary, so every full tile is aligned.
#ifndef MIN_BLOCKS
#error "MIN_BLOCKS (minimum resident blocks per SM, 0 for none) must be defined"
#endif
#if MIN_BLOCKS > 0
#define SCAN_BOUNDS __launch_bounds__(THREADS, MIN_BLOCKS)
#else
#define SCAN_BOUNDS __launch_bounds__(THREADS)
#endif
extern "C" __global__ void SCAN_BOUNDS
scan_lookback(const scan_t *in, scan_t *out, u64 n, u32 shift, u8 *scratch, u32 cap, u32 epoch,
              u32 inclusive) {
    __shared__ u32 s_tile;
    __shared__ scan_t s_warp[NUM_WARPS];
    __shared__ scan_t s_prefix;
    const Status st{scratch, cap, epoch};
    const u32 lane = lane_id(), warp = warp_id();
    if (threadIdx.x == 0) {
        u32 t = atomicAdd(st.counter(), 1u);
        if (t == gridDim.x - 1) atomicExch(st.counter(), 0u);  // every block has its id now
        s_tile = t;
    }
    __syncthreads();
    const u32 tile = s_tile;

    // Virtual index of this thread's first element of vector j: base + j * 32 * VEC_ITEMS.
    const u64 vbase = (u64)tile * TILE_ITEMS + ((u64)warp * WARP_VECS + lane) * VEC_ITEMS;
    const u64 in_vec = (u64)in - (u64)shift * sizeof(scan_t);
    const bool aligned_in = (in_vec & 15) == 0;
    const bool aligned_out = (((u64)out - (u64)shift * sizeof(scan_t)) & 15) == 0;
    const u64 tile_lo = (u64)tile * TILE_ITEMS;
    const bool full = tile_lo >= shift && tile_lo + TILE_ITEMS - shift <= n;

    // The tile is staged in shared memory, not registers: 16-byte cp.async copies hold no
    // registers while in flight, so the block needs few registers and more blocks (and more
    // bytes in flight) fit on an SM. Each thread reads back only the vectors it copied itself.
    __shared__ uint4 s_data[TILE_VECS];
    uint4 *mine = s_data + warp * WARP_VECS + lane;  // this thread's vector j: mine[j * 32]
    if (full && aligned_in) {
        const uint4 *src = (const uint4 *)in_vec + (u64)tile * TILE_VECS + warp * WARP_VECS + lane;
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            const u32 dst = (u32)__cvta_generic_to_shared(mine + j * WARP_THREADS);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst),
                         "l"(src + j * WARP_THREADS)
                         : "memory");
        }
        asm volatile("cp.async.commit_group;\n\tcp.async.wait_all;" ::: "memory");
    } else {
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            Vec x;
#pragma unroll
            for (int e = 0; e < VEC_ITEMS; e++) {
                u64 v = vbase + (u64)j * WARP_THREADS * VEC_ITEMS + e;
                x.e[e] = (v >= shift && v - shift < n) ? in[v - shift] : scan_t(0);
            }
            mine[j * WARP_THREADS] = x.v;
        }
    }

    // Vector sums, scanned across the warp.
    scan_t inc[VECS], exc[VECS];
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        Vec x;
        x.v = mine[j * WARP_THREADS];
        inc[j] = vector_sum(x);
    }
    const scan_t run = warp_scan_vectors(inc, exc);
    if (lane == 0) s_warp[warp] = run;
    __syncthreads();
    scan_t warp_prefix = scan_t(0), aggregate = scan_t(0);
#pragma unroll
    for (int w = 0; w < NUM_WARPS; w++) {
        if (w == (int)warp) warp_prefix = aggregate;
        aggregate = aggregate + s_warp[w];
    }

    if (warp == 0) {
        scan_t prefix = scan_t(0);
        if (tile == 0) {
            if (lane == 0) st.publish(0, ST_INCLUSIVE, aggregate);
        } else {
            if (lane == 0) st.publish(tile, ST_AGGREGATE, aggregate);
#if LB_DELAY_FIRST > 0 && __CUDA_ARCH__ >= 700
            // Give the predecessors time to publish before the first read (in a large grid,
            // reads that come too early only add traffic to the status lines being written).
            if (gridDim.x >= 500) __nanosleep(LB_DELAY_FIRST);
#endif
            prefix = look_back(st, tile);
            if (lane == 0) st.publish(tile, ST_INCLUSIVE, prefix + aggregate);
        }
        if (lane == 0) s_prefix = prefix;
    }
    __syncthreads();
    const scan_t base = s_prefix + warp_prefix;

    const bool vec_out = full && aligned_out;
    uint4 *dst = (uint4 *)((u64)out - (u64)shift * sizeof(scan_t)) + (u64)tile * TILE_VECS +
                 warp * WARP_VECS + lane;
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        Vec x;
        x.v = mine[j * WARP_THREADS];
        vector_scan(x, base + exc[j], inclusive);
        if (vec_out) {
            store_vector(dst + j * WARP_THREADS, x.v);
        } else {
#pragma unroll
            for (int e = 0; e < VEC_ITEMS; e++) {
                u64 v = vbase + (u64)j * WARP_THREADS * VEC_ITEMS + e;
                if (v >= shift && v - shift < n) out[v - shift] = x.e[e];
            }
        }
    }
}
#endif  // !PIPE_STAGES

#ifdef PIPE_STAGES
// ---------------------------------------------------------------------------------------------
// The pipelined look-back scan (sm_90: bulk copies and transaction barriers). Persistent
// blocks, each with three roles, so that loading, scanning and looking back overlap:
//   - the load warp (one lane) takes tile ids from the atomic counter, in order, and copies
//     each tile into the next of PIPE_STAGES shared-memory stages with one bulk copy
//     (cp.async.bulk, completing on the stage's `full` barrier), up to PIPE_STAGES tiles ahead;
//   - the consumer threads (PIPE_CONSUMERS) reduce tile k+1 and publish its aggregate
//     before they finish tile k, so every aggregate is out as soon as its data has arrived;
//     they finish a tile (add its exclusive prefix, store) once the look-back warp hands them
//     the prefix, then release its stage (`empty` barrier);
//   - the look-back warp walks back for the block's tiles in order and publishes each
//     inclusive prefix.
// A block's tiles come from the counter in increasing order, and every tile id is drawn by a
// running block, so the lowest unfinished tile can always finish: its predecessors are done,
// its data is in flight or arrived, and its block's look-back warp has no earlier tile left.
// The grid need not be resident all at once.
//
// Hand-offs between the consumers and the look-back warp go through shared memory slots and
// transaction barriers, two of each by tile parity (a side runs at most one tile ahead of the
// other): consumer thread 0 writes a tile's id and aggregate and arrives on `agg_bar` (count
// 1: its own release covers its own writes); lane 0 of the look-back warp reads them, and
// later writes the prefix and arrives on `prefix_bar`, which every consumer waits on. Only
// these two threads touch the slots, so each hand-off is ordered by the arriving thread's
// release and the waiting threads' acquire (no reliance on a barrier's ordering of other
// threads' accesses). Named barrier 1 is the consumers' own block scan. Statuses, epochs and
// the look-back itself are the ones of the kernel above. The host launches this kernel only
// when `in` and `out` are 16-byte aligned.

#define CONSUMER_WARPS (PIPE_CONSUMERS / WARP_THREADS)
#define TILE_BYTES (TILE_VECS * 16)
#define BAR_SCAN 1
#define NO_TILE 0xffffffffu
static_assert(PIPE_CONSUMERS % WARP_THREADS == 0 && CONSUMER_WARPS >= 1, "whole warps");

#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ void bar_sync(u32 id, u32 count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// A consumer thread's part of one tile between its reduction and its finish.
struct TilePart {
    scan_t exc[VECS];    // exclusive prefix of each of its vectors within the warp
    scan_t warp_prefix;  // the warp's exclusive prefix within the tile
    u32 tile, stage, valid;
};

struct PipeShared {
    u64 full[PIPE_STAGES];
    u64 empty[PIPE_STAGES];
    u64 agg_bar[2], prefix_bar[2];
    u32 stage_tile[PIPE_STAGES];
    scan_t warp_sum[2][CONSUMER_WARPS];
    scan_t agg[2], prefix[2];
    u32 agg_tile[2];
};

// Reduces the tile in `stage` (id `tile`, `valid` elements): the thread's vector prefixes,
// the warp's prefix and the tile's aggregate; consumer thread 0 publishes the aggregate (the
// inclusive sum for tile 0) and hands it to the look-back warp.
__device__ __forceinline__ void pipe_reduce(PipeShared &sh, uint4 *stage, const scan_t *in,
                                            const Status &st, u32 tile, u32 s, u32 valid,
                                            u32 par, TilePart &part) {
    const u32 lane = lane_id(), warp = warp_id();
    uint4 *mine = stage + warp * WARP_VECS + lane;
    const bool full = valid == TILE_ITEMS;
    scan_t inc[VECS];
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        Vec x;
        x.v = mine[j * WARP_THREADS];
        if (!full) {
            // The last tile: the bulk copy brought the whole vectors; the elements after them
            // come from global memory and the rest of the tile counts as zero. The fixed
            // vector goes back to the stage for the finish (this stage is never reused: no
            // tile follows the last one).
            const u32 copied = valid & ~(u32)(VEC_ITEMS - 1);
#pragma unroll
            for (int e = 0; e < VEC_ITEMS; e++) {
                const u32 i = ((warp * WARP_VECS + j * WARP_THREADS + lane) * VEC_ITEMS) + e;
                if (i >= valid)
                    x.e[e] = scan_t(0);
                else if (i >= copied)
                    x.e[e] = in[(u64)tile * TILE_ITEMS + i];
            }
            mine[j * WARP_THREADS] = x.v;
        }
        inc[j] = vector_sum(x);
    }
    const scan_t run = warp_scan_vectors(inc, part.exc);
    if (lane == 0) sh.warp_sum[par][warp] = run;
    bar_sync(BAR_SCAN, PIPE_CONSUMERS);
    scan_t warp_prefix = scan_t(0), aggregate = scan_t(0);
#pragma unroll
    for (int w = 0; w < CONSUMER_WARPS; w++) {
        if (w == (int)warp) warp_prefix = aggregate;
        aggregate = aggregate + sh.warp_sum[par][w];
    }
    part.warp_prefix = warp_prefix;
    part.tile = tile;
    part.stage = s;
    part.valid = valid;
    if (threadIdx.x == 0) {
        st.publish(tile, tile == 0 ? ST_INCLUSIVE : ST_AGGREGATE, aggregate);
        sh.agg[par] = aggregate;
        sh.agg_tile[par] = tile;
        mbar_arrive(&sh.agg_bar[par]);
    }
}

// Consumer thread 0: tells the look-back warp that the block has no tile `k` (slot `par`).
__device__ __forceinline__ void pipe_no_more(PipeShared &sh, u32 par) {
    if (threadIdx.x == 0) {
        sh.agg_tile[par] = NO_TILE;
        mbar_arrive(&sh.agg_bar[par]);
    }
}

// Adds the prefix of the block's tile `k` (from the look-back warp) and stores; releases the
// stage.
__device__ __forceinline__ void pipe_finish(PipeShared &sh, uint4 *stage, scan_t *out,
                                            const TilePart &part, u32 k, u32 inclusive) {
    const u32 lane = lane_id(), warp = warp_id();
    const u32 par = k & 1;
    mbar_wait(&sh.prefix_bar[par], (k >> 1) & 1);  // slot par's (k / 2)-th use
    const scan_t base = sh.prefix[par] + part.warp_prefix;
    const uint4 *mine = stage + warp * WARP_VECS + lane;
    uint4 *dst = (uint4 *)out + (u64)part.tile * TILE_VECS + warp * WARP_VECS + lane;
    const bool full = part.valid == TILE_ITEMS;
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        Vec x;
        x.v = mine[j * WARP_THREADS];
        vector_scan(x, base + part.exc[j], inclusive);
        if (full) {
            store_vector(dst + j * WARP_THREADS, x.v);
        } else {
#pragma unroll
            for (int e = 0; e < VEC_ITEMS; e++) {
                const u32 i = ((warp * WARP_VECS + j * WARP_THREADS + lane) * VEC_ITEMS) + e;
                if (i < part.valid) out[(u64)part.tile * TILE_ITEMS + i] = x.e[e];
            }
        }
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(&sh.empty[part.stage]);
}

#if MIN_BLOCKS > 0
#define PIPE_BOUNDS __launch_bounds__(THREADS, MIN_BLOCKS)
#else
#define PIPE_BOUNDS __launch_bounds__(THREADS)
#endif
// `in` and `out` 16-byte aligned (they may be equal: a tile is in shared memory before any of
// it is written). `tiles` = ceil(n / TILE_ITEMS). `delay_first`: ns the look-back warp sleeps
// before a tile's first status read (the host chooses it by the number of tiles).
extern "C" __global__ void PIPE_BOUNDS
scan_pipelined(const scan_t *in, scan_t *out, u64 n, u32 tiles, u8 *scratch, u32 cap, u32 epoch,
               u32 inclusive, u32 delay_first) {
    extern __shared__ __align__(128) uint4 s_stages[];  // PIPE_STAGES x TILE_VECS
    __shared__ PipeShared sh;
    const Status st{scratch, cap, epoch};
    const u32 lane = lane_id(), warp = warp_id();
    if (threadIdx.x == 0) {
        for (int s = 0; s < PIPE_STAGES; s++) {
            mbar_init(&sh.full[s], 1);
            mbar_init(&sh.empty[s], CONSUMER_WARPS);
        }
        for (int p = 0; p < 2; p++) {
            mbar_init(&sh.agg_bar[p], 1);
            mbar_init(&sh.prefix_bar[p], 1);
        }
        fence_mbar_init();
    }
    __syncthreads();

    if (warp == CONSUMER_WARPS + 1) {
        // The load warp: one lane draws tile ids and issues the bulk copies.
        if (lane != 0) return;
        const u32 last_draw = tiles + gridDim.x - 1;  // every block draws one id past the end
        for (u32 k = 0;; k++) {
            const u32 s = k % PIPE_STAGES;
            if (k >= PIPE_STAGES) mbar_wait(&sh.empty[s], ((k / PIPE_STAGES) & 1) ^ 1);
            const u32 t = atomicAdd(st.counter(), 1u);
            if (t == last_draw) atomicExch(st.counter(), 0u);  // every block has drawn its last
            if (t >= tiles) {
                sh.stage_tile[s] = NO_TILE;
                mbar_arrive(&sh.full[s]);
                return;
            }
            sh.stage_tile[s] = t;
            const u64 first = (u64)t * TILE_ITEMS;
            const u64 valid = min((u64)TILE_ITEMS, n - first);
            const u32 bytes = (u32)(valid / VEC_ITEMS) * 16;
            mbar_arrive_tx(&sh.full[s], bytes);
            if (bytes) bulk_load(s_stages + (u64)s * TILE_VECS, in + first, bytes, &sh.full[s]);
        }
    }

    if (warp == CONSUMER_WARPS) {
        // The look-back warp: the block's tiles in order.
        for (u32 k = 0;; k++) {
            const u32 par = k & 1;
            // Lane 0 alone reads the slots (and later writes the prefix).
            u32 t = 0;
            scan_t aggregate = scan_t(0);
            if (lane == 0) {
                mbar_wait(&sh.agg_bar[par], (k >> 1) & 1);
                t = sh.agg_tile[par];
                aggregate = sh.agg[par];
            }
            t = __shfl_sync(FULL_MASK, t, 0);
            if (t == NO_TILE) return;
            scan_t prefix = scan_t(0);
            if (t > 0) {
                if (delay_first) __nanosleep(delay_first);
                prefix = look_back(st, t);
                if (lane == 0) st.publish(t, ST_INCLUSIVE, prefix + aggregate);
            }
            if (lane == 0) {
                sh.prefix[par] = prefix;
                mbar_arrive(&sh.prefix_bar[par]);
            }
        }
    }

    // Consumers.
    TilePart cur, next;
    u32 k = 0;
    {
        mbar_wait(&sh.full[0], 0);
        const u32 t = sh.stage_tile[0];
        if (t == NO_TILE) {
            pipe_no_more(sh, 0);
            return;
        }
        const u32 valid = (u32)min((u64)TILE_ITEMS, n - (u64)t * TILE_ITEMS);
        pipe_reduce(sh, s_stages, in, st, t, 0, valid, 0, cur);
    }
    for (;; k++) {
        const u32 s1 = (k + 1) % PIPE_STAGES, par1 = (k + 1) & 1;
        mbar_wait(&sh.full[s1], ((k + 1) / PIPE_STAGES) & 1);
        const u32 t1 = sh.stage_tile[s1];
        const bool more = t1 != NO_TILE;
        if (more) {
            const u32 valid = (u32)min((u64)TILE_ITEMS, n - (u64)t1 * TILE_ITEMS);
            pipe_reduce(sh, s_stages + (u64)s1 * TILE_VECS, in, st, t1, s1, valid, par1, next);
        } else {
            pipe_no_more(sh, par1);
        }
        pipe_finish(sh, s_stages + (u64)cur.stage * TILE_VECS, out, cur, k, inclusive);
        if (!more) return;
        cur = next;
    }
}
#else
// Before sm_90 (no bulk copies): the module compiles, and the host never launches this.
extern "C" __global__ void scan_pipelined(const scan_t *, scan_t *, u64, u32, u8 *, u32, u32,
                                          u32, u32) {
    __trap();
}
#endif  // __CUDA_ARCH__ >= 900
#endif  // PIPE_STAGES
