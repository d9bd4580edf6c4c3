// cub_bench: times NVIDIA CUB on the cases named on the command line, for `histosort bench
// peers`. Each case generates its input on the device, runs CUB once and checks the result
// (sortedness and payloads, bin totals, every prefix sum), then times warm-ups and samples
// with cudaEvents, out of place from an input the loop never writes. One JSON line per case
// goes to stdout with every sample:
//
//   cub_bench [--warmups W] [--samples S] [--seed X] [--keys DIST] CASE...
//   DIST (the sort cases' keys): uniform (default), distinct:N (N random keys, each drawn
//   uniformly) or entropy:W (the AND of W hashed words, in the order-preserving image: for f32
//   keys the image is turned back into bits as histosort's bijection does)
//   CASE: sort-keys T N | sort-pairs T N | sort-keys-bits T N BEGIN END
//         | histogram-even-u8 N DISTINCT | histogram-entropy-u8 N WORDS | histogram-even-u16 N | multi-histogram-rgba PIXELS
//         | histogram-even S N BINS | histogram-range S N BINS
//         | exclusive-sum T N | inclusive-sum T N | copy BYTES
//   T: u32, u64 or f32 (sort-pairs: u32 or u64 keys with u32 values)
//   Scan inputs: u32 below 2^16, u64 full-width (the sums wrap), f32 small integers in [-8, 8]
//   (mean zero: every partial sum stays far below 2^24 and is exact in any order, so every
//   element is compared exactly).
//   Bins inputs (S: f32, i32 or u32; the same definitions as histosort's side, src/bench/gpu.rs):
//   h = mix64(i ^ (seed << 1)); even bins over f32 [-1, 1) take bin-centred samples
//   -1 + (k + 0.5) * 2 / BINS with k = h % (BINS + 2m) - m, m = BINS / 8 + 1 (about a fifth fall
//   outside the range; no sample lies near a bin edge, so every way of rounding agrees);
//   i32 samples are -1.25e9 + h % 2.5e9 over [-1e9, 1e9), u32 samples are h over [1e8, 4e9);
//   range bins use the same ranges with boundaries lower + (upper - lower) * (j + j^2 / BINS)
//   / (2 BINS) (uneven: gaps of 1/2 to 3/2 of an even bin), f32 samples uniform in
//   [-1.25, 1.25). Every bin is compared with a host count.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_bench cub_bench.cu

#include <cub/cub.cuh>
#include <cuda/std/array>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Failure {
  std::string message;
};

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw Failure{std::string(what) + ": " + cudaGetErrorString(e)};
  }
}

// SplitMix64 of (index, seed): a stateless generator, so every thread makes its own key.
__host__ __device__ inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
__host__ __device__ inline T key_from_bits(uint64_t h);
template <>
__host__ __device__ inline uint32_t key_from_bits<uint32_t>(uint64_t h) { return (uint32_t)h; }
template <>
__host__ __device__ inline uint64_t key_from_bits<uint64_t>(uint64_t h) { return h; }
template <>
__host__ __device__ inline float key_from_bits<float>(uint64_t h) {
  // Every bit pattern, NaN and infinities included, as histosort's uniform f32 keys.
  uint32_t b = (uint32_t)h;
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

// The order-preserving image's inverse: identity for unsigned keys; for f32 a set top bit means
// a positive float (clear it), a clear one a negative float (flip every bit).
template <typename T>
__host__ __device__ inline T key_from_image(uint64_t h) {
  if (sizeof(T) == 4 && (T)0.5 != (T)0) {
    uint32_t b = (uint32_t)h;
    b = (b & 0x80000000u) ? (b ^ 0x80000000u) : ~b;
    return key_from_bits<T>(b);
  }
  return key_from_bits<T>(h);
}

// The sort cases' key distribution (--keys).
struct KeyDist {
  int kind = 0;  // 0 uniform, 1 distinct, 2 entropy
  uint64_t param = 0;
};

template <typename T>
__global__ void fill_keys(T* out, size_t n, uint64_t seed, KeyDist d) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint64_t h = mix64(i ^ (seed << 1));
    if (d.kind == 1) {
      h = mix64((h % d.param) ^ 0xd15c0de5ull ^ (seed << 1));
    } else if (d.kind == 2) {
      h = d.param == 0 ? 0 : ~0ull;
      for (uint64_t w = 0; w < d.param; ++w) h &= mix64((i * 8 + w) ^ (seed << 1));
    }
    out[i] = d.kind == 0 ? key_from_bits<T>(h) : key_from_image<T>(h);
  }
}

