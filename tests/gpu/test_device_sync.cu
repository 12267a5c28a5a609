// SPDX-License-Identifier: BSD-3-Clause
// Device queries, ordering (fence, quiet), put-with-signal, signal_op, waits, barriers and atomics,
// under nvshmrun -n 2 (or more).
#include "gpu_test.hpp"

namespace {
using gpu_test::kPoison;

__global__ void query_kernel(int *out, const void *sym) {
  out[0] = nvshmem_my_pe();
  out[1] = nvshmem_n_pes();
  out[2] = nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD);
  out[3] = nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE);
  out[4] = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  out[5] = nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID);
  out[6] = nvshmem_ptr(sym, (out[0] + 1) % out[1]) == nullptr;
  out[7] = nvshmem_ptr(out, 0) != nullptr;       // not symmetric
  out[8] = nvshmem_ptr(sym, out[1]) != nullptr;  // PE out of range
  int major = 0, minor = 0;
  nvshmem_info_get_version(&major, &minor);
  out[9] = major * 10 + minor;
}

TEST(DeviceQuery, MatchesHost) {
  int *out = nullptr;
  void *sym = nvshmem_malloc(64);
  CUDA_CHECK(cudaMalloc(&out, 10 * sizeof(int)));
  CUDA_CHECK(cudaMemset(out, kPoison, 10 * sizeof(int)));
  query_kernel<<<1, 1>>>(out, sym);
  LAUNCH_CHECK();
  int h[10];
  CUDA_CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h[0], nvshmem_my_pe());
  EXPECT_EQ(h[1], nvshmem_n_pes());
  EXPECT_EQ(h[2], nvshmem_my_pe());
  EXPECT_EQ(h[3], nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE));
  EXPECT_EQ(h[4], nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE));
  EXPECT_EQ(h[5], -1);
  // nvshmem_ptr gives an address for exactly the PEs of NVSHMEM_TEAM_SHARED (NVSHMEM_DISABLE_P2P=1, the
  // forced-remote runs: none but this PE).
  const int right = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
  const bool mapped = nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, right, NVSHMEM_TEAM_SHARED) >= 0;
  EXPECT_EQ(h[6], mapped ? 0 : 1) << "nvshmem_ptr to PE " << right << " (" << (mapped ? "" : "not ")
                                  << "in NVSHMEM_TEAM_SHARED)";
  EXPECT_EQ(h[7], 0) << "nvshmem_ptr of a non-symmetric address must be NULL";
  EXPECT_EQ(h[8], 0) << "nvshmem_ptr to an out-of-range PE must be NULL";
  EXPECT_EQ(h[9], 13);
  // The host agrees.
  EXPECT_EQ(nvshmem_ptr(sym, right) == nullptr, !mapped);
  CUDA_CHECK(cudaFree(out));
  nvshmem_free(sym);
}

// Each iteration: data to the right neighbour, fence, flag; then wait for the left's flag and check
// its data. One data slot per iteration, so a fast sender never overwrites unchecked data.
constexpr int kIters = 200, kWords = 33;
__global__ void fence_kernel(int *data, int *flag, int *errors) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  int local[kWords];
  for (int it = 0; it < kIters; ++it) {
    for (int w = 0; w < kWords; ++w) local[w] = me * 100000 + it * 100 + w;
    nvshmem_int_put(data + it * kWords, local, kWords, right);
    nvshmem_fence();
    nvshmem_int_p(flag, it + 1, right);
    nvshmem_int_wait_until(flag, NVSHMEM_CMP_GE, it + 1);
    for (int w = 0; w < kWords; ++w) *errors += data[it * kWords + w] != left * 100000 + it * 100 + w;
  }
}

TEST(DeviceOrdering, FenceOrdersDataBeforeFlag) {
  int *data = static_cast<int *>(nvshmem_calloc(kIters * kWords, sizeof(int)));
  int *flag = static_cast<int *>(nvshmem_calloc(1, sizeof(int)));
  int *errors = nullptr;
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
  gpu_test::barrier();
  fence_kernel<<<1, 1>>>(data, flag, errors);
  LAUNCH_CHECK();
  int h = -1;
  CUDA_CHECK(cudaMemcpy(&h, errors, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h, 0);
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(errors));
  nvshmem_free(flag);
  nvshmem_free(data);
}

