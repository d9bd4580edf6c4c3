// Launch and cluster microbenchmark (session 8): what one launch costs in the way histosort and
// CUB are timed (device events around the host call), and what a thread-block cluster's
// barrier and distributed-shared-memory exchange cost on this GPU.
//
//   nvcc -O3 -arch=sm_90 -o launch_cluster launch_cluster.cu && ./launch_cluster
//
// Every figure is the median (and 10% / 90% quantiles) of SAMPLES windows after WARMUPS.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

static const int WARMUPS = 20, SAMPLES = 300;

__global__ void empty_kernel(unsigned long long a, unsigned long long b, unsigned long long c,
                             unsigned long long d, unsigned n, unsigned x, unsigned y, unsigned z,
                             unsigned w) {
    if (n == 0xffffffffu && threadIdx.x == 1000) *(unsigned *)a = b + c + d + x + y + z + w;
}

// `reps` cluster barriers; returns nothing (timed from the host).
__global__ void cluster_sync_kernel(int reps, unsigned *sink) {
    cg::cluster_group cl = cg::this_cluster();
    for (int i = 0; i < reps; i++) cl.sync();
    if (threadIdx.x == 0 && reps < 0) sink[blockIdx.x] = 1;
}

// The split barrier with relaxed arrive (no release fence).
__global__ void cluster_relaxed_kernel(int reps, unsigned *sink) {
    for (int i = 0; i < reps; i++) {
        asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
        asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
    }
    if (threadIdx.x == 0 && reps < 0) sink[blockIdx.x] = 1;
}

// An all-to-all of 256 counters per block per round: every block writes its 256 words into
// every block's table (remote stores), a cluster barrier, then each thread sums a column.
__global__ void cluster_exchange_kernel(int reps, unsigned *sink) {
    extern __shared__ unsigned table[];  // [cluster size][256]
    cg::cluster_group cl = cg::this_cluster();
    const unsigned cs = cl.num_blocks(), me = cl.block_rank();
    unsigned acc = 0;
    for (int i = 0; i < reps; i++) {
        for (unsigned j = threadIdx.x; j < cs * 256; j += blockDim.x) {
            const unsigned dst = j / 256, d = j % 256;
            unsigned *remote = cl.map_shared_rank(table, dst);
            remote[me * 256 + d] = i + d;
        }
        cl.sync();
        if (threadIdx.x < 256)
            for (unsigned b = 0; b < cs; b++) acc += table[b * 256 + threadIdx.x];
        cl.sync();
    }
    if (acc == 0x12345678u) sink[blockIdx.x] = acc;
}

// A scatter of `per_block` 4-byte keys from each block into pseudo-random positions of the
// cluster's distributed array, then a barrier: one LSD pass's data movement, `reps` times.
__global__ void cluster_scatter_kernel(int reps, unsigned per_block, unsigned *sink) {
    extern __shared__ unsigned buf[];  // [2][per_block]
    cg::cluster_group cl = cg::this_cluster();
    const unsigned cs = cl.num_blocks(), me = cl.block_rank();
    for (unsigned j = threadIdx.x; j < per_block; j += blockDim.x) buf[j] = j * 2654435761u;
    cl.sync();
    for (int i = 0; i < reps; i++) {
        unsigned *src = buf + (i & 1) * per_block, *dst = buf + ((i + 1) & 1) * per_block;
        for (unsigned j = threadIdx.x; j < per_block; j += blockDim.x) {
            const unsigned k = src[j];
            const unsigned pos = (me * per_block + j) * 2654435761u % (cs * per_block);
            unsigned *r = cl.map_shared_rank(dst, pos / per_block);
            r[pos % per_block] = k + 1;
        }
        cl.sync();
    }
    if (threadIdx.x == 0 && buf[0] == 0x12345678u) sink[blockIdx.x] = buf[1];
}

struct Stat {
    double med, q10, q90;
};

static Stat timeit(cudaStream_t s, const std::function<void()> &f) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> v;
    for (int i = 0; i < WARMUPS + SAMPLES; i++) {
        CK(cudaEventRecord(a, s));
        f();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (i >= WARMUPS) v.push_back(ms * 1000.0);
    }
    std::sort(v.begin(), v.end());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return {v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]};
}

static void say(const char *what, Stat s) {
    std::printf("%-58s median %8.2f us  (q10 %.2f, q90 %.2f)\n", what, s.med, s.q10, s.q90);
}