__global__ void fill_iota(uint32_t* out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    out[i] = (uint32_t)i;
  }
}

// `distinct` different byte values (odd multiplier: distinct residues map to distinct bytes).
__global__ void fill_bytes(uint8_t* out, size_t n, uint32_t distinct, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t j = (uint32_t)(mix64(i ^ (seed << 1)) % distinct);
    out[i] = (uint8_t)(j * 37u + 11u);
  }
}

// Reduced entropy (Thearling and Smith): each byte is the AND of `words` hashed bytes, so each
// bit is set with probability 2^-words; `words` = 0 gives all-zero bytes.
__global__ void fill_entropy_bytes(uint8_t* out, size_t n, uint32_t words, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint8_t b = words == 0 ? 0 : 0xff;
    for (uint32_t w = 0; w < words; ++w) b &= (uint8_t)mix64((i * 8 + w) ^ (seed << 1));
    out[i] = b;
  }
}

__global__ void fill_small(uint32_t* out, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    out[i] = (uint32_t)(mix64(i ^ (seed << 1)) & 0xffffu);
  }
}

// Scan inputs (see the header).
template <typename T>
__global__ void fill_scan(T* out, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint64_t h = mix64(i ^ (seed << 1));
    if (sizeof(T) == 8) out[i] = (T)h;
    else if ((T)0.5 != (T)0) out[i] = (T)((int)(h % 17) - 8);
    else out[i] = (T)(h & 0xffffu);
  }
}

__global__ void fill_u16(uint16_t* out, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    out[i] = (uint16_t)mix64(i ^ (seed << 1));
  }
}

const int kBlocks = 1024;
const int kThreads = 256;

// The order CUB sorts in: unsigned bits; floats through the usual sign flip, with -0.0 taken
// as +0.0 (CUB treats the two zeros as equal keys).
inline uint64_t order_bits(uint32_t k) { return k; }
inline uint64_t order_bits(uint64_t k) { return k; }
inline uint64_t order_bits(float k) {
  uint32_t b;
  memcpy(&b, &k, sizeof b);
  if (b == 0x80000000u) b = 0;
  return (b & 0x80000000u) ? (uint64_t)(~b) : (uint64_t)(b | 0x80000000u);
}

template <typename T>
const char* type_name();
template <>
const char* type_name<uint32_t>() { return "u32"; }
template <>
const char* type_name<uint64_t>() { return "u64"; }
template <>
const char* type_name<float>() { return "f32"; }

struct Timing {
  int warmups = 5;
  int samples = 20;
  uint64_t seed = 0x5eed2026ull;
  KeyDist keys;
  std::string keys_name = "uniform";
};

