// Prototype (session 13, issue 5): one onesweep digit pass whose decoupled look-back runs over
// CLUSTER tiles, so that wide digits (11 bits: 3 passes for 32-bit keys) do not pay a look-back
// that reads RADIX status words for every tile it walks back over (session 9: ~50 tiles back,
// 8 KiB each, the 11-bit pass 2.1-3.3x slower than the 8-bit one).
//
// A cluster of C blocks takes C consecutive tiles. Each block ranks its own tile (warp
// ballots, 16-bit warp counters) and stages it sorted by digit; then the blocks swap their
// digit counts through distributed shared memory: block r owns digits [r * RADIX / C,
// (r + 1) * RADIX / C), sums the C blocks' counts for them, publishes the cluster tile's
// aggregate, walks back over earlier cluster tiles for those digits only, publishes the
// inclusive prefix, and writes every block's destination base for its digits into that
// block's shared memory. With C = 8 and 11 bits each block looks back over 256 digits, as the
// 8-bit kernel does, and over 8x fewer (cluster) tiles.
//
// Standalone: nvcc -O3 -arch=sm_90 -std=c++17 cluster_lookback.cu -o cl && ./cl [lg_n]
// Times each pass (CUDA events, median of REPS sorts after a warm-up), checks the sorted keys
// against std::sort of the input at every element, for 8-bit digits with C = 1 (the control)
// and 11-bit digits with C = 1, 2, 4, 8. Not part of the library: an experiment whose figures
// go to bench/NOTES.md.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned long long u64;

#define CHECK(x)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

constexpr u32 THREADS = 256;
constexpr u32 WARPS = THREADS / 32;
constexpr u32 FLAG_AGG = 1u << 30, FLAG_INC = 2u << 30, FLAG_MASK = 3u << 30;

__device__ __forceinline__ u32 ld_status(const u32 *p) { return *(volatile const u32 *)p; }
__device__ __forceinline__ void st_status(u32 *p, u32 v) { *(volatile u32 *)p = v; }

template <u32 BITS, u32 ITEMS>
struct Smem {
    static constexpr u32 RADIX = 1u << BITS, TILE = THREADS * ITEMS;
    u32 staged[TILE];
    u16 whist[WARPS][RADIX];  // per warp: count, then the warp's first slot in the tile
    u32 cnt[RADIX];           // this tile's digit counts (read by the cluster)
    u32 lstart[RADIX];        // the digit's first slot in the staged tile
    u32 base[RADIX];          // written by the digit's owner block: destination of slot 0
    u32 ws[WARPS];
};

// One pass over bits [shift, shift + bits) of n keys (n a multiple of C * TILE).
// CONTIG (a diagnostic, wrong output): every block writes its staged tile to its own tile's
// place, so the time without the scattered runs shows what they cost.
template <u32 BITS, u32 ITEMS, u32 C, bool CONTIG>
__global__ void __launch_bounds__(THREADS, 2)
pass(const u32 *__restrict__ in, u32 *__restrict__ out, u32 *__restrict__ status,
     const u32 *__restrict__ goff, u32 shift, u32 bits) {
    using S = Smem<BITS, ITEMS>;
    constexpr u32 RADIX = S::RADIX, TILE = S::TILE, WARP_ITEMS = 32 * ITEMS;
    constexpr u32 DPT = RADIX / THREADS;       // digits per thread, block-local work
    constexpr u32 SLICE = RADIX / C;           // digits each block of the cluster owns
    static_assert(SLICE % THREADS == 0, "a slice is whole threads");
    constexpr u32 SPT = SLICE / THREADS;       // slice digits per thread
    extern __shared__ __align__(16) unsigned char smem_raw[];
    S &st = *reinterpret_cast<S *>(smem_raw);
    cg::cluster_group cluster = cg::this_cluster();
    const u32 me = cluster.block_rank();
    const u32 ctile = blockIdx.x / C;  // cluster tile (clusters start in order here)
    const u32 tile = ctile * C + me;
    const u32 tid = threadIdx.x, lane = tid & 31, warp = tid / 32;
    const u32 mask = (1u << bits) - 1;

    for (u32 i = tid; i < WARPS * RADIX / 2; i += THREADS) ((u32 *)&st.whist[0][0])[i] = 0;
    u32 k[ITEMS];
    const u32 *src = in + (u64)tile * TILE + warp * WARP_ITEMS + lane;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) k[j] = src[j * 32];
    __syncthreads();

    // Rank within the warp: peers by ballots, the leader bumps the warp counter.
    u32 rnk[ITEMS];
    const u32 lt = (1u << lane) - 1;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const u32 d = (k[j] >> shift) & mask;
        u32 peers = 0xffffffffu;