// put-with-signal in each scope, SET and ADD; the receiver waits on the signal and checks the data.
__global__ void signal_kernel(char *data, const char *src, size_t bytes, uint64_t *sig, int scope, int op,
                              int *errors) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  for (int it = 0; it < 20; ++it) {
    char *slot = data + it * bytes;
    const uint64_t value = op == NVSHMEM_SIGNAL_SET ? it + 1 : 1;
    if (scope == 0) {
      if (threadIdx.x == 0) {
        if (it % 2)
          nvshmem_putmem_signal(slot, src, bytes, sig, value, op, right);
        else
          nvshmem_putmem_signal_nbi(slot, src, bytes, sig, value, op, right);
      }
    } else if (scope == 1) {
      if (threadIdx.x < 32) nvshmemx_putmem_signal_nbi_warp(slot, src, bytes, sig, value, op, right);
    } else {
      nvshmemx_putmem_signal_block(slot, src, bytes, sig, value, op, right);
    }
    if (threadIdx.x == 0) {
      const uint64_t seen = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, it + 1);
      *errors += seen < static_cast<uint64_t>(it + 1);
      for (size_t b = 0; b < bytes; ++b) *errors += slot[b] != static_cast<char>((left * 31 + b) & 0x7f);
    }
    __syncthreads();
  }
}

TEST(DeviceSignal, PutSignalEveryScopeAndOp) {
  const size_t bytes = 1000;
  const int me = nvshmem_my_pe();
  char *data = static_cast<char *>(nvshmem_malloc(20 * bytes));
  char *src = static_cast<char *>(nvshmem_malloc(bytes));
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_malloc(sizeof(uint64_t)));
  std::vector<char> pattern(bytes);
  for (size_t b = 0; b < bytes; ++b) pattern[b] = static_cast<char>((me * 31 + b) & 0x7f);
  CUDA_CHECK(cudaMemcpy(src, pattern.data(), bytes, cudaMemcpyHostToDevice));
  int *errors = nullptr;
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  for (int op : {NVSHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_ADD}) {
    for (int scope = 0; scope < 3; ++scope) {
      CUDA_CHECK(cudaMemset(data, kPoison, 20 * bytes));
      CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
      CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
      gpu_test::barrier();
      signal_kernel<<<1, 128>>>(data, src, bytes, sig, scope, op, errors);
      LAUNCH_CHECK();
      int h = -1;
      CUDA_CHECK(cudaMemcpy(&h, errors, sizeof h, cudaMemcpyDeviceToHost));
      EXPECT_EQ(h, 0) << "scope " << scope << " op " << op;
      uint64_t final_sig = 0;
      CUDA_CHECK(cudaMemcpy(&final_sig, sig, sizeof final_sig, cudaMemcpyDeviceToHost));
      EXPECT_EQ(final_sig, 20u) << "scope " << scope << " op " << op;
      gpu_test::barrier();
    }
  }
  CUDA_CHECK(cudaFree(errors));
  nvshmem_free(sig);
  nvshmem_free(src);
  nvshmem_free(data);
}

__global__ void signal_op_kernel(uint64_t *sig, int *ivar, int rounds) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n;
  for (int r = 1; r <= rounds; ++r) {
    nvshmemx_signal_op(sig, 2, NVSHMEM_SIGNAL_ADD, right);
    nvshmem_uint64_wait_until(sig, NVSHMEM_CMP_EQ, 2ull * r);
    nvshmem_int_p(ivar, r, right);
    nvshmem_int_wait_until(ivar, NVSHMEM_CMP_GE, r);
  }
  nvshmemx_signal_op(sig, 12345, NVSHMEM_SIGNAL_SET, right);
  nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 12345);
}

TEST(DeviceSignal, SignalOpAndWaits) {
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  int *ivar = static_cast<int *>(nvshmem_calloc(1, sizeof(int)));
  gpu_test::barrier();
  signal_op_kernel<<<1, 1>>>(sig, ivar, 50);
  LAUNCH_CHECK();
  uint64_t h = 0;
  CUDA_CHECK(cudaMemcpy(&h, sig, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h, 12345u);
  gpu_test::barrier();
  nvshmem_free(ivar);
  nvshmem_free(sig);
}

// Barriers: each round every PE adds 1 to a counter on every PE, barriers, and checks that its own
// counter counts every PE of every round so far.
__global__ void barrier_kernel(int *counter, int rounds, int scope, int *errors) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  for (int r = 1; r <= rounds; ++r) {
    if (threadIdx.x == 0)
      for (int pe = 0; pe < n; ++pe) nvshmem_int_atomic_add(counter, 1, pe);
    if (scope == 0) {
      if (threadIdx.x == 0) nvshmem_barrier_all();
      __syncthreads();
    } else if (scope == 1) {
      nvshmemx_barrier_all_block();
    } else {
      if (threadIdx.x == 0) nvshmem_quiet();
      nvshmemx_sync_all_block();
    }
    if (threadIdx.x == 0) *errors += nvshmem_int_atomic_fetch(counter, me) != r * n;
    // Nobody may add for the next round before everybody checked this one.
    if (scope == 1)
      nvshmemx_barrier_all_block();
    else if (threadIdx.x < 32)
      nvshmemx_sync_all_warp();
    __syncthreads();
  }
}

