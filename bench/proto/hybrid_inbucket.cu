// Stand-alone probe of the hybrid sort's in-bucket kernel (`hybrid_local_sort` in
// kernels/radix_sort_onesweep.cu) for u32/u32 pairs, built with nvcc on the device, no Rust:
// the kernel is measured on its own, on input that CUB has put in order by the keys' top 16
// bits (what the hybrid's MSD passes leave), and its output is checked against CUB's full pair
// sort at every element. Also times CUB's full pair sort and its sort of the top 16 bits only.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -DPROBE_PACKED=0|1 [-DHYB_BALANCE=1] [-DHYBRID_LOCAL_ITEMS=12
//        -DHYBRID_LOCAL_MIN_BLOCKS=3] [-DPROBE_FILL16=12] [-DHYBRID_LOCAL_THREADS=256]
//        hybrid_inbucket.cu
//   ./a.out LOG2_N [REPS]
// (-DHYB_DIAG=1|2|3 times parts of the kernel: no passes, one pass, no tie walk; its output is
// then wrong and reported so.)
//
// PROBE_PACKED 0: the module of u32 keys with u32 values (two arrays in, two out, as the hybrid
// sort runs today). 1: the u64 keys-only module with PACKED (one array of 64-bit elements, the
// key in the low half and the value in the high half, as the packed LSD passes leave them).
// CUB and the standard headers come first: the kernels' macros (WARP_THREADS, RADIX_BITS, ...)
// would rewrite CUB's own names of those identifiers.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

// (The kernels' `key_t` would clash with the one <sys/types.h> declares: renamed here.)
#define key_t hs_key_t

#define THREADS 256
#define ITEMS 16
#define RADIX_BITS 8
#define RANK_BALLOT 1
#define LOOKBACK 8
#define PREFETCH_AHEAD 0
#define VALUES_LATE 0
#define FREE_RANK_SKEW 8
#define PASS_SMEM_BYTES 200000
#define PASS_MIN_BLOCKS 1
#define STATUS_BITS 32
#define LANES_THREADS 512
#define LANES_PASSES 4
#define LANES_MIN_BLOCKS 1
#ifndef HYBRID_LOCAL_THREADS
#define HYBRID_LOCAL_THREADS 512
#endif
#ifndef HYBRID_LOCAL_ITEMS
#define HYBRID_LOCAL_ITEMS 16
#endif
#ifndef HYBRID_LOCAL_MIN_BLOCKS
#define HYBRID_LOCAL_MIN_BLOCKS 2
#endif
// As the host sizes it (src/cuda/sort.rs, `hybrid_local_shape`): 8 bytes a slot, the warps'
// 256 counters each, the scan's words and 8 words of chunk state.
#define PROBE_WARPS (HYBRID_LOCAL_THREADS / 32)
#define HYBRID_LOCAL_SMEM_BYTES                                                                 \
    ((HYBRID_LOCAL_THREADS * HYBRID_LOCAL_ITEMS * 8 + PROBE_WARPS * 256 * 4 + PROBE_WARPS * 4 + \
      32 + 15) / 16 * 16)
// The host's HYBRID_FILL_16THS (the average chunk's share of a block, in 16ths).
#ifndef PROBE_FILL16
#define PROBE_FILL16 8
#endif
#if PROBE_PACKED
#define KEY_BITS 64
#define KEY_KIND 0
#define VALUE_BYTES 0
#define PACKED 1
#define PACKED_KIND 0
#else
#define KEY_BITS 32
#define KEY_KIND 0
#define VALUE_BYTES 4
#endif

#include "../../kernels/common.cuh"
#include "../../kernels/radix_sort_onesweep.cu"
#undef key_t

#define CK(x)                                                                      \
    do {                                                                           \
        cudaError_t e = (x);                                                       \
        if (e != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,              \
                    cudaGetErrorString(e));                                        \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

__global__ void gen(u32 *k, u32 *v, u64 n, u64 seed) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u64 z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        k[i] = (u32)z;
        v[i] = (u32)i;
    }
}
__global__ void count16(const u32 *k, u64 n, u32 *c) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        atomicAdd(&c[k[i] >> 16], 1u);
}
__global__ void pack(const u32 *k, const u32 *v, u64 *p, u64 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        p[i] = (u64)k[i] | (u64)v[i] << 32;
}