#pragma unroll
        for (u32 b = 0; b < BITS; b++) {
            const u32 m = __ballot_sync(0xffffffffu, (d >> b) & 1);
            peers &= ((d >> b) & 1) ? m : ~m;
        }
        const u32 leader = __ffs(peers) - 1;
        u32 old = 0;
        if (lane == leader) {
            old = st.whist[warp][d];
            st.whist[warp][d] = (u16)(old + __popc(peers));
        }
        old = __shfl_sync(0xffffffffu, old, leader);
        rnk[j] = old + __popc(peers & lt);
        __syncwarp();
    }
    __syncthreads();

    // Per digit: the tile's count, each warp's start; then the digit's first slot.
    u32 c[DPT], sum = 0;
    if (DPT == 8) {
        // A thread's 8 digits are 16 bytes of each warp's row: one vector per row, so the
        // warp's accesses do not conflict (the scalar loop below conflicts 4 ways here).
        u32 run[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
        for (u32 w = 0; w < WARPS; w++) {
            uint4 *row = (uint4 *)&st.whist[w][tid * 8];
            const uint4 x = *row;
            const u32 xs[4] = {x.x, x.y, x.z, x.w};
            u32 o[4];
#pragma unroll
            for (u32 i = 0; i < 4; i++) {
                o[i] = (run[2 * i] & 0xffff) | (run[2 * i + 1] << 16);
                run[2 * i] += xs[i] & 0xffff;
                run[2 * i + 1] += xs[i] >> 16;
            }
            *row = make_uint4(o[0], o[1], o[2], o[3]);
        }
#pragma unroll
        for (u32 q = 0; q < DPT; q++) {
            c[q] = run[q % 8];
            sum += c[q];
        }
        *(uint4 *)&st.cnt[tid * 8] = make_uint4(c[0], c[1 % DPT], c[2 % DPT], c[3 % DPT]);
        *(uint4 *)&st.cnt[tid * 8 + 4] = make_uint4(c[4 % DPT], c[5 % DPT], c[6 % DPT], c[7 % DPT]);
    } else {
#pragma unroll
        for (u32 q = 0; q < DPT; q++) {
            const u32 d = tid * DPT + q;
            u32 run = 0;
#pragma unroll
            for (u32 w = 0; w < WARPS; w++) {
                const u32 x = st.whist[w][d];
                st.whist[w][d] = (u16)run;
                run += x;
            }
            c[q] = run;
            st.cnt[d] = run;
            sum += run;
        }
    }
    // Block exclusive scan of the threads' sums.
    u32 incl = sum;
#pragma unroll
    for (u32 o = 1; o < 32; o <<= 1) {
        const u32 y = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += y;
    }
    if (lane == 31) st.ws[warp] = incl;
    __syncthreads();
    u32 wbase = 0;
#pragma unroll
    for (u32 w = 0; w < WARPS; w++) wbase += w < warp ? st.ws[w] : 0;
    u32 ex = wbase + incl - sum;
    if (DPT == 8) {
        u32 ls[8];
#pragma unroll
        for (u32 q = 0; q < 8; q++) {
            ls[q] = ex;
            ex += c[q % DPT];
        }
        *(uint4 *)&st.lstart[tid * 8] = make_uint4(ls[0], ls[1], ls[2], ls[3]);
        *(uint4 *)&st.lstart[tid * 8 + 4] = make_uint4(ls[4], ls[5], ls[6], ls[7]);
        u32 add[4];
#pragma unroll
        for (u32 i = 0; i < 4; i++) add[i] = ls[2 * i] | (ls[2 * i + 1] << 16);  // < 2^16 each
#pragma unroll
        for (u32 w = 0; w < WARPS; w++) {
            uint4 *row = (uint4 *)&st.whist[w][tid * 8];
            uint4 x = *row;
            x.x += add[0];
            x.y += add[1];
            x.z += add[2];
            x.w += add[3];
            *row = x;
        }
    } else {
#pragma unroll
        for (u32 q = 0; q < DPT; q++) {
            const u32 d = tid * DPT + q;
            st.lstart[d] = ex;
#pragma unroll
            for (u32 w = 0; w < WARPS; w++) st.whist[w][d] = (u16)(st.whist[w][d] + ex);
            ex += c[q];
        }
    }
    // Every block's counts visible to the cluster (and this block's starts to its warps).
    cluster.sync();

    // Stage the tile sorted by digit (overlaps nothing remote: the staging is local).
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const u32 d = (k[j] >> shift) & mask;
        st.staged[st.whist[warp][d] + rnk[j]] = k[j];
    }

    // The owner's work for its slice: cluster aggregate, look-back, bases for every block.
