// Shared building blocks for every histosort kernel: fixed-width types, warp and block scans,
// and the order-preserving key bijection. NVRTC compiles each .cu file with this header
// prepended (no include path is needed), and every tunable arrives as a -D define from
// src/tuning/cuda.rs.

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;

struct __align__(16) v16 {
    u64 lo, hi;
};

#define WARP_THREADS 32
#define FULL_MASK 0xffffffffu

#ifndef THREADS
#error "THREADS (threads per block) must be defined by the host"
#endif
static_assert(THREADS % WARP_THREADS == 0, "blocks are whole warps");
static_assert(THREADS <= 1024, "at most 1024 threads per block");
#define NUM_WARPS (THREADS / WARP_THREADS)

__device__ __forceinline__ u32 lane_id() { return threadIdx.x & (WARP_THREADS - 1); }
__device__ __forceinline__ u32 warp_id() { return threadIdx.x / WARP_THREADS; }

// Asks L2 to fetch [p, p + bytes) ahead of its use: one bulk prefetch (sm_90 and later; a hint
// that holds no registers and returns nothing; older devices skip it). Only the whole 16-byte
// units inside the range are named, so nothing outside it is touched.
__device__ __forceinline__ void prefetch_l2(const void *p, unsigned long long bytes) {
#if __CUDA_ARCH__ >= 900
    const unsigned long long lo = ((unsigned long long)p + 15) & ~15ull;
    const unsigned long long hi = ((unsigned long long)p + bytes) & ~15ull;
    if (hi > lo)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(lo), "r"((u32)(hi - lo))
                     : "memory");
#else
    (void)p;
    (void)bytes;
#endif
}

// Programmatic dependent launch (sm_90 and later; no-ops on older devices and for kernels
// launched without the attribute). A kernel launched with programmatic stream serialization may
// start while the kernel before it in the stream still runs; `grid_dependency_wait` returns once
// that kernel has completed and its writes are visible, so nothing before it may read what the
// earlier kernel writes or write what it reads. `launch_dependents` lets the next such kernel
// start launching once every block of this grid has issued it (or exited): blocks that issue it
// at their start hand the next kernel the SMs as this grid's last blocks drain, instead of a
// launch gap and a ramp after the last block ends.
__device__ __forceinline__ void grid_dependency_wait() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void launch_dependents() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Transaction barriers (mbarrier) and bulk copies from global to shared memory (sm_90 and
// later): one thread arms the barrier with the bytes it expects and issues the copy, the
// others wait on the barrier's phase. Used by the pipelined scan and the sort's pass kernel.
#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ u32 smem_addr(const void *p) {
    return (u32)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(u64 *bar, u32 count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive(u64 *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_tx(u64 *bar, u32 bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}
// Waits for the completion of the barrier's phase of parity `parity`.
__device__ __forceinline__ void mbar_wait(u64 *bar, u32 parity) {
    u32 done;
    do {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(smem_addr(bar)), "r"(parity)
            : "memory");
    } while (!done);
}
__device__ __forceinline__ void bulk_load(void *dst, const void *src, u32 bytes, u64 *bar) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(smem_addr(dst)),
        "l"(src), "r"(bytes), "r"(smem_addr(bar))
        : "memory");
}
// Orders this thread's earlier generic-proxy accesses of shared memory before its later
// bulk copies into it.
__device__ __forceinline__ void fence_proxy_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// Makes a barrier's init visible to the async proxy (and the cluster) before its first use.
__device__ __forceinline__ void fence_mbar_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
#endif

// Inclusive scan across a warp with shuffles (Kogge-Stone, log2(32) steps).
template <typename T>
__device__ __forceinline__ T warp_inclusive_scan(T x) {
#pragma unroll
    for (int offset = 1; offset < WARP_THREADS; offset <<= 1) {
        T y = __shfl_up_sync(FULL_MASK, x, offset);
        if (lane_id() >= (u32)offset) x = x + y;
    }
    return x;
}

// Exclusive scan across a block of WARPS warps: warp scans, then one warp scans the warp
// totals. `ws` is shared scratch of WARPS elements. Every thread must call it. It ends with a
// barrier, so the caller may reuse `ws` (and whatever it read before the call) right away.
template <int WARPS, typename T>
__device__ __forceinline__ T block_exclusive_scan_warps(T x, T *ws, T &total) {
    static_assert(WARPS >= 1 && WARPS <= WARP_THREADS, "one warp scans the warp totals");
    T inc = warp_inclusive_scan(x);
    if (lane_id() == WARP_THREADS - 1) ws[warp_id()] = inc;
    __syncthreads();
    if (warp_id() == 0) {
        T w = lane_id() < WARPS ? ws[lane_id()] : T(0);
        T wi = warp_inclusive_scan(w);
        if (lane_id() < WARPS) ws[lane_id()] = wi;
    }
    __syncthreads();
    T prefix = warp_id() == 0 ? T(0) : ws[warp_id() - 1];
    total = ws[WARPS - 1];
    __syncthreads();
    return prefix + inc - x;
}

