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
static_assert(VECS >= 1 && VECS <= 8, "1 to 8 vectors per thread");
static_assert(THREADS * VECS * 16 <= 48 * 1024, "the staged tile fits in static shared memory");
static_assert(LB_WINDOWS >= 1 && LB_WINDOWS <= 8, "1 to 8 look-back windows per step");

#define VEC_ITEMS (16 / (int)sizeof(scan_t))
#define WARP_VECS (VECS * WARP_THREADS)
#define TILE_VECS (THREADS * VECS)
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

    // Vector sums, scanned across the warp (VECS independent chains, interleaved).
    scan_t inc[VECS], exc[VECS];
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        Vec x;
        x.v = mine[j * WARP_THREADS];
        scan_t s = x.e[0];
#pragma unroll
        for (int e = 1; e < VEC_ITEMS; e++) s = s + x.e[e];
        inc[j] = s;
    }
#pragma unroll
    for (int off = 1; off < WARP_THREADS; off <<= 1) {
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            scan_t y = __shfl_up_sync(FULL_MASK, inc[j], off);
            if (lane >= (u32)off) inc[j] = inc[j] + y;
        }
    }
    // Exclusive by shuffle, not by subtraction (exact for floats too); then the warp's
    // vectors in order: chunk j's offset in the warp is the totals of chunks 0..j-1.
    scan_t run = scan_t(0);
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        scan_t up = __shfl_up_sync(FULL_MASK, inc[j], 1);
        scan_t total = __shfl_sync(FULL_MASK, inc[j], WARP_THREADS - 1);
        exc[j] = lane == 0 ? run : run + up;
        run = run + total;
    }
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
        scan_t r = base + exc[j];
#pragma unroll
        for (int e = 0; e < VEC_ITEMS; e++) {
            scan_t before = r;
            r = r + x.e[e];
            x.e[e] = inclusive ? r : before;
        }
        if (vec_out) {
#if STORE_STREAMING
            __stcs(dst + j * WARP_THREADS, x.v);
#else
            dst[j * WARP_THREADS] = x.v;
#endif
        } else {
#pragma unroll
            for (int e = 0; e < VEC_ITEMS; e++) {
                u64 v = vbase + (u64)j * WARP_THREADS * VEC_ITEMS + e;
                if (v >= shift && v - shift < n) out[v - shift] = x.e[e];
            }
        }
    }
}