// Runs `op` once (the caller has checked it), then the warm-ups, then timed samples.
template <typename Op>
std::vector<float> time_op(const Timing& t, Op op) {
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < t.warmups; ++i) op();
  check_cuda(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> v;
  for (int i = 0; i < t.samples; ++i) {
    check_cuda(cudaEventRecord(start), "cudaEventRecord");
    op();
    check_cuda(cudaEventRecord(stop), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    v.push_back(ms);
  }
  check_cuda(cudaGetLastError(), "timed runs");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return v;
}

void print_result(const std::string& fields, size_t temp_bytes, const std::string& check, const std::vector<float>& times) {
  printf("{%s,\"ok\":true,\"temp_bytes\":%zu,\"check\":\"%s\",\"times_ms\":[", fields.c_str(), temp_bytes, check.c_str());
  for (size_t i = 0; i < times.size(); ++i) printf("%s%.6f", i ? "," : "", times[i]);
  printf("]}\n");
  fflush(stdout);
}

void print_error(const std::string& fields, const std::string& message) {
  std::string m;
  for (char c : message) {
    if (c == '"' || c == '\\') m += '\\';
    m += (c == '\n') ? ' ' : c;
  }
  printf("{%s,\"ok\":false,\"error\":\"%s\"}\n", fields.c_str(), m.c_str());
  fflush(stdout);
}

std::string case_fields(const char* name, const char* dtype, size_t n, int begin_bit, int end_bit, int distinct) {
  char buf[256];
  snprintf(buf, sizeof buf, "\"case\":\"%s\",\"dtype\":\"%s\",\"n\":%zu,\"begin_bit\":%d,\"end_bit\":%d,\"distinct\":%d", name, dtype, n, begin_bit, end_bit, distinct);
  return buf;
}

template <typename T>
void sort_case(const Timing& t, size_t n, bool pairs, int begin_bit, int end_bit) {
  const int bits = (int)(sizeof(T) * 8);
  if (end_bit < 0) end_bit = bits;
  const char* name = pairs ? "sort-pairs" : (begin_bit == 0 && end_bit == bits ? "sort-keys" : "sort-keys-bits");
  std::string fields = case_fields(name, type_name<T>(), n, begin_bit, end_bit, 0) + ",\"dist\":\"" + t.keys_name + "\"";
  T *keys_in = nullptr, *keys_out = nullptr;
  uint32_t *vals_in = nullptr, *vals_out = nullptr;
  void* temp = nullptr;
  try {
    check_cuda(cudaMalloc(&keys_in, n * sizeof(T)), "cudaMalloc keys");
    check_cuda(cudaMalloc(&keys_out, n * sizeof(T)), "cudaMalloc keys");
    if (pairs) {
      check_cuda(cudaMalloc(&vals_in, n * sizeof(uint32_t)), "cudaMalloc values");
      check_cuda(cudaMalloc(&vals_out, n * sizeof(uint32_t)), "cudaMalloc values");
      fill_iota<<<kBlocks, kThreads>>>(vals_in, n);
    }
    fill_keys<T><<<kBlocks, kThreads>>>(keys_in, n, t.seed, t.keys);
    check_cuda(cudaGetLastError(), "fill");
    const int num = (int)n;
    size_t temp_bytes = 0;
    if (pairs) {
      check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, vals_in, vals_out, num, begin_bit, end_bit), "SortPairs (size)");
    } else {
      check_cuda(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys_in, keys_out, num, begin_bit, end_bit), "SortKeys (size)");
    }
    check_cuda(cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1), "cudaMalloc temp");
    auto op = [&]() {
      size_t bytes = temp_bytes;
      if (pairs) {
        check_cuda(cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, vals_in, vals_out, num, begin_bit, end_bit), "SortPairs");
      } else {
        check_cuda(cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in, keys_out, num, begin_bit, end_bit), "SortKeys");
      }
    };
    op();
    check_cuda(cudaDeviceSynchronize(), "first sort");
    // Check: the bits [begin, end) never decrease; for pairs every value points at an input
    // key equal to its key, and ties keep increasing values (stability).
    std::vector<T> in(n), out(n);
    check_cuda(cudaMemcpy(in.data(), keys_in, n * sizeof(T), cudaMemcpyDeviceToHost), "copy back");
    check_cuda(cudaMemcpy(out.data(), keys_out, n * sizeof(T), cudaMemcpyDeviceToHost), "copy back");
    std::vector<uint32_t> vals;
    if (pairs) {
      vals.resize(n);
      check_cuda(cudaMemcpy(vals.data(), vals_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost), "copy back");
    }
    const uint64_t width = (uint64_t)(end_bit - begin_bit);
    const uint64_t mask = width >= 64 ? ~0ull : ((1ull << width) - 1);
    auto digit = [&](T k) { return (order_bits(k) >> begin_bit) & mask; };
    for (size_t i = 1; i < n; ++i) {
      if (digit(out[i - 1]) > digit(out[i])) throw Failure{"output not sorted at element " + std::to_string(i)};
    }
    if (pairs) {
      for (size_t i = 0; i < n; ++i) {
        if (vals[i] >= n || memcmp(&in[vals[i]], &out[i], sizeof(T)) != 0) throw Failure{"payload does not match its key at element " + std::to_string(i)};
        if (i > 0 && digit(out[i - 1]) == digit(out[i]) && vals[i - 1] >= vals[i]) throw Failure{"not stable at element " + std::to_string(i)};
      }
    }
    std::vector<float> times = time_op(t, op);
    print_result(fields, temp_bytes, pairs ? "sorted, payloads and stability" : "sorted", times);
  } catch (const Failure& f) {
    print_error(fields, f.message);
  }
  cudaFree(keys_in);
  cudaFree(keys_out);
  cudaFree(vals_in);
  cudaFree(vals_out);
  cudaFree(temp);
  cudaGetLastError();
}

