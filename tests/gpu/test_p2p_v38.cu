// SPDX-License-Identifier: BSD-3-Clause
// NVSHMEM 3.7/3.8 point-to-point additions on the device: floating-point atomic add under contention (every
// thread of every PE into PE 0's word, random addends whose partial sums are exact, so the total is too),
// nvshmemx_flush in each scope (sources overwritten right after it; the peer gets what was put), and the
// counted signals (reset and load work; the counted write is refused with NVSHMEMX_ERROR_NOT_SUPPORTED
// and moves nothing), the QP routines with the default QPs, and the RMA regions of a block.
#include "gpu_test.hpp"

namespace {

__device__ void add_to(float *w, float v) {
  nvshmemx_float_atomic_add(w, v, 0);
}
__device__ void add_to(double *w, double v) {
  nvshmemx_double_atomic_add(w, v, 0);
}
__device__ void add_to(__half *w, __half v) {
  nvshmemx_half_atomic_add(w, v, 0);
}
__device__ float fetch_add_to(float *w, float v) {
  return nvshmemx_float_atomic_fetch_add(w, v, 0);
}
__device__ double fetch_add_to(double *w, double v) {
  return nvshmemx_double_atomic_fetch_add(w, v, 0);
}
__device__ float fetch_add_to(__half *w, __half v) {
  return __half2float(nvshmemx_half_atomic_fetch_add(w, v, 0));
}
template <typename T>
__device__ T from_float(float v) {
  return static_cast<T>(v);
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half(v);
}

// Thread i adds addends[2i] and fetch-adds addends[2i + 1]; a fetched value below the start is an error.
template <typename T>
__global__ void float_add_kernel(T *word, const float *addends, float start, int *errors) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  add_to(word, from_float<T>(addends[2 * i]));
  if (static_cast<float>(fetch_add_to(word, from_float<T>(addends[2 * i + 1]))) < start) atomicAdd(errors, 1);
}