// The same for a block of THREADS threads.
template <typename T>
__device__ __forceinline__ T block_exclusive_scan(T x, T *ws, T &total) {
    return block_exclusive_scan_warps<NUM_WARPS>(x, ws, total);
}

// The lanes of the warp whose `d` (a BITS-bit digit) equals this lane's: __match_any_sync, or
// (RANK_BALLOT) one ballot per digit bit, ANDed: BITS votes and logic ops on the ALU pipe
// instead of one MATCH, whose throughput on sm_90 is far lower. Per bit, the PTX below becomes
// four instructions (a predicate-setting LOP3, VOTE, a predicated NOT and the AND); the plain C
// version compiled to six (the bit was extracted, compared and turned into a mask by SEL).
template <int BITS>
__device__ __forceinline__ u32 warp_peers(u32 d) {
#if defined(RANK_BALLOT) && RANK_BALLOT
    u32 m = FULL_MASK;
#pragma unroll
    for (int b = 0; b < BITS; b++) {
        u32 v;
        asm("{\n\t.reg .pred p;\n\t"
            "and.b32 %0, %1, %2;\n\t"
            "setp.ne.u32 p, %0, 0;\n\t"
            "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
            "@!p not.b32 %0, %0;\n\t"
            "}"
            : "=r"(v)
            : "r"(d), "r"(1u << b));
        m &= v;
    }
    return m;
#else
    return __match_any_sync(FULL_MASK, d);
#endif
}

// Warp-level multisplit ranking of the onesweep sort (its pass and single-launch kernels).
// `wh` is this warp's row of BITS-digit counters in shared memory. For each of the N rounds
// (key j of every lane), the highest lane of a digit's peers adds the round's count to the
// counter with one shared atomic and broadcasts the old value: pos[j] is the counter's start
// plus the key's rank among the warp's keys of its digit, in input order. With the counters
// zeroed that is the rank within the warp; seeded with each warp's first position per digit
// (early counts), it is the key's position in the tile. Rounds do not wait on each other: the
// counter is only touched by atomics, which a warp issues in order.
// Only the first `rounds` rounds are ranked (a count the whole warp agrees on); the others'
// positions are left unset. With `stage`, each key is also stored at its position there as soon
// as it is ranked, so that its register is free from that round on (a caller that reads `pos`
// no further lets the compiler drop the array).
template <int BITS, int N, typename K>
__device__ __forceinline__ void warp_rank(const K (&k)[N], u32 (&pos)[N], u32 *wh, u32 shift,
                                          u32 mask, u32 rounds = N, K *stage = nullptr) {
    const u32 lane = lane_id();
    const u32 lt = (1u << lane) - 1;
#pragma unroll
    for (int j = 0; j < N; j++) {
        if ((u32)j >= rounds) break;
        u32 d = (u32)(k[j] >> shift) & mask;
        u32 peers = warp_peers<BITS>(d);
        u32 leader = 31 - __clz(peers);
        u32 old = 0;
        if (lane == leader) old = atomicAdd(&wh[d], (u32)__popc(peers));
        old = __shfl_sync(FULL_MASK, old, leader);
        pos[j] = old + __popc(peers & lt);
        if (stage) stage[pos[j]] = k[j];
    }
}

// For the digit `d` (one thread per digit): the sum of the warps' counters hist[w * stride + d].
template <int WARPS>
__device__ __forceinline__ u32 digit_total(const u32 *hist, u32 stride, u32 d) {
    u32 count = 0;
#pragma unroll
    for (int w = 0; w < WARPS; w++) count += hist[w * stride + d];
    return count;
}

// For the digit `d`: replaces each warp's count by its first position, from `start` on.
template <int WARPS>
__device__ __forceinline__ void warp_starts(u32 *hist, u32 stride, u32 d, u32 start) {
    u32 run = start;
#pragma unroll
    for (int w = 0; w < WARPS; w++) {
        u32 c = hist[w * stride + d];
        hist[w * stride + d] = run;
        run += c;
    }
}