// HistogramEven of n u8 samples into 256 bins: `distinct` different values (1 to 256), or, with
// `entropy_words` >= 0, the reduced-entropy bytes of fill_entropy_bytes.
void histogram_case(const Timing& t, size_t n, int distinct, int entropy_words = -1) {
  const bool entropy = entropy_words >= 0;
  std::string fields = entropy ? case_fields("histogram-entropy-u8", "u8", n, 0, 0, entropy_words)
                               : case_fields("histogram-even-u8", "u8", n, 0, 0, distinct);
  uint8_t* samples = nullptr;
  unsigned int* hist = nullptr;
  void* temp = nullptr;
  try {
    if (!entropy && (distinct < 1 || distinct > 256)) throw Failure{"distinct must be 1 to 256"};
    if (entropy && entropy_words > 64) throw Failure{"entropy words must be 0 to 64"};
    check_cuda(cudaMalloc(&samples, n), "cudaMalloc samples");
    check_cuda(cudaMalloc(&hist, 256 * sizeof(unsigned int)), "cudaMalloc histogram");
    if (entropy) fill_entropy_bytes<<<kBlocks, kThreads>>>(samples, n, (uint32_t)entropy_words, t.seed);
    else fill_bytes<<<kBlocks, kThreads>>>(samples, n, (uint32_t)distinct, t.seed);
    check_cuda(cudaGetLastError(), "fill");
    const int num = (int)n;
    const int levels = 257;
    const int lower = 0, upper = 256;
    size_t temp_bytes = 0;
    check_cuda(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples, hist, levels, lower, upper, num), "HistogramEven (size)");
    check_cuda(cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1), "cudaMalloc temp");
    auto op = [&]() {
      size_t bytes = temp_bytes;
      check_cuda(cub::DeviceHistogram::HistogramEven(temp, bytes, samples, hist, levels, lower, upper, num), "HistogramEven");
    };
    op();
    check_cuda(cudaDeviceSynchronize(), "first histogram");
    std::vector<unsigned int> h(256);
    check_cuda(cudaMemcpy(h.data(), hist, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost), "copy back");
    uint64_t total = 0;
    int nonzero = 0;
    for (unsigned int c : h) {
      total += c;
      nonzero += c > 0;
    }
    if (total != n) throw Failure{"bins sum to " + std::to_string(total) + ", not " + std::to_string(n)};
    if (!entropy && n >= 4096 && nonzero != distinct) throw Failure{std::to_string(nonzero) + " bins used, expected " + std::to_string(distinct)};
    std::vector<float> times = time_op(t, op);
    print_result(fields, temp_bytes, "bin total and bins used", times);
  } catch (const Failure& f) {
    print_error(fields, f.message);
  }
  cudaFree(samples);
  cudaFree(hist);
  cudaFree(temp);
  cudaGetLastError();
}

template <typename T>
void scan_case(const Timing& t, size_t n, bool inclusive) {
  std::string fields = case_fields(inclusive ? "inclusive-sum" : "exclusive-sum", type_name<T>(), n, 0, 0, 0);
  T *in = nullptr, *out = nullptr;
  void* temp = nullptr;
  try {
    check_cuda(cudaMalloc(&in, n * sizeof(T)), "cudaMalloc in");
    check_cuda(cudaMalloc(&out, n * sizeof(T)), "cudaMalloc out");
    fill_scan<T><<<kBlocks, kThreads>>>(in, n, t.seed);
    check_cuda(cudaGetLastError(), "fill");
    const int num = (int)n;
    size_t temp_bytes = 0;
    if (inclusive) {
      check_cuda(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out, num), "InclusiveSum (size)");
    } else {
      check_cuda(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out, num), "ExclusiveSum (size)");
    }
    check_cuda(cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1), "cudaMalloc temp");
    auto op = [&]() {
      size_t bytes = temp_bytes;
      if (inclusive) {
        check_cuda(cub::DeviceScan::InclusiveSum(temp, bytes, in, out, num), "InclusiveSum");
      } else {
        check_cuda(cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, num), "ExclusiveSum");
      }
    };
    op();
    check_cuda(cudaDeviceSynchronize(), "first scan");
    std::vector<T> a(n), b(n);
    check_cuda(cudaMemcpy(a.data(), in, n * sizeof(T), cudaMemcpyDeviceToHost), "copy back");
    check_cuda(cudaMemcpy(b.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost), "copy back");
    T sum = 0;
    for (size_t i = 0; i < n; ++i) {
      if (inclusive) sum += a[i];
      if (b[i] != sum) throw Failure{"prefix sum wrong at element " + std::to_string(i)};
      if (!inclusive) sum += a[i];
    }
    std::vector<float> times = time_op(t, op);
    print_result(fields, temp_bytes, "every element", times);
  } catch (const Failure& f) {
    print_error(fields, f.message);
  }
  cudaFree(in);
  cudaFree(out);
  cudaFree(temp);
  cudaGetLastError();
}