// unit x (1 .. span): half uses halves up to 1.5 on 64 threads (sums stay exact below 1024 for 4 PEs);
// float and double quarters up to 3.75 on 4 x 128 threads.
template <typename T>
void run_float_add(int blocks, int threads, float unit, int span, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int count = 2 * blocks * threads;
  T *word = static_cast<T *>(nvshmem_malloc(sizeof(T)));
  ASSERT_NE(word, nullptr);
  const float start = 4 * unit;
  const T start_value = static_cast<T>(start);
  CUDA_CHECK(cudaMemcpy(word, &start_value, sizeof(T), cudaMemcpyHostToDevice));
  const auto addends_of = [&](int pe) {
    std::vector<float> a;
    for (unsigned char b : gpu_test::random_bytes(count, pe, salt)) a.push_back(unit * (1 + b % span));
    return a;
  };
  const std::vector<float> mine = addends_of(me);
  float *addends = nullptr;
  int *errors = nullptr;
  CUDA_CHECK(cudaMalloc(&addends, count * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(addends, mine.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
  gpu_test::barrier();
  float_add_kernel<T><<<blocks, threads>>>(word, addends, start, errors);
  LAUNCH_CHECK();
  gpu_test::barrier();
  int h_errors = -1;
  CUDA_CHECK(cudaMemcpy(&h_errors, errors, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_errors, 0) << "a fetch_add returned less than the start value";
  if (me == 0) {
    double total = start;
    for (int pe = 0; pe < n; ++pe)
      for (float a : addends_of(pe)) total += a;
    T got;
    CUDA_CHECK(cudaMemcpy(&got, word, sizeof(T), cudaMemcpyDeviceToHost));
    EXPECT_EQ(static_cast<double>(static_cast<float>(got)), total);
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(errors));
  CUDA_CHECK(cudaFree(addends));
  nvshmem_free(word);
}

TEST(DeviceAtomics, FloatAddContention) {
  run_float_add<float>(4, 128, 0.25f, 15, 71);
}
TEST(DeviceAtomics, DoubleAddContention) {
  run_float_add<double>(4, 128, 0.25f, 15, 72);
}
TEST(DeviceAtomics, HalfAddContention) {
  ASSERT_LE(nvshmem_n_pes(), 4) << "half sums stay exact for at most 4 PEs";
  run_float_add<__half>(1, 64, 0.5f, 3, 73);
}

// nvshmem_half_atomic_{swap,set,fetch} on neighbouring 2-byte words: thread t of PE p owns half
// p * kHalfThreads + t of PE 0's array and swaps kHalfRounds random bit patterns into it (NaNs too:
// compared as bits); each swap must return the previous one (the first, what PE 0 put there), and every
// word ends as its owner's last value. Then each thread sets its word on the right neighbour and fetches
// the left neighbour's value from its own PE.
constexpr int kHalfThreads = 64, kHalfRounds = 16;
__global__ void half_swap_kernel(__half *words, const unsigned short *bits, int *errors) {
  const int me = nvshmem_my_pe(), t = threadIdx.x;
  const unsigned short *mine = bits + t * (kHalfRounds + 1);
  for (int r = 1; r <= kHalfRounds; ++r)
    if (__half_as_ushort(nvshmem_half_atomic_swap(words + me * kHalfThreads + t, __ushort_as_half(mine[r]), 0)) !=
        mine[r - 1])
      atomicAdd(errors, 1);
}
__global__ void half_set_kernel(__half *words, const unsigned short *bits) {
  const int me = nvshmem_my_pe();
  nvshmem_half_atomic_set(words + threadIdx.x, __ushort_as_half(bits[threadIdx.x * (kHalfRounds + 1)]),
                          (me + 1) % nvshmem_n_pes());
}
__global__ void half_fetch_kernel(const __half *words, unsigned short *out) {
  out[threadIdx.x] = __half_as_ushort(nvshmem_half_atomic_fetch(words + threadIdx.x, nvshmem_my_pe()));
}
TEST(DeviceAtomics, HalfSwapSetFetchKeepTheNeighbours) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const size_t per_pe = kHalfThreads * (kHalfRounds + 1);
  const auto bits_of = [&](int pe) {
    const auto b = gpu_test::random_bytes(2 * per_pe, pe, 74);
    std::vector<unsigned short> v(per_pe);
    memcpy(v.data(), b.data(), b.size());
    return v;
  };
  const std::vector<unsigned short> mine = bits_of(me);
  __half *words = static_cast<__half *>(nvshmem_malloc(static_cast<size_t>(n) * kHalfThreads * sizeof(__half)));
  ASSERT_NE(words, nullptr);
  unsigned short *bits = nullptr, *fetched = nullptr;
  int *errors = nullptr;
  CUDA_CHECK(cudaMalloc(&bits, per_pe * sizeof(unsigned short)));
  CUDA_CHECK(cudaMalloc(&fetched, kHalfThreads * sizeof(unsigned short)));
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(bits, mine.data(), per_pe * sizeof(unsigned short), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(fetched, gpu_test::kPoison, kHalfThreads * sizeof(unsigned short)));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
  if (me == 0) {  // every word starts as its owner's value 0
    std::vector<unsigned short> first(static_cast<size_t>(n) * kHalfThreads);
    for (int pe = 0; pe < n; ++pe) {
      const auto b = bits_of(pe);
      for (int t = 0; t < kHalfThreads; ++t) first[pe * kHalfThreads + t] = b[t * (kHalfRounds + 1)];
    }
    CUDA_CHECK(cudaMemcpy(words, first.data(), first.size() * sizeof(unsigned short), cudaMemcpyHostToDevice));
  }
  gpu_test::barrier();
  half_swap_kernel<<<1, kHalfThreads>>>(words, bits, errors);
  LAUNCH_CHECK();
  gpu_test::barrier();
  int h_errors = -1;
  CUDA_CHECK(cudaMemcpy(&h_errors, errors, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_errors, 0) << "swaps that did not return the previous value";
  if (me == 0) {
    std::vector<unsigned short> got(static_cast<size_t>(n) * kHalfThreads);
    CUDA_CHECK(cudaMemcpy(got.data(), words, got.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));
    for (int pe = 0; pe < n; ++pe) {
      const auto b = bits_of(pe);
      for (int t = 0; t < kHalfThreads; ++t)
        EXPECT_EQ(got[pe * kHalfThreads + t], b[t * (kHalfRounds + 1) + kHalfRounds]) << "PE " << pe << " thread " << t;
    }
  }
  gpu_test::barrier();
  half_set_kernel<<<1, kHalfThreads>>>(words, bits);
  LAUNCH_CHECK();
  gpu_test::barrier();
  half_fetch_kernel<<<1, kHalfThreads>>>(words, fetched);
  LAUNCH_CHECK();
  std::vector<unsigned short> h_fetched(kHalfThreads);
  CUDA_CHECK(cudaMemcpy(h_fetched.data(), fetched, kHalfThreads * sizeof(unsigned short), cudaMemcpyDeviceToHost));
  const auto left = bits_of((me + n - 1) % n);
  for (int t = 0; t < kHalfThreads; ++t)
    EXPECT_EQ(h_fetched[t], left[t * (kHalfRounds + 1)]) << "word " << t << " set by the left neighbour";
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(errors));
  CUDA_CHECK(cudaFree(fetched));
  CUDA_CHECK(cudaFree(bits));
  nvshmem_free(words);
}

// Block, warp and thread put_nbi then flush in that scope, then the source is overwritten at once.
constexpr size_t kFlushBytes = 3 * 4096;
__global__ void flush_kernel(unsigned char *dest, unsigned char *src, int pe) {
  nvshmemx_putmem_nbi_block(dest, src, 4096, pe);
  nvshmemx_flush_block();
  for (size_t i = threadIdx.x; i < 4096; i += blockDim.x) src[i] = gpu_test::kPoison;
  if (threadIdx.x < 32) {
    nvshmemx_putmem_nbi_warp(dest + 4096, src + 4096, 4096, pe);
    nvshmemx_flush_warp();
    for (size_t i = threadIdx.x; i < 4096; i += 32) src[4096 + i] = gpu_test::kPoison;
  }
  if (threadIdx.x == 0) {
    nvshmem_putmem_nbi(dest + 8192, src + 8192, 4096, pe);
    nvshmemx_flush();
    for (size_t i = 0; i < 4096; ++i) src[8192 + i] = gpu_test::kPoison;
  }
}

TEST(DeviceOrdering, FlushMakesSourcesReusable) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  unsigned char *dest = static_cast<unsigned char *>(nvshmem_malloc(kFlushBytes));
  ASSERT_NE(dest, nullptr);
  unsigned char *src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, kFlushBytes));
  const auto data = gpu_test::random_bytes(kFlushBytes, me, 74);
  CUDA_CHECK(cudaMemcpy(src, data.data(), kFlushBytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, gpu_test::kPoison, kFlushBytes));
  gpu_test::barrier();
  flush_kernel<<<1, 256>>>(dest, src, (me + 1) % n);
  LAUNCH_CHECK();
  gpu_test::barrier();
  EXPECT_EQ(gpu_test::to_host(dest, kFlushBytes), gpu_test::random_bytes(kFlushBytes, (me + n - 1) % n, 74));
  EXPECT_EQ(gpu_test::to_host(src, kFlushBytes), std::vector<unsigned char>(kFlushBytes, gpu_test::kPoison));
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(src));
  nvshmem_free(dest);
}