TEST(DeviceBarrier, ThreadBlockAndSyncScopes) {
  int *counter = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  int *errors = nullptr;
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  for (int scope = 0; scope < 3; ++scope) {
    CUDA_CHECK(cudaMemset(counter, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
    gpu_test::barrier();
    barrier_kernel<<<1, 64>>>(counter, 100, scope, errors);
    LAUNCH_CHECK();
    int h = -1;
    CUDA_CHECK(cudaMemcpy(&h, errors, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT_EQ(h, 0) << "scope " << scope;
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(errors));
  nvshmem_free(counter);
}

// Atomics on PE 0 from every PE: fetch_add sums, exactly one compare_swap wins, set/fetch round trip.
#define DEFINE_ATOMIC_TEST(NAME, T)                                                           \
  __global__ void atomics_##NAME(T *counter, T *lock, T *cell, T *wins, T *fetched) {         \
    const int me = nvshmem_my_pe();                                                           \
    for (int i = 0; i < 100; ++i) nvshmem_##NAME##_atomic_fetch_add(counter, (T)(me + 1), 0); \
    nvshmem_##NAME##_atomic_add(counter, (T)1000, 0);                                         \
    if (nvshmem_##NAME##_atomic_compare_swap(lock, (T)0, (T)(me + 1), 0) == (T)0)             \
      nvshmem_##NAME##_atomic_add(wins, (T)1, 0);                                             \
    nvshmem_##NAME##_atomic_set(cell, (T)(7 * me + 3), me);                                   \
    *fetched = nvshmem_##NAME##_atomic_fetch(cell, me);                                       \
  }                                                                                           \
  TEST(DeviceAtomics, NAME) {                                                                 \
    const int me = nvshmem_my_pe(), n = nvshmem_n_pes();                                      \
    T *sym = static_cast<T *>(nvshmem_calloc(4, sizeof(T)));                                  \
    T *fetched = nullptr;                                                                     \
    CUDA_CHECK(cudaMalloc(&fetched, sizeof(T)));                                              \
    gpu_test::barrier();                                                                      \
    atomics_##NAME<<<1, 1>>>(sym, sym + 1, sym + 2, sym + 3, fetched);                        \
    LAUNCH_CHECK();                                                                           \
    gpu_test::barrier();                                                                      \
    T h[4], f;                                                                                \
    CUDA_CHECK(cudaMemcpy(h, sym, sizeof h, cudaMemcpyDeviceToHost));                         \
    CUDA_CHECK(cudaMemcpy(&f, fetched, sizeof f, cudaMemcpyDeviceToHost));                    \
    EXPECT_EQ(f, (T)(7 * me + 3));                                                            \
    EXPECT_EQ(h[2], (T)(7 * me + 3));                                                         \
    if (me == 0) {                                                                            \
      EXPECT_EQ(h[0], (T)(100 * n * (n + 1) / 2 + 1000 * n));                                 \
      EXPECT_EQ(h[3], (T)1) << "exactly one compare_swap must win";                           \
      EXPECT_GE(h[1], (T)1);                                                                  \
      EXPECT_LE(h[1], (T)n);                                                                  \
    }                                                                                         \
    gpu_test::barrier();                                                                      \
    CUDA_CHECK(cudaFree(fetched));                                                            \
    nvshmem_free(sym);                                                                        \
  }
DEFINE_ATOMIC_TEST(int, int)
DEFINE_ATOMIC_TEST(long, long)
DEFINE_ATOMIC_TEST(uint64, uint64_t)
#undef DEFINE_ATOMIC_TEST

// Collective launch: every block of a co-resident grid does block-scope barriers.
__global__ void collective_kernel(int *out) {
  nvshmemx_barrier_all_block();
  if (threadIdx.x == 0) out[blockIdx.x] = nvshmem_my_pe() + 1;
}

TEST(DeviceLaunch, CollectiveLaunch) {
  int max_grid = 0;
  ASSERT_EQ(
      nvshmemx_collective_launch_query_gridsize((const void *)collective_kernel, dim3(128), nullptr, 0, &max_grid), 0);
  ASSERT_GT(max_grid, 0);
  const int grid = max_grid < 4 ? max_grid : 4;
  int *out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, grid * sizeof(int)));
  CUDA_CHECK(cudaMemset(out, 0, grid * sizeof(int)));
  void *args[] = {&out};
  EXPECT_EQ(nvshmemx_collective_launch((const void *)collective_kernel, dim3(grid), dim3(128), args, 0, nullptr), 0);
  LAUNCH_CHECK();
  std::vector<int> h(grid);
  CUDA_CHECK(cudaMemcpy(h.data(), out, grid * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < grid; ++b) EXPECT_EQ(h[b], nvshmem_my_pe() + 1);
  EXPECT_EQ(
      nvshmemx_collective_launch((const void *)collective_kernel, dim3(max_grid + 1), dim3(128), args, 0, nullptr),
      NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED);
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(out));
}

// NVSHMEM 3.8's nvshmemx_collective_launch_attr: a grid of all zeros becomes the largest co-resident grid,
// the caller's attributes go with it (a priority; the cooperative one is added), and a larger grid fails.
TEST(DeviceLaunch, CollectiveLaunchAttr) {
  int max_grid = 0;
  ASSERT_EQ(
      nvshmemx_collective_launch_query_gridsize((const void *)collective_kernel, dim3(128), nullptr, 0, &max_grid), 0);
  int *out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, (max_grid + 1) * sizeof(int)));
  CUDA_CHECK(cudaMemset(out, 0, (max_grid + 1) * sizeof(int)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cudaLaunchAttribute priority = {};
  priority.id = cudaLaunchAttributePriority;
  priority.val.priority = 0;
  nvshmemx_collective_launch_attr_t attr = {};
  attr.cuda_config.gridDim = dim3(0, 0, 0);
  attr.cuda_config.blockDim = dim3(128, 1, 1);
  attr.cuda_config.stream = stream;
  attr.cuda_config.attrs = &priority;
  attr.cuda_config.numAttrs = 1;
  void *args[] = {&out};
  EXPECT_EQ(nvshmemx_collective_launch_attr(&attr, (const void *)collective_kernel, args), 0);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<int> h(max_grid + 1);
  CUDA_CHECK(cudaMemcpy(h.data(), out, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < max_grid; ++b) ASSERT_EQ(h[b], nvshmem_my_pe() + 1) << "block " << b;
  EXPECT_EQ(h[max_grid], 0) << "more blocks than the query gave";
  attr.cuda_config.gridDim = dim3(max_grid + 1, 1, 1);
  EXPECT_EQ(nvshmemx_collective_launch_attr(&attr, (const void *)collective_kernel, args),
            NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED);
  gpu_test::barrier();
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(out));
}

// Several PEs on one GPU (docs/compatibility.md, "Several PEs on one GPU"), from what this machine says:
// the PEs whose GPU has this PE's UUID (gathered through the heap), whether CUDA runs this PE's context
// under MPS and CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (the same for every PE of a test) decide the init
// status and each PE's share of the GPU's grid. tools/gpu-check.sh --mps runs the MPS case.
TEST(DeviceLaunch, InitStatusAndGridShareFollowTheGpusSharing) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  auto *uuids = static_cast<unsigned char *>(nvshmem_malloc(16 * n));
  ASSERT_NE(uuids, nullptr);
  for (int pe = 0; pe < n; ++pe) nvshmem_putmem(uuids + 16 * me, &prop.uuid, 16, pe);
  nvshmem_barrier_all();
  const std::vector<unsigned char> all = gpu_test::to_host(uuids, 16 * n);
  int sharing = 0;
  for (int pe = 0; pe < n; ++pe) sharing += memcmp(&all[16 * pe], &prop.uuid, 16) == 0;
  ASSERT_GE(sharing, 1);
  const char *percent = getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  const char *ignore = getenv("NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  const bool ignored = ignore && *ignore && !strchr("0nNfF", ignore[0]);  // the library's reading of a boolean
  char *end = nullptr;
  const double each = percent ? strtod(percent, &end) : 0;
  const bool provisioned = ignored || (percent && *end == '\0' && each > 0 && each <= 100 && each * sharing <= 100);
  const bool full = prop.mpsEnabled && provisioned;
  EXPECT_EQ(nvshmemx_init_status(), sharing == 1 ? NVSHMEM_STATUS_IS_INITIALIZED
                                    : full       ? NVSHMEM_STATUS_FULL_MPG
                                                 : NVSHMEM_STATUS_LIMITED_MPG)
      << sharing << " PEs on this GPU, MPS " << prop.mpsEnabled;
  const int share = sharing > 1 && prop.mpsEnabled && !ignored ? sharing : 1;
  EXPECT_EQ(nvshm_collective_grid_share(), share);
  // One SM's worth stays free where PEs on other nodes apply atomics to this GPU (docs/remote.md): the
  // job has such PEs when nvshmem_ptr gives no address for one.
  bool remote_peers = false;
  for (int pe = 0; pe < n; ++pe) remote_peers |= nvshmem_ptr(uuids, pe) == nullptr;
  const int reserved = remote_peers ? 1 : 0;
  EXPECT_EQ(nvshm_collective_reserved_sms(), reserved);
  int sms = 0, per_sm = 0, max_grid = -1;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, collective_kernel, 128, 0));
  ASSERT_EQ(
      nvshmemx_collective_launch_query_gridsize((const void *)collective_kernel, dim3(128), nullptr, 0, &max_grid), 0);
  EXPECT_EQ(max_grid, per_sm * (sms - reserved) / share);
  nvshmem_barrier_all();
  nvshmem_free(uuids);
}