template <typename K, typename... A>
static void launch_cluster(K kernel, unsigned blocks, unsigned threads, unsigned cs,
                           size_t smem, cudaStream_t s, A... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = cs;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

int main() {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    std::printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
    unsigned *sink;
    CK(cudaMalloc(&sink, 1 << 20));
    const unsigned long long q = (unsigned long long)sink;
    for (auto k : {(const void *)cluster_sync_kernel, (const void *)cluster_relaxed_kernel,
                   (const void *)cluster_exchange_kernel, (const void *)cluster_scatter_kernel}) {
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    }

    std::printf("-- one launch, timed by events around the host call --\n");
    say("empty <<<1,32>>>", timeit(s, [&] { empty_kernel<<<1, 32, 0, s>>>(q, 1, 2, 3, 4, 5, 6, 7, 8); }));
    say("empty <<<132,1024>>>",
        timeit(s, [&] { empty_kernel<<<132, 1024, 0, s>>>(q, 1, 2, 3, 4, 5, 6, 7, 8); }));
    {
        unsigned long long a = q, b = 1, c = 2, d = 3;
        unsigned n = 4, x = 5, y = 6, z = 7, w = 8;
        void *args[] = {&a, &b, &c, &d, &n, &x, &y, &z, &w};
        say("cooperative empty 132x256", timeit(s, [&] {
                CK(cudaLaunchCooperativeKernel((void *)empty_kernel, dim3(132), dim3(256), args, 0, s));
            }));
    }
    for (unsigned cs : {1u, 2u, 4u, 8u, 16u}) {
        char w[96];
        std::snprintf(w, sizeof w, "cluster launch empty, cluster %u x 1024 threads", cs);
        say(w, timeit(s, [&] { launch_cluster(cluster_sync_kernel, cs, 1024, cs, 0, s, 0, sink); }));
    }
    {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
        empty_kernel<<<132, 256, 0, s>>>(q, 1, 2, 3, 4, 5, 6, 7, 8);
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&ge, g, 0));
        say("graph of one empty kernel", timeit(s, [&] { CK(cudaGraphLaunch(ge, s)); }));
    }
    say("two empty launches back to back", timeit(s, [&] {
            empty_kernel<<<132, 256, 0, s>>>(q, 1, 2, 3, 4, 5, 6, 7, 8);
            empty_kernel<<<132, 256, 0, s>>>(q, 1, 2, 3, 4, 5, 6, 7, 8);
        }));

    std::printf("-- cluster barriers (per barrier: (t(1000) - t(0)) / 1000) --\n");
    for (unsigned cs : {2u, 4u, 8u, 16u}) {
        for (unsigned threads : {256u, 1024u}) {
            Stat t0 = timeit(s, [&] { launch_cluster(cluster_sync_kernel, cs, threads, cs, 0, s, 0, sink); });
            Stat t1 = timeit(s, [&] { launch_cluster(cluster_sync_kernel, cs, threads, cs, 0, s, 1000, sink); });
            Stat t2 = timeit(s, [&] { launch_cluster(cluster_relaxed_kernel, cs, threads, cs, 0, s, 1000, sink); });
            std::printf("cluster %2u x %4u: cluster.sync %.3f us, relaxed arrive + wait %.3f us\n", cs,
                        threads, (t1.med - t0.med) / 1000, (t2.med - t0.med) / 1000);
        }
    }
    std::printf("-- all-to-all of 256 counters per block + 2 barriers, per round (100 rounds) --\n");
    for (unsigned cs : {4u, 8u, 16u}) {
        Stat t0 = timeit(s, [&] { launch_cluster(cluster_exchange_kernel, cs, 1024, cs, cs * 1024, s, 0, sink); });
        Stat t1 = timeit(s, [&] { launch_cluster(cluster_exchange_kernel, cs, 1024, cs, cs * 1024, s, 100, sink); });
        std::printf("cluster %2u: %.3f us per round\n", cs, (t1.med - t0.med) / 100);
    }
    std::printf("-- scatter of n keys across the cluster + 1 barrier, per pass (40 passes) --\n");
    for (unsigned n : {1u << 12, 1u << 14, 1u << 15, 1u << 16, 1u << 17}) {
        for (unsigned cs : {4u, 8u, 16u}) {
            const unsigned per = n / cs;
            if (2 * per * 4 > 200 * 1024) continue;
            Stat t0 = timeit(s, [&] { launch_cluster(cluster_scatter_kernel, cs, 1024, cs, 2 * per * 4, s, 0, per, sink); });
            Stat t1 = timeit(s, [&] { launch_cluster(cluster_scatter_kernel, cs, 1024, cs, 2 * per * 4, s, 40, per, sink); });
            std::printf("n 2^%2d cluster %2u: %.3f us per pass (launch+fill %.2f us)\n", __builtin_ctz(n), cs,
                        (t1.med - t0.med) / 40, t0.med);
        }
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
