// Device-wide prefix sum, reduce-then-scan (CUDA Handbook ch. 13): per tile a sum, the tile
// sums scanned (recursively, by the host), then every tile scanned from its offset. SCAN_T is
// the element type; integer sums wrap like the CPU's.

#ifndef SCAN_T
#error "SCAN_T must be defined"
#endif
#ifndef ITEMS
#error "ITEMS (elements per thread) must be defined"
#endif
typedef SCAN_T scan_t;
#define STILE (THREADS * ITEMS)

extern "C" __global__ void __launch_bounds__(THREADS)
scan_tile_sums(const scan_t *__restrict__ in, scan_t *__restrict__ sums, u64 n) {
    __shared__ scan_t s_ws[NUM_WARPS];
    const u64 base = (u64)blockIdx.x * STILE;
    scan_t acc = scan_t(0);
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u64 i = base + j * THREADS + threadIdx.x;
        if (i < n) acc = acc + in[i];
    }
    scan_t total;
    block_exclusive_scan(acc, s_ws, total);
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// Scans each tile; `tile_offsets` (exclusive scan of the tile sums) may be null for one tile.
// In place is allowed: a block reads its whole tile before it writes.
extern "C" __global__ void __launch_bounds__(THREADS)
scan_tiles(const scan_t *in, scan_t *out, const scan_t *__restrict__ tile_offsets, u64 n,
           u32 inclusive) {
    __shared__ scan_t s_data[STILE];
    __shared__ scan_t s_ws[NUM_WARPS];
    const u32 tid = threadIdx.x;
    const u64 base = (u64)blockIdx.x * STILE;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 i = j * THREADS + tid;
        s_data[i] = base + i < n ? in[base + i] : scan_t(0);
    }
    __syncthreads();
    scan_t x[ITEMS];
    scan_t sum = scan_t(0);
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        x[j] = s_data[tid * ITEMS + j];
        sum = sum + x[j];
    }
    scan_t total;
    scan_t run = block_exclusive_scan(sum, s_ws, total);
    if (tile_offsets) run = tile_offsets[blockIdx.x] + run;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        scan_t before = run;
        run = run + x[j];
        s_data[tid * ITEMS + j] = inclusive ? run : before;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        u32 i = j * THREADS + tid;
        if (base + i < n) out[base + i] = s_data[i];
    }
}