// The query gives what NVIDIA documents: blocks per SM (the occupancy calculator) times SMs (this PE's
// share of them where PEs share the GPU under MPS, less one where remote PEs' atomics need room); a grid of
// 0 launches that many blocks.
TEST(DeviceLaunch, GridIsOccupancyTimesSmsAndZeroPicksIt) {
  int device = 0, sms = 0, per_sm = 0, max_grid = -1;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  for (const unsigned threads : {32u, 128u, 1024u}) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, collective_kernel, threads, 4096));
    ASSERT_EQ(nvshmemx_collective_launch_query_gridsize((const void *)collective_kernel, dim3(threads), nullptr, 4096,
                                                        &max_grid),
              0);
    EXPECT_EQ(max_grid, per_sm * (sms - nvshm_collective_reserved_sms()) / nvshm_collective_grid_share())
        << threads << " threads";
  }
  ASSERT_EQ(
      nvshmemx_collective_launch_query_gridsize((const void *)collective_kernel, dim3(128), nullptr, 0, &max_grid), 0);
  int *out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, (max_grid + 1) * sizeof(int)));
  CUDA_CHECK(cudaMemset(out, 0, (max_grid + 1) * sizeof(int)));
  void *args[] = {&out};
  EXPECT_EQ(nvshmemx_collective_launch((const void *)collective_kernel, dim3(0), dim3(128), args, 0, nullptr), 0);
  LAUNCH_CHECK();
  std::vector<int> h(max_grid + 1);
  CUDA_CHECK(cudaMemcpy(h.data(), out, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < max_grid; ++b) ASSERT_EQ(h[b], nvshmem_my_pe() + 1) << "block " << b;
  EXPECT_EQ(h[max_grid], 0) << "more blocks than the query gave";
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(out));
}

