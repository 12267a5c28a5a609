// SPDX-License-Identifier: BSD-3-Clause
// Point-to-point synchronisation on the device for the 14 wait types (generated from the wait type
// table): wait_until with each of the six comparisons, wait_until_all/any/some and their vector
// forms, and every test form before (false) and after (true) the writes. Each PE writes into its
// right neighbour's variables only after that neighbour said "go", so every wait really blocks until
// its condition holds; the data put before the writes must be visible after each wait (acquire).
#include "gpu_test.hpp"

namespace {

constexpr int kVars = 32, kPayload = 64;
constexpr int kDone = 30, kGo = 31;

// Layout of the variables (initial value 10 everywhere except where noted):
//  0..5   wait_until with EQ 20, NE 10, GT 20, LE 5, LT 5, GE 20
//  6..9   wait_until_all  EQ 20; one status array {0,1,1,0} serves the three status families, so 7 and
//         8 are excluded (8 is never written, 7 is checked after the done flag)
//  10..13 wait_until_any  EQ 20, 11 (which starts at 20) and 12 excluded
//  14..17 wait_until_some EQ 20, 15 (which starts at 20) and 16 excluded
//  18..21 wait_until_all_vector  EQ {20,21,22,23}
//  22..25 wait_until_any_vector  EQ {30,31,32,33}
//  26..29 wait_until_some_vector EQ {40,41,42,43}
//  30     done flag, 31 go flag
#define FAIL_IF(cond)                   \
  do {                                  \
    if (cond) {                         \
      atomicAdd(errors, 1);             \
      atomicExch(errors + 1, __LINE__); \
    }                                   \
  } while (0)

#define DEFINE_WAIT_KERNEL(NAME, T)                                                                                    \
  __global__ void waits_##NAME(T *v, int *payload, const int *status, T *targets, int *errors) {                       \
    const int me = nvshmem_my_pe(), n = nvshmem_n_pes();                                                               \
    const int right = (me + 1) % n, left = (me + n - 1) % n;                                                           \
    const T t20 = static_cast<T>(20), t10 = static_cast<T>(10), t5 = static_cast<T>(5);                                \
    size_t idx[4];                                                                                                     \
    /* Nothing written yet: every test is false. */                                                                    \
    FAIL_IF(nvshmem_##NAME##_test(v + 0, NVSHMEM_CMP_EQ, t20));                                                        \
    FAIL_IF(nvshmem_##NAME##_test(v + 1, NVSHMEM_CMP_NE, t10));                                                        \
    FAIL_IF(nvshmem_##NAME##_test(v + 2, NVSHMEM_CMP_GT, t20));                                                        \
    FAIL_IF(nvshmem_##NAME##_test(v + 3, NVSHMEM_CMP_LE, t5));                                                         \
    FAIL_IF(nvshmem_##NAME##_test(v + 4, NVSHMEM_CMP_LT, t5));                                                         \
    FAIL_IF(nvshmem_##NAME##_test(v + 5, NVSHMEM_CMP_GE, t20));                                                        \
    FAIL_IF(nvshmem_##NAME##_test_all(v + 6, 4, status, NVSHMEM_CMP_EQ, t20));                                         \
    FAIL_IF(nvshmem_##NAME##_test_any(v + 10, 4, status, NVSHMEM_CMP_EQ, t20) != SIZE_MAX);                            \
    FAIL_IF(nvshmem_##NAME##_test_some(v + 14, 4, idx, status, NVSHMEM_CMP_EQ, t20) != 0);                             \
    FAIL_IF(nvshmem_##NAME##_test_all_vector(v + 18, 4, nullptr, NVSHMEM_CMP_EQ, targets));                            \
    FAIL_IF(nvshmem_##NAME##_test_any_vector(v + 22, 4, nullptr, NVSHMEM_CMP_EQ, targets + 4) != SIZE_MAX);            \
    FAIL_IF(nvshmem_##NAME##_test_some_vector(v + 26, 4, idx, nullptr, NVSHMEM_CMP_EQ, targets + 8) != 0);             \
    /* Tell the left neighbour (who writes into us) to go; wait for the right one's go. */                             \
    nvshmem_##NAME##_p(v + kGo, static_cast<T>(1), left);                                                              \
    nvshmem_##NAME##_wait_until(v + kGo, NVSHMEM_CMP_EQ, static_cast<T>(1));                                           \
    int mine[kPayload];                                                                                                \
    for (int i = 0; i < kPayload; ++i) mine[i] = me * 1000 + i;                                                        \
    nvshmem_int_put(payload, mine, kPayload, right);                                                                   \
    nvshmem_fence();                                                                                                   \
    const T writes[][2] = {{0, 15},  {0, 20},  {1, 11},  {2, 20},  {2, 21},  {3, 6},   {3, 5},   {4, 5},               \
                           {4, 4},   {5, 19},  {5, 20},  {6, 20},  {7, 20},  {9, 20},  {13, 20}, {17, 20},             \
                           {18, 20}, {19, 21}, {20, 22}, {21, 23}, {24, 32}, {27, 41}, {29, 43}};                      \
    for (const auto &w : writes) nvshmem_##NAME##_p(v + static_cast<int>(w[0]), w[1], right);                          \
    nvshmem_fence();                                                                                                   \
    nvshmem_##NAME##_p(v + kDone, static_cast<T>(1), right);                                                           \
    /* Every wait blocks until its condition holds, then sees the payload. */                                          \
    nvshmem_##NAME##_wait_until(v + 0, NVSHMEM_CMP_EQ, t20);                                                           \
    for (int i = 0; i < kPayload; ++i) FAIL_IF(payload[i] != left * 1000 + i);                                         \
    FAIL_IF(v[0] != t20);                                                                                              \
    nvshmem_##NAME##_wait_until(v + 1, NVSHMEM_CMP_NE, t10);                                                           \
    FAIL_IF(v[1] != static_cast<T>(11));                                                                               \
    nvshmem_##NAME##_wait_until(v + 2, NVSHMEM_CMP_GT, t20);                                                           \
    FAIL_IF(v[2] != static_cast<T>(21));                                                                               \
    nvshmem_##NAME##_wait_until(v + 3, NVSHMEM_CMP_LE, t5);                                                            \
    FAIL_IF(v[3] != t5);                                                                                               \
    nvshmem_##NAME##_wait_until(v + 4, NVSHMEM_CMP_LT, t5);                                                            \
    FAIL_IF(v[4] != static_cast<T>(4));                                                                                \
    nvshmem_##NAME##_wait_until(v + 5, NVSHMEM_CMP_GE, t20);                                                           \
    FAIL_IF(v[5] != t20);                                                                                              \
    nvshmem_##NAME##_wait_until_all(v + 6, 4, status, NVSHMEM_CMP_EQ, t20);                                            \
    FAIL_IF(v[6] != t20 || v[9] != t20 || v[8] != t10);                                                                \
    FAIL_IF(nvshmem_##NAME##_wait_until_any(v + 10, 4, status, NVSHMEM_CMP_EQ, t20) != 3);                             \
    FAIL_IF(nvshmem_##NAME##_wait_until_some(v + 14, 4, idx, status, NVSHMEM_CMP_EQ, t20) != 1 || idx[0] != 3);        \
    nvshmem_##NAME##_wait_until_all_vector(v + 18, 4, nullptr, NVSHMEM_CMP_EQ, targets);                               \
    FAIL_IF(nvshmem_##NAME##_wait_until_any_vector(v + 22, 4, nullptr, NVSHMEM_CMP_EQ, targets + 4) != 2);             \
    const size_t some = nvshmem_##NAME##_wait_until_some_vector(v + 26, 4, idx, nullptr, NVSHMEM_CMP_EQ, targets + 8); \
    FAIL_IF(some<1 || some> 2);                                                                                        \
    for (size_t i = 0; i < some && i < 4; ++i) FAIL_IF(idx[i] != 1 && idx[i] != 3);                                    \
    nvshmem_##NAME##_wait_until(v + kDone, NVSHMEM_CMP_EQ, static_cast<T>(1));                                         \
    FAIL_IF(v[7] != t20);                                                                                              \
    /* Everything written: every test is true. */                                                                      \
    FAIL_IF(!nvshmem_##NAME##_test(v + 0, NVSHMEM_CMP_EQ, t20));                                                       \
    FAIL_IF(!nvshmem_##NAME##_test(v + 1, NVSHMEM_CMP_NE, t10));                                                       \
    FAIL_IF(!nvshmem_##NAME##_test(v + 2, NVSHMEM_CMP_GT, t20));                                                       \
    FAIL_IF(!nvshmem_##NAME##_test(v + 3, NVSHMEM_CMP_LE, t5));                                                        \
    FAIL_IF(!nvshmem_##NAME##_test(v + 4, NVSHMEM_CMP_LT, t5));                                                        \
    FAIL_IF(!nvshmem_##NAME##_test(v + 5, NVSHMEM_CMP_GE, t20));                                                       \
    FAIL_IF(!nvshmem_##NAME##_test_all(v + 6, 4, status, NVSHMEM_CMP_EQ, t20));                                        \
    FAIL_IF(nvshmem_##NAME##_test_any(v + 10, 4, status, NVSHMEM_CMP_EQ, t20) != 3);                                   \
    FAIL_IF(nvshmem_##NAME##_test_some(v + 14, 4, idx, status, NVSHMEM_CMP_EQ, t20) != 1 || idx[0] != 3);              \
    FAIL_IF(!nvshmem_##NAME##_test_all_vector(v + 18, 4, nullptr, NVSHMEM_CMP_EQ, targets));                           \
    FAIL_IF(nvshmem_##NAME##_test_any_vector(v + 22, 4, nullptr, NVSHMEM_CMP_EQ, targets + 4) != 2);                   \
    FAIL_IF(nvshmem_##NAME##_test_some_vector(v + 26, 4, idx, nullptr, NVSHMEM_CMP_EQ, targets + 8) != 2 ||            \
            idx[0] != 1 || idx[1] != 3);                                                                               \
    const int all_excluded[4] = {1, 1, 1, 1};                                                                          \
    FAIL_IF(nvshmem_##NAME##_wait_until_any(v + 10, 4, all_excluded, NVSHMEM_CMP_EQ, t20) != SIZE_MAX);                \
    FAIL_IF(nvshmem_##NAME##_wait_until_some(v + 10, 4, idx, all_excluded, NVSHMEM_CMP_EQ, t20) != 0);                 \
  }                                                                                                                    \
  TEST(DeviceWait, EveryFamily_##NAME) {                                                                               \
    run_waits<T>(waits_##NAME);                                                                                        \
  }

template <typename T>
void run_waits(void (*kernel)(T *, int *, const int *, T *, int *)) {
  T *v = static_cast<T *>(nvshmem_malloc(kVars * sizeof(T)));
  int *payload = static_cast<int *>(nvshmem_malloc(kPayload * sizeof(int)));
  ASSERT_TRUE(v && payload);
  std::vector<T> init(kVars, static_cast<T>(10));
  init[11] = init[15] = static_cast<T>(20);
  init[kDone] = init[kGo] = static_cast<T>(0);
  CUDA_CHECK(cudaMemcpy(v, init.data(), kVars * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(payload, gpu_test::kPoison, kPayload * sizeof(int)));
  // status for the all/any/some arrays: excludes the third element of 6..9 and the second of 10..17.
  int *status = nullptr, *errors = nullptr;
  T *targets = nullptr;
  CUDA_CHECK(cudaMalloc(&status, 4 * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&errors, 2 * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&targets, 12 * sizeof(T)));
  CUDA_CHECK(cudaMemset(errors, 0, 2 * sizeof(int)));
  // One status array serves three families: for 6..9 element 2 (8) and for 10..17 element 1 are
  // excluded, so exclude both 1 and 2 (element 7 of all then goes unchecked by the wait, checked after).
  const int h_status[4] = {0, 1, 1, 0};
  CUDA_CHECK(cudaMemcpy(status, h_status, sizeof h_status, cudaMemcpyHostToDevice));
  T h_targets[12];
  for (int i = 0; i < 4; ++i) {
    h_targets[i] = static_cast<T>(20 + i);
    h_targets[4 + i] = static_cast<T>(30 + i);
    h_targets[8 + i] = static_cast<T>(40 + i);
  }
  CUDA_CHECK(cudaMemcpy(targets, h_targets, sizeof h_targets, cudaMemcpyHostToDevice));
  gpu_test::barrier();
  kernel<<<1, 1>>>(v, payload, status, targets, errors);
  LAUNCH_CHECK();
  int h[2] = {-1, -1};
  CUDA_CHECK(cudaMemcpy(h, errors, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 0) << "last failing check at line " << h[1];
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(targets));
  CUDA_CHECK(cudaFree(errors));
  CUDA_CHECK(cudaFree(status));
  nvshmem_free(payload);
  nvshmem_free(v);
}

NVSHM_FOR_EACH_WAIT_TYPE(DEFINE_WAIT_KERNEL)
#undef DEFINE_WAIT_KERNEL

}  // namespace