// 65536 bins of 16-bit samples (levels 0..65536 as int), every bin checked on the host.
void histogram_u16_case(const Timing& t, size_t n) {
  std::string fields = case_fields("histogram-even-u16", "u16", n, 0, 0, 0);
  uint16_t* samples = nullptr;
  unsigned int* hist = nullptr;
  void* temp = nullptr;
  try {
    check_cuda(cudaMalloc(&samples, n * sizeof(uint16_t)), "cudaMalloc samples");
    check_cuda(cudaMalloc(&hist, 65536 * sizeof(unsigned int)), "cudaMalloc histogram");
    fill_u16<<<kBlocks, kThreads>>>(samples, n, t.seed);
    check_cuda(cudaGetLastError(), "fill");
    const int num = (int)n;
    const int levels = 65537;
    const int lower = 0, upper = 65536;
    size_t temp_bytes = 0;
    check_cuda(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples, hist, levels, lower, upper, num), "HistogramEven (size)");
    check_cuda(cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1), "cudaMalloc temp");
    auto op = [&]() {
      size_t bytes = temp_bytes;
      check_cuda(cub::DeviceHistogram::HistogramEven(temp, bytes, samples, hist, levels, lower, upper, num), "HistogramEven");
    };
    op();
    check_cuda(cudaDeviceSynchronize(), "first histogram");
    std::vector<uint16_t> host(n);
    std::vector<unsigned int> h(65536), want(65536, 0);
    check_cuda(cudaMemcpy(host.data(), samples, n * sizeof(uint16_t), cudaMemcpyDeviceToHost), "copy back");
    check_cuda(cudaMemcpy(h.data(), hist, 65536 * sizeof(unsigned int), cudaMemcpyDeviceToHost), "copy back");
    for (uint16_t x : host) want[x]++;
    for (int b = 0; b < 65536; ++b) {
      if (h[b] != want[b]) throw Failure{"bin " + std::to_string(b) + " wrong"};
    }
    std::vector<float> times = time_op(t, op);
    print_result(fields, temp_bytes, "every bin", times);
  } catch (const Failure& f) {
    print_error(fields, f.message);
  }
  cudaFree(samples);
  cudaFree(hist);
  cudaFree(temp);
  cudaGetLastError();
}

// Bins inputs (see the header).
struct BinsSpec {
  double lower, upper;
};
template <typename S>
BinsSpec bins_spec();
template <>
BinsSpec bins_spec<float>() { return {-1.0, 1.0}; }
template <>
BinsSpec bins_spec<int32_t>() { return {-1e9, 1e9}; }
template <>
BinsSpec bins_spec<uint32_t>() { return {1e8, 4e9}; }

template <typename S>
__global__ void fill_bins(S* out, size_t n, uint64_t seed, uint32_t bins, bool centred) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint64_t h = mix64(i ^ (seed << 1));
    if ((S)0.5 != (S)0) {
      if (centred) {
        int64_t m = bins / 8 + 1;
        int64_t k = (int64_t)(h % (uint64_t)(bins + 2 * m)) - m;
        out[i] = (S)(-1.0 + ((double)k + 0.5) * 2.0 / bins);
      } else {
        out[i] = (S)(-1.25 + 2.5 * ((double)(h >> 11) * 0x1.0p-53));
      }
    } else if ((S)-1 < (S)0) {
      out[i] = (S)(-1250000000ll + (int64_t)(h % 2500000000ull));
    } else {
      out[i] = (S)h;
    }
  }
}

template <typename S>
std::vector<S> range_levels(uint32_t bins) {
  BinsSpec r = bins_spec<S>();
  std::vector<S> v(bins + 1);
  for (uint32_t j = 0; j <= bins; ++j) {
    double f = ((double)j + (double)j * j / bins) / (2.0 * bins);
    v[j] = (S)(r.lower + (r.upper - r.lower) * f);
  }
  v[bins] = (S)r.upper;
  return v;
}