#pragma unroll 1
    for (u32 q = 0; q < SPT; q++) {
        const u32 d = me * SLICE + q * THREADS + tid;
        u32 pre[C], agg = 0;
#pragma unroll
        for (u32 b = 0; b < C; b++) {
            const u32 *rc = cluster.map_shared_rank(&st.cnt[0], b);
            pre[b] = agg;
            agg += rc[d];
        }
        u32 excl = 0;
        if (d <= mask) {
            u32 *my = &status[(u64)ctile * RADIX + d];
            if (ctile == 0) {
                st_status(my, FLAG_INC | agg);
            } else {
                st_status(my, FLAG_AGG | agg);
                int t = (int)ctile - 1;
                for (;;) {
                    constexpr int W = 4;
                    u32 w[W];
#pragma unroll
                    for (int i = 0; i < W; i++)
                        w[i] = t - i >= 0 ? ld_status(&status[(u64)(t - i) * RADIX + d]) : FLAG_INC;
                    int i = 0;
                    bool done = false;
                    for (; i < W; i++) {
                        const u32 f = w[i] & FLAG_MASK;
                        if (f == 0) break;
                        excl += w[i] & ~FLAG_MASK;
                        if (f == FLAG_INC) {
                            done = true;
                            break;
                        }
                    }
                    if (done) break;
                    t -= i;
                }
                st_status(my, FLAG_INC | (excl + agg));
            }
        }
        const u32 g = goff[d] + excl;
#pragma unroll
        for (u32 b = 0; b < C; b++) {
            u32 *rb = cluster.map_shared_rank(&st.base[0], b);
            u32 *rl = cluster.map_shared_rank(&st.lstart[0], b);
            rb[d] = g + pre[b] - rl[d];
        }
    }
    // Every base written (and no block's memory read remotely after this).
    cluster.sync();

#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const u32 s = j * THREADS + tid;
        const u32 x = st.staged[s];
        if (CONTIG)
            out[(u64)tile * TILE + s] = x;
        else
            out[st.base[(x >> shift) & mask] + s] = x;
    }
}

// Up-front histogram of every pass's digits (not timed: the production sort has one).
__global__ void histo(const u32 *in, u64 n, u32 *hist, u32 bits_per, u32 passes) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        const u32 x = in[i];
        for (u32 p = 0; p < passes; p++) {
            const u32 sh = p * bits_per;
            const u32 w = min(bits_per, 32 - sh);
            atomicAdd(&hist[p * 2048 + ((x >> sh) & ((1u << w) - 1))], 1u);
        }
    }
}

__global__ void fill(u32 *a, u64 n, u64 seed) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u64 z = (i + seed) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        a[i] = (u32)(z ^ (z >> 31));
    }
}

