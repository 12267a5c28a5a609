// SPDX-License-Identifier: BSD-3-Clause
// Device atomics under contention, every operation and type from the AMO tables: every thread of
// several blocks on every PE hits the same words on PE 0, and the totals must be exact.
#include "gpu_test.hpp"

namespace {

constexpr int kBlocks = 4, kThreads = 128, kRounds = 8;

// counter: inc + fetch_inc + add 3 + fetch_add 5 per round; lock: one compare_swap winner.
#define DEFINE_ARITH_KERNEL(NAME, T)                                                                 \
  __global__ void arith_##NAME(T *counter, T *lock, T *wins, int *errors) {                          \
    const int me = nvshmem_my_pe();                                                                  \
    const int gid = (me * kBlocks + blockIdx.x) * kThreads + threadIdx.x;                            \
    T last = static_cast<T>(0);                                                                      \
    for (int r = 0; r < kRounds; ++r) {                                                              \
      nvshmem_##NAME##_atomic_inc(counter, 0);                                                       \
      const T seen = nvshmem_##NAME##_atomic_fetch_inc(counter, 0);                                  \
      if (r > 0 && !(seen > last)) atomicAdd(errors, 1);                                             \
      last = seen;                                                                                   \
      nvshmem_##NAME##_atomic_add(counter, static_cast<T>(3), 0);                                    \
      (void)nvshmem_##NAME##_atomic_fetch_add(counter, static_cast<T>(5), 0);                        \
    }                                                                                                \
    if (nvshmem_##NAME##_atomic_compare_swap(lock, static_cast<T>(0), static_cast<T>(gid + 1), 0) == \
        static_cast<T>(0))                                                                           \
      nvshmem_##NAME##_atomic_inc(wins, 0);                                                          \
  }                                                                                                  \
  TEST(DeviceAtomics, ArithContention_##NAME) {                                                      \
    run_arith<T>(arith_##NAME);                                                                      \
  }

template <typename T>
void run_arith(void (*kernel)(T *, T *, T *, int *)) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  T *sym = static_cast<T *>(nvshmem_calloc(3, sizeof(T)));
  int *errors = nullptr;
  ASSERT_NE(sym, nullptr);
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
  gpu_test::barrier();
  kernel<<<kBlocks, kThreads>>>(sym, sym + 1, sym + 2, errors);
  LAUNCH_CHECK();
  gpu_test::barrier();
  int h_errors = -1;
  CUDA_CHECK(cudaMemcpy(&h_errors, errors, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_errors, 0) << "fetch_inc results of one thread must grow";
  if (me == 0) {
    T h[3];
    CUDA_CHECK(cudaMemcpy(h, sym, sizeof h, cudaMemcpyDeviceToHost));
    const long long total = static_cast<long long>(n) * kBlocks * kThreads * kRounds * (1 + 1 + 3 + 5);
    EXPECT_EQ(h[0], static_cast<T>(total));
    EXPECT_GE(h[1], static_cast<T>(1));
    EXPECT_LE(h[1], static_cast<T>(n * kBlocks * kThreads));
    EXPECT_EQ(h[2], static_cast<T>(1)) << "exactly one compare_swap must win";
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(errors));
  nvshmem_free(sym);
}
NVSHM_FOR_EACH_AMO_ARITH_TYPE(DEFINE_ARITH_KERNEL)
#undef DEFINE_ARITH_KERNEL

// swap chain: every thread swaps its own value into PE 0's cell; the returned values plus the final
// one are the initial value plus every value swapped in (checked by their sum, exact for small
// integers in every type: up to 2048 for half, so 4 PEs). set/fetch: each PE sets a cell on its right
// neighbour and fetches it back.
#define DEFINE_FETCH_KERNEL(NAME, T)                                                                               \
  __global__ void fetch_##NAME(T *cell, T *mine, unsigned long long *sum) {                                        \
    const int me = nvshmem_my_pe(), n = nvshmem_n_pes();                                                           \
    const int gid = (me * kBlocks + blockIdx.x) * kThreads + threadIdx.x;                                          \
    const T old = nvshmem_##NAME##_atomic_swap(cell, static_cast<T>(gid + 1), 0);                                  \
    atomicAdd(sum, static_cast<unsigned long long>(old));                                                          \
    if (blockIdx.x == 0 && threadIdx.x == 0) {                                                                     \
      nvshmem_##NAME##_atomic_set(mine, static_cast<T>(me + 7), (me + 1) % n);                                     \
      nvshmem_quiet();                                                                                             \
      if (nvshmem_##NAME##_atomic_fetch(mine, (me + 1) % n) != static_cast<T>(me + 7)) atomicAdd(sum, 1ull << 40); \
    }                                                                                                              \
  }                                                                                                                \
  TEST(DeviceAtomics, SwapSetFetch_##NAME) {                                                                       \
    run_fetch<T>(fetch_##NAME);                                                                                    \
  }

template <typename T>
void run_fetch(void (*kernel)(T *, T *, unsigned long long *)) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  if (sizeof(T) == 2) ASSERT_LE(n * kBlocks * kThreads, 2048) << "half holds whole numbers up to 2048 exactly";
  T *sym = static_cast<T *>(nvshmem_calloc(2, sizeof(T)));
  unsigned long long *sum = nullptr;
  ASSERT_NE(sym, nullptr);
  CUDA_CHECK(cudaMalloc(&sum, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(sum, 0, sizeof(unsigned long long)));
  gpu_test::barrier();
  kernel<<<kBlocks, kThreads>>>(sym, sym + 1, sum);
  LAUNCH_CHECK();
  gpu_test::barrier();
  unsigned long long local_sum = 0;
  CUDA_CHECK(cudaMemcpy(&local_sum, sum, sizeof local_sum, cudaMemcpyDeviceToHost));
  EXPECT_LT(local_sum, 1ull << 40) << "set then fetch on the right neighbour disagreed";
  // Sum the returned values over PEs through PE 0's heap.
  unsigned long long *all = static_cast<unsigned long long *>(nvshmem_calloc(1, sizeof(unsigned long long)));
  nvshmem_uint64_atomic_add(reinterpret_cast<uint64_t *>(all), local_sum % (1ull << 40), 0);
  gpu_test::barrier();
  if (me == 0) {
    T h[2];
    unsigned long long total = 0;
    CUDA_CHECK(cudaMemcpy(h, sym, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&total, all, sizeof total, cudaMemcpyDeviceToHost));
    const unsigned long long count = static_cast<unsigned long long>(n) * kBlocks * kThreads;
    EXPECT_EQ(total + static_cast<unsigned long long>(h[0]), count * (count + 1) / 2);
  }
  T h_mine;
  CUDA_CHECK(cudaMemcpy(&h_mine, sym + 1, sizeof h_mine, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_mine, static_cast<T>((me + n - 1) % n + 7));
  gpu_test::barrier();
  nvshmem_free(all);
  CUDA_CHECK(cudaFree(sum));
  nvshmem_free(sym);
}
NVSHM_FOR_EACH_AMO_FETCH_TYPE(DEFINE_FETCH_KERNEL)
#undef DEFINE_FETCH_KERNEL

// Bitwise: word A gets every thread's bit xor-ed twice (ends 0), word B or-ed (ends all ones),
// word C (all ones) and-ed with the bit cleared (ends 0); fetch forms return sane bits.
#define DEFINE_LOGIC_KERNEL(NAME, T)                                             \
  __global__ void logic_##NAME(T *words) {                                       \
    const int me = nvshmem_my_pe();                                              \
    const int gid = (me * kBlocks + blockIdx.x) * kThreads + threadIdx.x;        \
    const T bit = static_cast<T>(static_cast<T>(1) << (gid % (8 * sizeof(T))));  \
    (void)nvshmem_##NAME##_atomic_fetch_xor(words, bit, 0);                      \
    nvshmem_##NAME##_atomic_xor(words, bit, 0);                                  \
    nvshmem_##NAME##_atomic_or(words + 1, bit, 0);                               \
    (void)nvshmem_##NAME##_atomic_fetch_or(words + 1, bit, 0);                   \
    nvshmem_##NAME##_atomic_and(words + 2, static_cast<T>(~bit), 0);             \
    (void)nvshmem_##NAME##_atomic_fetch_and(words + 2, static_cast<T>(~bit), 0); \
  }                                                                              \
  TEST(DeviceAtomics, BitwiseContention_##NAME) {                                \
    run_logic<T>(logic_##NAME);                                                  \
  }

template <typename T>
void run_logic(void (*kernel)(T *)) {
  T *words = static_cast<T *>(nvshmem_malloc(3 * sizeof(T)));
  ASSERT_NE(words, nullptr);
  const T init[3] = {static_cast<T>(0), static_cast<T>(0), static_cast<T>(~static_cast<T>(0))};
  CUDA_CHECK(cudaMemcpy(words, init, sizeof init, cudaMemcpyHostToDevice));
  gpu_test::barrier();
  kernel<<<kBlocks, kThreads>>>(words);
  LAUNCH_CHECK();
  gpu_test::barrier();
  if (nvshmem_my_pe() == 0) {
    T h[3];
    CUDA_CHECK(cudaMemcpy(h, words, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT_EQ(h[0], static_cast<T>(0));
    EXPECT_EQ(h[1], static_cast<T>(~static_cast<T>(0)));
    EXPECT_EQ(h[2], static_cast<T>(0));
  }
  gpu_test::barrier();
  nvshmem_free(words);
}
NVSHM_FOR_EACH_AMO_LOGIC_TYPE(DEFINE_LOGIC_KERNEL)
#undef DEFINE_LOGIC_KERNEL

}  // namespace