template <typename S>
const char* sample_name();
template <>
const char* sample_name<float>() { return "f32"; }
template <>
const char* sample_name<int32_t>() { return "i32"; }
template <>
const char* sample_name<uint32_t>() { return "u32"; }

// HistogramEven / HistogramRange of n samples of S into `bins` bins; every bin checked.
template <typename S>
void bins_case(const Timing& t, size_t n, uint32_t bins, bool range) {
  std::string fields = case_fields(range ? "histogram-range" : "histogram-even", sample_name<S>(), n, 0, 0, (int)bins);
  S* samples = nullptr;
  S* levels_d = nullptr;
  unsigned int* hist = nullptr;
  void* temp = nullptr;
  try {
    if (bins < 1) throw Failure{"bins must be at least 1"};
    const BinsSpec r = bins_spec<S>();
    check_cuda(cudaMalloc(&samples, n * sizeof(S)), "cudaMalloc samples");
    check_cuda(cudaMalloc(&hist, bins * sizeof(unsigned int)), "cudaMalloc histogram");
    fill_bins<S><<<kBlocks, kThreads>>>(samples, n, t.seed, bins, !range);
    check_cuda(cudaGetLastError(), "fill");
    const int num = (int)n;
    const int num_levels = (int)bins + 1;
    const S lower = (S)r.lower, upper = (S)r.upper;
    std::vector<S> levels = range_levels<S>(bins);
    check_cuda(cudaMalloc(&levels_d, levels.size() * sizeof(S)), "cudaMalloc levels");
    check_cuda(cudaMemcpy(levels_d, levels.data(), levels.size() * sizeof(S), cudaMemcpyHostToDevice), "copy levels");
    size_t temp_bytes = 0;
    if (range) check_cuda(cub::DeviceHistogram::HistogramRange(nullptr, temp_bytes, samples, hist, num_levels, levels_d, num), "HistogramRange (size)");
    else check_cuda(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples, hist, num_levels, lower, upper, num), "HistogramEven (size)");
    check_cuda(cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1), "cudaMalloc temp");
    auto op = [&]() {
      size_t bytes = temp_bytes;
      if (range) check_cuda(cub::DeviceHistogram::HistogramRange(temp, bytes, samples, hist, num_levels, levels_d, num), "HistogramRange");
      else check_cuda(cub::DeviceHistogram::HistogramEven(temp, bytes, samples, hist, num_levels, lower, upper, num), "HistogramEven");
    };
    op();
    check_cuda(cudaDeviceSynchronize(), "first histogram");
    std::vector<S> host(n);
    std::vector<unsigned int> h(bins), want(bins, 0);
    check_cuda(cudaMemcpy(host.data(), samples, n * sizeof(S), cudaMemcpyDeviceToHost), "copy back");
    check_cuda(cudaMemcpy(h.data(), hist, bins * sizeof(unsigned int), cudaMemcpyDeviceToHost), "copy back");
    for (S x : host) {
      if (range) {
        size_t b = std::upper_bound(levels.begin(), levels.end(), x) - levels.begin();
        if (b >= 1 && b <= bins) want[b - 1]++;
      } else if (x >= lower && x < upper) {
        uint64_t b;
        if ((S)0.5 != (S)0) b = (uint64_t)(((double)x - r.lower) / (r.upper - r.lower) * bins);
        else b = (uint64_t)((int64_t)x - (int64_t)lower) * bins / (uint64_t)((int64_t)upper - (int64_t)lower);
        want[b < bins ? b : bins - 1]++;
      }
    }
    for (uint32_t b = 0; b < bins; ++b) {
      if (h[b] != want[b]) throw Failure{"bin " + std::to_string(b) + ": " + std::to_string(h[b]) + ", expected " + std::to_string(want[b])};
    }
    std::vector<float> times = time_op(t, op);
    print_result(fields, temp_bytes, "every bin", times);
  } catch (const Failure& f) {
    print_error(fields, f.message);
  }
  cudaFree(samples);
  cudaFree(levels_d);
  cudaFree(hist);
  cudaFree(temp);
  cudaGetLastError();
}