// Counted signals: the write is refused in every thread and moves nothing; load sees the value the
// host set; wait_until returns once the value is reached; reset sets 0.
__global__ void counted_kernel(unsigned char *dest, const unsigned char *src, uint64_t *counter, int pe, int *status,
                               uint64_t *loaded) {
  status[threadIdx.x] = nvshmemx_putmem_signal_counted_nbi_block(dest, src, 256, counter, pe);
  __syncthreads();
  if (threadIdx.x == 0) {
    loaded[0] = nvshmemx_signal_counted_load(counter);
    nvshmemx_signal_counted_wait_until(counter, loaded[0]);
    nvshmemx_signal_counted_reset(counter);
    loaded[1] = nvshmemx_signal_counted_load(counter);
  }
}

TEST(DeviceSignal, CountedWriteRefusedResetAndLoadWork) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  unsigned char *dest = static_cast<unsigned char *>(nvshmem_malloc(256));
  uint64_t *counter = static_cast<uint64_t *>(nvshmem_malloc(sizeof(uint64_t)));
  ASSERT_TRUE(dest && counter);
  const auto bytes = gpu_test::random_bytes(8, me, 75);
  uint64_t value = 1;
  for (unsigned char b : bytes) value = value * 131 + b;
  CUDA_CHECK(cudaMemcpy(counter, &value, sizeof value, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, gpu_test::kPoison, 256));
  unsigned char *src = nullptr;
  int *status = nullptr;
  uint64_t *loaded = nullptr;
  CUDA_CHECK(cudaMalloc(&src, 256));
  CUDA_CHECK(cudaMemset(src, 0x3C, 256));
  CUDA_CHECK(cudaMallocManaged(&status, 64 * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&loaded, 2 * sizeof(uint64_t)));
  gpu_test::barrier();
  counted_kernel<<<1, 64>>>(dest, src, counter, (me + 1) % n, status, loaded);
  LAUNCH_CHECK();
  gpu_test::barrier();
  for (int t = 0; t < 64; ++t) EXPECT_EQ(status[t], NVSHMEMX_ERROR_NOT_SUPPORTED) << "thread " << t;
  EXPECT_EQ(loaded[0], value);
  EXPECT_EQ(loaded[1], 0u);
  EXPECT_EQ(gpu_test::to_host(dest, 256), std::vector<unsigned char>(256, gpu_test::kPoison)) << "nothing moved";
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(loaded));
  CUDA_CHECK(cudaFree(status));
  CUDA_CHECK(cudaFree(src));
  nvshmem_free(counter);
  nvshmem_free(dest);
}