template <u32 BITS, u32 ITEMS, u32 C, bool CONTIG = false>
void run(u64 want, int reps, const char *label) {
    using S = Smem<BITS, ITEMS>;
    constexpr u32 RADIX = 1u << BITS, TILE = THREADS * ITEMS;
    const u64 ct = want / ((u64)C * TILE);
    const u64 n = ct * C * TILE;
    const u32 passes = (32 + BITS - 1) / BITS;
    u32 *in, *a, *b, *status, *hist, *goff;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&a, n * 4));
    CHECK(cudaMalloc(&b, n * 4));
    CHECK(cudaMalloc(&status, ct * RADIX * 4 * passes));
    CHECK(cudaMalloc(&hist, 4 * 2048 * 4));
    CHECK(cudaMalloc(&goff, 4 * 2048 * 4));
    fill<<<1024, 256>>>(in, n, 12345);
    CHECK(cudaMemset(hist, 0, 4 * 2048 * 4));
    histo<<<1024, 256>>>(in, n, hist, BITS, passes);
    std::vector<u32> h(4 * 2048), off(4 * 2048, 0);
    CHECK(cudaMemcpy(h.data(), hist, h.size() * 4, cudaMemcpyDeviceToHost));
    for (u32 p = 0; p < passes; p++) {
        u32 s = 0;
        for (u32 d = 0; d < 2048; d++) {
            off[p * 2048 + d] = s;
            s += h[p * 2048 + d];
        }
    }
    CHECK(cudaMemcpy(goff, off.data(), off.size() * 4, cudaMemcpyHostToDevice));

    auto kern = pass<BITS, ITEMS, C, CONTIG>;
    const size_t smem = sizeof(S);
    CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((u32)(ct * C));
    cfg.blockDim = dim3(THREADS);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = C;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, kern, &cfg));

    cudaEvent_t ev[5];
    for (auto &e : ev) CHECK(cudaEventCreate(&e));
    std::vector<std::vector<float>> t(passes);
    for (int r = 0; r < reps + 2; r++) {
        CHECK(cudaMemset(status, 0, ct * RADIX * 4 * passes));
        const u32 *src = in;
        u32 *dst = a;
        CHECK(cudaEventRecord(ev[0]));
        for (u32 p = 0; p < passes; p++) {
            const u32 sh = p * BITS, w = std::min(BITS, 32 - sh);
            CHECK(cudaLaunchKernelEx(&cfg, kern, src, dst, status + (u64)p * ct * RADIX,
                                     (const u32 *)(goff + p * 2048), sh, w));
            CHECK(cudaEventRecord(ev[p + 1]));
            src = dst;
            dst = dst == a ? b : a;
        }
        CHECK(cudaEventSynchronize(ev[passes]));
        CHECK(cudaGetLastError());
        if (r >= 2)
            for (u32 p = 0; p < passes; p++) {
                float ms;
                CHECK(cudaEventElapsedTime(&ms, ev[p], ev[p + 1]));
                t[p].push_back(ms * 1000);
            }
    }
    // Check every element against std::sort of the input.
    std::vector<u32> hin(n), hout(n);
    CHECK(cudaMemcpy(hin.data(), in, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hout.data(), passes % 2 ? a : b, n * 4, cudaMemcpyDeviceToHost));
    if (!CONTIG) std::sort(hin.begin(), hin.end());
    u64 bad = 0, first = n;
    for (u64 i = 0; i < n && !CONTIG; i++)
        if (hin[i] != hout[i]) {
            if (!bad) first = i;
            bad++;
        }
    printf("%-22s n=%llu tiles=%llu smem=%zu clusters=%d  passes(us median [min-max]):", label,
           (unsigned long long)n, (unsigned long long)(ct * C), smem, clusters);
    float total = 0;
    for (u32 p = 0; p < passes; p++) {
        std::sort(t[p].begin(), t[p].end());
        const float med = t[p][t[p].size() / 2];
        total += med;
        printf(" %.1f [%.1f-%.1f]", med, t[p].front(), t[p].back());
    }
    printf("  sum %.1f us (%.2f Gkeys/s) %s", total, n / (total * 1e3), CONTIG ? "(diagnostic: not checked)" : bad ? "MISMATCH" : "ok");
    if (bad) printf(" (%llu bad, first at %llu)", (unsigned long long)bad, (unsigned long long)first);
    printf("\n");
    for (auto &e : ev) CHECK(cudaEventDestroy(e));
    CHECK(cudaFree(in));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(status));
    CHECK(cudaFree(hist));
    CHECK(cudaFree(goff));
}

int main(int argc, char **argv) {
    const int lg = argc > 1 ? atoi(argv[1]) : 26;
    const u64 want = 1ull << lg;
    const int reps = 15;
    run<8, 28, 1>(want, reps, "8-bit C=1 256x28");
    run<8, 28, 1, true>(want, reps, "8-bit C=1 contig");
    run<11, 28, 8>(want, reps, "11-bit C=8 256x28");
    run<11, 28, 8, true>(want, reps, "11-bit C=8 contig");
    run<11, 28, 4>(want, reps, "11-bit C=4 256x28");
    run<11, 28, 1>(want, reps, "11-bit C=1 256x28");
    return 0;
}