// RGBA pixels (uniform bytes): 4 channels of 256 bins, every bin checked on the host.
void multi_histogram_case(const Timing& t, size_t pixels) {
  std::string fields = case_fields("multi-histogram-rgba", "u8", pixels, 0, 0, 256);
  uint8_t* samples = nullptr;
  unsigned int* hist = nullptr;
  void* temp = nullptr;
  const size_t n = pixels * 4;
  try {
    check_cuda(cudaMalloc(&samples, n), "cudaMalloc samples");
    check_cuda(cudaMalloc(&hist, 4 * 256 * sizeof(unsigned int)), "cudaMalloc histogram");
    fill_bytes<<<kBlocks, kThreads>>>(samples, n, 256, t.seed);
    check_cuda(cudaGetLastError(), "fill");
#if CUB_VERSION >= 300000
    // CUB 3 takes cuda::std::arrays (the C-array overload is deprecated).
    ::cuda::std::array<unsigned int*, 4> hists{hist, hist + 256, hist + 512, hist + 768};
    ::cuda::std::array<int, 4> levels{257, 257, 257, 257};
    ::cuda::std::array<int, 4> lower{0, 0, 0, 0};
    ::cuda::std::array<int, 4> upper{256, 256, 256, 256};
#else
    unsigned int* hists[4] = {hist, hist + 256, hist + 512, hist + 768};
    int levels[4] = {257, 257, 257, 257};
    int lower[4] = {0, 0, 0, 0};
    int upper[4] = {256, 256, 256, 256};
#endif
    const int num = (int)pixels;
    size_t temp_bytes = 0;
    check_cuda(cub::DeviceHistogram::MultiHistogramEven<4, 4>(nullptr, temp_bytes, samples, hists, levels, lower, upper, num), "MultiHistogramEven (size)");
    check_cuda(cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1), "cudaMalloc temp");
    auto op = [&]() {
      size_t bytes = temp_bytes;
      check_cuda(cub::DeviceHistogram::MultiHistogramEven<4, 4>(temp, bytes, samples, hists, levels, lower, upper, num), "MultiHistogramEven");
    };
    op();
    check_cuda(cudaDeviceSynchronize(), "first histogram");
    std::vector<uint8_t> host(n);
    std::vector<unsigned int> h(1024), want(1024, 0);
    check_cuda(cudaMemcpy(host.data(), samples, n, cudaMemcpyDeviceToHost), "copy back");
    check_cuda(cudaMemcpy(h.data(), hist, 1024 * sizeof(unsigned int), cudaMemcpyDeviceToHost), "copy back");
    for (size_t i = 0; i < n; ++i) want[(i % 4) * 256 + host[i]]++;
    for (int b = 0; b < 1024; ++b) {
      if (h[b] != want[b]) throw Failure{"channel " + std::to_string(b / 256) + " bin " + std::to_string(b % 256) + " wrong"};
    }
    std::vector<float> times = time_op(t, op);
    print_result(fields, temp_bytes, "every bin of every channel", times);
  } catch (const Failure& f) {
    print_error(fields, f.message);
  }
  cudaFree(samples);
  cudaFree(hist);
  cudaFree(temp);
  cudaGetLastError();
}

void copy_case(const Timing& t, size_t bytes) {
  std::string fields = case_fields("copy", "u8", bytes, 0, 0, 0);
  void *src = nullptr, *dst = nullptr;
  try {
    check_cuda(cudaMalloc(&src, bytes), "cudaMalloc");
    check_cuda(cudaMalloc(&dst, bytes), "cudaMalloc");
    check_cuda(cudaMemset(src, 1, bytes), "cudaMemset");
    auto op = [&]() { check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync"); };
    op();
    check_cuda(cudaDeviceSynchronize(), "first copy");
    std::vector<float> times = time_op(t, op);
    print_result(fields, 0, "none", times);
  } catch (const Failure& f) {
    print_error(fields, f.message);
  }
  cudaFree(src);
  cudaFree(dst);
  cudaGetLastError();
}

size_t parse_size(const char* s) { return (size_t)strtoull(s, nullptr, 10); }

}  // namespace