// NVSHMEM 3.5 QP routines with the handles nvshmemx_qp_create gives (all NVSHMEMX_QP_DEFAULT here): p, g,
// put/get in the three scopes, put-with-signal, signal_op, quiet and fence move the same data as the plain
// forms. Block b of the kernel uses qps[b % count]; each scope has its own quarter of the buffer.
constexpr size_t kQpInts = 4 * 256;
__global__ void qp_kernel(int *dest, const int *src, int *got, uint64_t *sig, nvshmemx_qp_handle_t *qps, int count,
                          int pe) {
  const nvshmemx_qp_handle_t qp = qps[blockIdx.x % count];
  nvshmemx_qp_int_put_block(dest, src, 256, pe, qp);
  if (threadIdx.x < 32) nvshmemx_qp_int_put_nbi_warp(dest + 256, src + 256, 256, pe, qp);
  if (threadIdx.x == 0) {
    nvshmemx_qp_int_put_signal_nbi(dest + 512, src + 512, 255, sig, 1, NVSHMEM_SIGNAL_ADD, pe, qp);
    nvshmemx_qp_int_p(dest + 767, src[767], pe, qp);
    nvshmemx_qp_fence(pe, qps, count);
    nvshmemx_qp_signal_op(sig + 1, 7, NVSHMEM_SIGNAL_SET, pe, qp);
  }
  nvshmemx_qp_quiet_block(NVSHMEMX_PE_ALL, qps, count);
  nvshmemx_qp_int_get_block(got, src + 768, 256, pe, qp);  // the peer's own source quarter
  if (threadIdx.x == 0) got[256] = nvshmemx_qp_int_g(src + 768, pe, qp);
}

TEST(DeviceQp, DefaultQpsMoveTheData) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  nvshmemx_qp_handle_t *host_qps = nullptr;
  ASSERT_EQ(nvshmemx_qp_create(5, &host_qps), 0);
  nvshmemx_qp_handle_t *qps = nullptr;
  CUDA_CHECK(cudaMalloc(&qps, 5 * sizeof(nvshmemx_qp_handle_t)));
  CUDA_CHECK(cudaMemcpy(qps, host_qps, 5 * sizeof(nvshmemx_qp_handle_t), cudaMemcpyHostToDevice));
  int *dest = static_cast<int *>(nvshmem_malloc(kQpInts * sizeof(int)));
  int *src = static_cast<int *>(nvshmem_malloc(kQpInts * sizeof(int)));
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  ASSERT_TRUE(dest && src && sig);
  const auto data = [](int pe) { return gpu_test::random_bytes(kQpInts * sizeof(int), pe, 76); };
  CUDA_CHECK(cudaMemcpy(src, data(me).data(), kQpInts * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, gpu_test::kPoison, kQpInts * sizeof(int)));
  int *got = nullptr;
  CUDA_CHECK(cudaMalloc(&got, 257 * sizeof(int)));
  gpu_test::barrier();
  qp_kernel<<<3, 128>>>(dest, src, got, sig, qps, 5, right);
  LAUNCH_CHECK();
  gpu_test::barrier();
  auto expect = data(left);
  std::fill(expect.begin() + 768 * sizeof(int), expect.end(), gpu_test::kPoison);  // no one puts the last quarter
  EXPECT_EQ(gpu_test::to_host(dest, kQpInts * sizeof(int)), expect);
  const auto right_src = data(right);
  std::vector<unsigned char> want(right_src.begin() + 768 * sizeof(int), right_src.end());
  want.insert(want.end(), right_src.begin() + 768 * sizeof(int), right_src.begin() + 769 * sizeof(int));
  EXPECT_EQ(gpu_test::to_host(got, 257 * sizeof(int)), want);
  uint64_t h_sig[2];
  CUDA_CHECK(cudaMemcpy(h_sig, sig, sizeof h_sig, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_sig[0], 3u) << "one signal add per block";
  EXPECT_EQ(h_sig[1], 7u);
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(got));
  CUDA_CHECK(cudaFree(qps));
  nvshmem_free(sig);
  nvshmem_free(src);
  nvshmem_free(dest);
}