// ---------------------------------------------------------------------------------------------
// Keys. KEY_BITS is the key width, KEY_KIND 0 = unsigned, 1 = signed, 2 = float. The radix
// image is an unsigned integer whose order is the key's order (src/key.rs has the same maps and
// their tests): signed ints flip the sign bit; floats flip the sign bit of positives and every
// bit of negatives, which is the order of total_cmp (-NaN < -inf < ... < -0 < +0 < ... < +NaN).
#ifdef KEY_BITS
#if KEY_BITS == 8
typedef u8 key_t;
#elif KEY_BITS == 16
typedef u16 key_t;
#elif KEY_BITS == 32
typedef u32 key_t;
#elif KEY_BITS == 64
typedef u64 key_t;
#elif KEY_BITS == 128
typedef unsigned __int128 key_t;
#else
#error "KEY_BITS must be 8, 16, 32, 64 or 128"
#endif
#ifndef KEY_KIND
#error "KEY_KIND must be defined with KEY_BITS"
#endif
static_assert(KEY_KIND >= 0 && KEY_KIND <= 2, "KEY_KIND: 0 unsigned, 1 signed, 2 float");
static_assert(KEY_KIND != 2 || KEY_BITS == 32 || KEY_BITS == 64, "floats are f32 or f64");

#define KEY_SIGN ((key_t)((key_t)1 << (KEY_BITS - 1)))
static_assert(sizeof(key_t) * 8 == KEY_BITS, "key_t has KEY_BITS bits");
#define KEY_ALL_ONES ((key_t) ~(key_t)0)

__device__ __forceinline__ key_t to_radix(key_t b) {
#if KEY_KIND == 0
    return b;
#elif KEY_KIND == 1
    return (key_t)(b ^ KEY_SIGN);
#else
    return (b & KEY_SIGN) ? (key_t)~b : (key_t)(b | KEY_SIGN);
#endif
}

__device__ __forceinline__ key_t from_radix(key_t b) {
#if KEY_KIND == 0
    return b;
#elif KEY_KIND == 1
    return (key_t)(b ^ KEY_SIGN);
#else
    return (b & KEY_SIGN) ? (key_t)(b ^ KEY_SIGN) : (key_t)~b;
#endif
}

// The key a sort orders by: the radix image, complemented for descending order (a stable
// ascending sort of complements is the stable descending sort). `key_out` inverts `key_in`.
__device__ __forceinline__ key_t key_in(key_t k, u32 desc) {
    key_t r = to_radix(k);
    return desc ? (key_t)~r : r;
}
__device__ __forceinline__ key_t key_out(key_t r, u32 desc) {
    return from_radix(desc ? (key_t)~r : r);
}

__device__ __forceinline__ u32 digit_of(key_t k, u32 shift, u32 mask) {
    return (u32)(k >> shift) & mask;
}
#endif  // KEY_BITS

// Values carried by pair sorts. VALUE_BYTES 0 means keys only.
#ifdef VALUE_BYTES
#if VALUE_BYTES == 0
typedef u8 value_t;  // unused placeholder
#define HAS_VALUES 0
#elif VALUE_BYTES == 1
typedef u8 value_t;
#define HAS_VALUES 1
#elif VALUE_BYTES == 2
typedef u16 value_t;
#define HAS_VALUES 1
#elif VALUE_BYTES == 4
typedef u32 value_t;
#define HAS_VALUES 1
#elif VALUE_BYTES == 8
typedef u64 value_t;
#define HAS_VALUES 1
#elif VALUE_BYTES == 16
typedef v16 value_t;
#define HAS_VALUES 1
#else
#error "VALUE_BYTES must be 0, 1, 2, 4, 8 or 16"
#endif
#endif

// 16-bit counters, two to a 32-bit shared word, with wraps booked exactly in 32-bit global
// counters (the u16 histogram and the hybrid sort's bucket histogram): adds `k` samples of
// relative bin `b` to the shared words `s`, and +-65536 to `hist[b]` (or `hist[b + 1]`) for
// every multiple of 65536 a 16-bit counter crosses. Adding to the low half carries into the
// high half: the thread whose add wrapped the low counter takes the carry back, booking any
// crossing that the carry or its correction caused in the high counter (32-bit arithmetic that
// wraps; the final counts are exact while a launch counts fewer than 2^32 samples).
#define COUNT16_WRAP 0x10000u
__device__ __forceinline__ void count16(u32 *s, u32 *hist, u32 b, u32 k) {
    u32 *word = &s[b >> 1];
    if (b & 1) {
        u32 old = atomicAdd(word, k << 16);
        if ((old >> 16) + k >= COUNT16_WRAP) atomicAdd(&hist[b], COUNT16_WRAP);
    } else {
        u32 old = atomicAdd(word, k);
        if ((old & 0xffffu) + k >= COUNT16_WRAP) {
            // The low counter wrapped and carried one into the high counter (bin b + 1).
            atomicAdd(&hist[b], COUNT16_WRAP);
            if ((old >> 16) == 0xffffu) atomicAdd(&hist[b + 1], COUNT16_WRAP);  // carry wrapped it
            u32 fixed = atomicSub(word, COUNT16_WRAP);                        // take the carry back
            if ((fixed >> 16) == 0) atomicSub(&hist[b + 1], COUNT16_WRAP);    // that wrapped it down
        }
    }
}
