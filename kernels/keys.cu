// Elementwise passes around a sort: keys to radix images (complemented for descending order)
// and back, and the identity permutation for argsort.

extern "C" __global__ void __launch_bounds__(THREADS)
keys_to_radix(const key_t *__restrict__ in, key_t *__restrict__ out, u64 n, u32 descending) {
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += (u64)gridDim.x * THREADS) {
        out[i] = key_in(in[i], descending);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
radix_to_keys(const key_t *__restrict__ in, key_t *__restrict__ out, u64 n, u32 descending) {
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += (u64)gridDim.x * THREADS) {
        out[i] = key_out(in[i], descending);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS) iota_u32(u32 *out, u64 n) {
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += (u64)gridDim.x * THREADS)
        out[i] = (u32)i;
}

extern "C" __global__ void __launch_bounds__(THREADS) iota_u64(u64 *out, u64 n) {
    for (u64 i = (u64)blockIdx.x * THREADS + threadIdx.x; i < n; i += (u64)gridDim.x * THREADS)
        out[i] = i;
}