static float median(std::vector<float> t) {
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv) {
    const int lg = argc > 1 ? atoi(argv[1]) : 26;
    const int reps = argc > 2 ? atoi(argv[2]) : 21;
    const u64 n = 1ull << lg;
    u32 *k, *v, *rk, *rv, *ak, *av, *ok, *ov, *meta;
    u64 *packed;
    CK(cudaMalloc(&k, n * 4));
    CK(cudaMalloc(&v, n * 4));
    CK(cudaMalloc(&rk, n * 4));
    CK(cudaMalloc(&rv, n * 4));
    CK(cudaMalloc(&ak, n * 4));
    CK(cudaMalloc(&av, n * 4));
    CK(cudaMalloc(&ok, n * 4));
    CK(cudaMalloc(&ov, n * 4));
    CK(cudaMalloc(&packed, n * 8));
    CK(cudaMalloc(&meta, HYB_WORDS * 4));
    CK(cudaMemset(meta, 0, HYB_WORDS * 4));
    gen<<<1024, 256>>>(k, v, n, 12345);
    CK(cudaGetLastError());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, k, rk, v, rv, (int)n));
    CK(cudaMalloc(&tmp, tmp_bytes));
    auto time = [&](auto f) {
        std::vector<float> t;
        for (int r = 0; r < 5 + reps; r++) {
            CK(cudaEventRecord(e0));
            f();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 5) t.push_back(ms);
        }
        CK(cudaGetLastError());
        std::vector<float> s = t;
        std::sort(s.begin(), s.end());
        printf("  median %.4f ms, min %.4f, max %.4f\n", median(t), s.front(), s.back());
        return median(t);
    };
    printf("n = 2^%d, PROBE_PACKED %d, HYB_BALANCE %d, items %d, min blocks %d, fill %d/16, "
           "HYB_DIAG %d, threads %d\n", lg, PROBE_PACKED, HYB_BALANCE, HYBRID_LOCAL_ITEMS,
           HYBRID_LOCAL_MIN_BLOCKS, PROBE_FILL16, HYB_DIAG, HYBRID_LOCAL_THREADS);
    printf("CUB SortPairs, all 32 bits:\n");
    time([&] { cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, k, rk, v, rv, (int)n); });
    printf("CUB SortPairs, bits [16, 32):\n");
    time([&] { cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, k, ak, v, av, (int)n, 16, 32); });
    // Bucket offsets (the hybrid scan's HYB_OFFSETS words), the exclusive scan of the counts.
    u32 *counts;
    CK(cudaMalloc(&counts, 65536 * 4));
    CK(cudaMemset(counts, 0, 65536 * 4));
    count16<<<1024, 256>>>(k, n, counts);
    void *t2 = nullptr;
    size_t t2b = 0;
    CK(cub::DeviceScan::ExclusiveSum(t2, t2b, counts, meta + HYB_OFFSETS, 65536));
    CK(cudaMalloc(&t2, t2b));
    CK(cub::DeviceScan::ExclusiveSum(t2, t2b, counts, meta + HYB_OFFSETS, 65536));
    std::vector<u32> off(65536);
    CK(cudaMemcpy(off.data(), meta + HYB_OFFSETS, 65536 * 4, cudaMemcpyDeviceToHost));
    const u32 cap = HYBRID_LOCAL_THREADS * HYBRID_LOCAL_ITEMS;
    const u64 target = (u64)cap * PROBE_FILL16 / 16;
    u32 c = 0;
    while (c < 16 && ((n << (c + 1)) >> 16) <= target) c++;
    u64 most = 0;
    for (u32 b = 0; b < 65536; b += 1u << c) {
        const u64 hi = b + (1u << c) < 65536 ? off[b + (1u << c)] : n;
        most = std::max(most, hi - off[b]);
    }
    printf("chunk_log2 %u, cap %u, largest chunk %llu, blocks %u\n", c, cap,
           (unsigned long long)most, 65536u >> c);
    if (most > cap) {
        printf("a chunk is larger than a block: not run\n");
        return 1;
    }
    pack<<<1024, 256>>>(ak, av, packed, n);
    CK(cudaFuncSetAttribute(hybrid_local_sort, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            HYBRID_LOCAL_SMEM_BYTES));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hybrid_local_sort,
                                                     HYBRID_LOCAL_THREADS, HYBRID_LOCAL_SMEM_BYTES));
    printf("hybrid_local_sort: %d blocks per SM\n", per_sm);
    const u32 sort_bits = 16 + c;
    printf("hybrid_local_sort (top extra 3):\n");
    auto local = [&] {
#if PROBE_PACKED
        hybrid_local_sort<<<65536u >> c, HYBRID_LOCAL_THREADS, HYBRID_LOCAL_SMEM_BYTES>>>(
            packed, (u64 *)ok, nullptr, (u8 *)ov, meta, n, c, sort_bits, 0, 0, 3);
#else
        hybrid_local_sort<<<65536u >> c, HYBRID_LOCAL_THREADS, HYBRID_LOCAL_SMEM_BYTES>>>(
            ak, ok, av, ov, meta, n, c, sort_bits, 0, 0, 3);
#endif
    };
    const float ms = time(local);
    printf("  %.1f GB/s (16 bytes a pair read and written)\n", n * 16.0 / ms / 1e6);
    // Poisoned outputs, one more run, then every element against CUB.
    CK(cudaMemset(ok, 0xab, n * 4));
    CK(cudaMemset(ov, 0xab, n * 4));
    local();
    CK(cudaDeviceSynchronize());
    std::vector<u32> hk(n), hv(n), gk(n), gv(n);
    CK(cudaMemcpy(hk.data(), ok, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hv.data(), ov, n * 4, cudaMemcpyDeviceToHost));
    CK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, k, rk, v, rv, (int)n));
    CK(cudaMemcpy(gk.data(), rk, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gv.data(), rv, n * 4, cudaMemcpyDeviceToHost));
    u64 bad = 0, first = n;
    for (u64 i = 0; i < n; i++)
        if (hk[i] != gk[i] || hv[i] != gv[i]) {
            if (!bad) first = i;
            bad++;
        }
    if (bad) {
        printf("MISMATCH: %llu elements differ, first at %llu: (%u, %u) against CUB (%u, %u)\n",
               (unsigned long long)bad, (unsigned long long)first, hk[first], hv[first],
               gk[first], gv[first]);
        return 2;
    }
    printf("output equals CUB's pair sort at every element\n");
    return 0;
}