// NVSHMEM 3.8 device RMA regions: per block, nested start and wrong or stale handles refused in every
// thread, handles counting up, is_active per hint, and block puts inside a region deliver their data.
__global__ void region_kernel(char *dest, const char *src, size_t bytes, int pe, int *errors) {
  const auto fail = [&](bool bad) {
    if (bad) atomicAdd(errors, 1);
  };
  int active = -1;
  fail(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active) != 0 || active != 0);
  nvshmemx_region_attrs_t attrs = NVSHMEMX_REGION_ATTRS_INITIALIZER;
  attrs.hints = NVSHMEMX_REGION_HINT_BATCH_RMA;
  nvshmemx_region_handle_t first = 0, nested = 0, second = 0;
  fail(nvshmemx_region_start_block(&first, &attrs) != 0 || first != 1);
  fail(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active) != 0 || active != 1);
  fail(nvshmemx_region_start_block(&nested, nullptr) != NVSHMEMX_ERROR_INVALID_VALUE || nested != 0);
  const size_t share = bytes / gridDim.x;
  nvshmemx_putmem_nbi_block(dest + blockIdx.x * share, src + blockIdx.x * share, share, pe);
  fail(nvshmemx_region_stop_block(first + 1) != NVSHMEMX_ERROR_INVALID_VALUE);
  fail(nvshmemx_region_stop_block(first) != 0);
  fail(nvshmemx_region_stop_block(first) != NVSHMEMX_ERROR_INVALID_VALUE);  // closed
  fail(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active) != 0 || active != 0);
  fail(nvshmemx_region_start_block(&second, nullptr) != 0 || second != first + 1);
  fail(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active) != 0 || active != 0);  // no hint
  fail(nvshmemx_region_is_active(0x10, &active) != NVSHMEMX_ERROR_INVALID_VALUE);
  fail(nvshmemx_region_stop_block(second) != 0);
  nvshmem_quiet();
}

TEST(DeviceRegion, PerBlockBookkeepingAndRmaInside) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  constexpr size_t kBytes = 4 * 8192;
  char *dest = static_cast<char *>(nvshmem_malloc(kBytes));
  char *src = nullptr;
  int *errors = nullptr;
  ASSERT_NE(dest, nullptr);
  CUDA_CHECK(cudaMalloc(&src, kBytes));
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(src, gpu_test::random_bytes(kBytes, me, 77).data(), kBytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, gpu_test::kPoison, kBytes));
  gpu_test::barrier();
  for (int launch = 0; launch < 2; ++launch) {  // the second launch must not see the first one's records
    region_kernel<<<4, 128>>>(dest, src, kBytes, (me + 1) % n, errors);
    LAUNCH_CHECK();
  }
  gpu_test::barrier();
  int h_errors = -1;
  CUDA_CHECK(cudaMemcpy(&h_errors, errors, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_errors, 0);
  EXPECT_EQ(gpu_test::to_host(dest, kBytes), gpu_test::random_bytes(kBytes, (me + n - 1) % n, 77));
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(errors));
  CUDA_CHECK(cudaFree(src));
  nvshmem_free(dest);
}

}  // namespace