int main(int argc, char** argv) {
  Timing t;
  int i = 1;
  for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
    if (!strcmp(argv[i], "--warmups")) t.warmups = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--samples")) t.samples = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seed")) t.seed = strtoull(argv[i + 1], nullptr, 10);
    else if (!strcmp(argv[i], "--keys")) {
      const char* k = argv[i + 1];
      if (!strcmp(k, "uniform")) {
        t.keys = KeyDist{};
        t.keys_name = "uniform";
      } else if (!strncmp(k, "distinct:", 9) && strtoull(k + 9, nullptr, 10) > 0) {
        t.keys = KeyDist{1, strtoull(k + 9, nullptr, 10)};
        t.keys_name = std::string("distinct-") + (k + 9);
      } else if (!strncmp(k, "entropy:", 8) && k[8] >= '0' && k[8] <= '9') {
        t.keys = KeyDist{2, strtoull(k + 8, nullptr, 10)};
        t.keys_name = std::string("entropy-words-") + (k + 8);
      } else {
        fprintf(stderr, "unknown key distribution %s (uniform, distinct:N, entropy:W)\n", k);
        return 2;
      }
    }
    else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  int device = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  printf("{\"info\":true,\"device\":\"%s\",\"cub_version\":%d,\"cuda_runtime\":%d,\"warmups\":%d,\"samples\":%d}\n", prop.name, (int)CUB_VERSION, runtime, t.warmups, t.samples);
  fflush(stdout);
  while (i < argc) {
    std::string c = argv[i];
    auto need = [&](int k) {
      if (i + k >= argc) {
        fprintf(stderr, "case %s needs %d arguments\n", c.c_str(), k);
        exit(2);
      }
    };
    if (c == "sort-keys" || c == "sort-pairs") {
      need(2);
      std::string ty = argv[i + 1];
      size_t n = parse_size(argv[i + 2]);
      bool pairs = c == "sort-pairs";
      if (ty == "u32") sort_case<uint32_t>(t, n, pairs, 0, -1);
      else if (ty == "u64") sort_case<uint64_t>(t, n, pairs, 0, -1);
      else if (ty == "f32" && !pairs) sort_case<float>(t, n, false, 0, -1);
      else print_error(case_fields(c.c_str(), ty.c_str(), n, 0, 0, 0), "unsupported key type");
      i += 3;
    } else if (c == "sort-keys-bits") {
      need(4);
      std::string ty = argv[i + 1];
      size_t n = parse_size(argv[i + 2]);
      int b = atoi(argv[i + 3]), e = atoi(argv[i + 4]);
      if (ty == "u32") sort_case<uint32_t>(t, n, false, b, e);
      else if (ty == "u64") sort_case<uint64_t>(t, n, false, b, e);
      else print_error(case_fields(c.c_str(), ty.c_str(), n, b, e, 0), "unsupported key type");
      i += 5;
    } else if (c == "histogram-even-u8") {
      need(2);
      histogram_case(t, parse_size(argv[i + 1]), atoi(argv[i + 2]));
      i += 3;
    } else if (c == "histogram-entropy-u8") {
      need(2);
      histogram_case(t, parse_size(argv[i + 1]), 0, atoi(argv[i + 2]));
      i += 3;
    } else if (c == "histogram-even" || c == "histogram-range") {
      need(3);
      std::string ty = argv[i + 1];
      size_t n = parse_size(argv[i + 2]);
      uint32_t bins = (uint32_t)strtoul(argv[i + 3], nullptr, 10);
      bool range = c == "histogram-range";
      if (ty == "f32") bins_case<float>(t, n, bins, range);
      else if (ty == "i32") bins_case<int32_t>(t, n, bins, range);
      else if (ty == "u32") bins_case<uint32_t>(t, n, bins, range);
      else print_error(case_fields(c.c_str(), ty.c_str(), n, 0, 0, (int)bins), "unsupported sample type");
      i += 4;
    } else if (c == "exclusive-sum" || c == "inclusive-sum") {
      need(2);
      std::string ty = argv[i + 1];
      size_t n = parse_size(argv[i + 2]);
      bool inc = c == "inclusive-sum";
      if (ty == "u32") scan_case<uint32_t>(t, n, inc);
      else if (ty == "u64") scan_case<uint64_t>(t, n, inc);
      else if (ty == "f32") scan_case<float>(t, n, inc);
      else print_error(case_fields(c.c_str(), ty.c_str(), n, 0, 0, 0), "unsupported scan type");
      i += 3;
    } else if (c == "histogram-even-u16") {
      need(1);
      histogram_u16_case(t, parse_size(argv[i + 1]));
      i += 2;
    } else if (c == "multi-histogram-rgba") {
      need(1);
      multi_histogram_case(t, parse_size(argv[i + 1]));
      i += 2;
    } else if (c == "copy") {
      need(1);
      copy_case(t, parse_size(argv[i + 1]));
      i += 2;
    } else {
      fprintf(stderr, "unknown case %s\n", c.c_str());
      return 2;
    }
  }
  return 0;
}