__global__ void __launch_bounds__(128) bounded_kernel(int *out) {
  out[threadIdx.x] = 1;
}

// No block fits: the query gives 0 and says why; the launch fails with the same reason.
TEST(DeviceLaunch, SaysWhyNoBlockFits) {
  int grid = -1;
  testing::internal::CaptureStderr();
  ASSERT_EQ(nvshmemx_collective_launch_query_gridsize((const void *)bounded_kernel, dim3(1024), nullptr, 0, &grid), 0);
  std::string text = testing::internal::GetCapturedStderr();
  EXPECT_EQ(grid, 0);
  EXPECT_NE(text.find("nvshmemx_collective_launch_query_gridsize: no block of the kernel can be resident: block size: "
                      "the kernel launches at most 128 threads per block"),
            std::string::npos)
      << text;
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  testing::internal::CaptureStderr();
  void *args[] = {nullptr};
  EXPECT_EQ(nvshmemx_collective_launch((const void *)collective_kernel, dim3(1), dim3(32), args, optin + 1024, nullptr),
            NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED);
  text = testing::internal::GetCapturedStderr();
  EXPECT_NE(text.find("nvshmemx_collective_launch: no block of the kernel can be resident: shared memory: "),
            std::string::npos)
      << text;
}

}  // namespace
