// SPDX-License-Identifier: BSD-3-Clause
// Shared helpers of the GPU tests: CUDA checks, a main that skips (exit 77) without a GPU,
// random data and poisoned outputs.
#pragma once
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nvshmem.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_); \
  } while (0)
// After every kernel launch: launch errors, then execution errors.
#define LAUNCH_CHECK()                   \
  do {                                   \
    CUDA_CHECK(cudaGetLastError());      \
    CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)

namespace gpu_test {

/* A CUDA driver function through the runtime's entry-point query (no link to libcuda). */
template <typename F>
F driver_function(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) != cudaSuccess) return nullptr;
  return reinterpret_cast<F>(fn);
}

constexpr unsigned char kPoison = 0xA5;

// Random bytes, different per PE and per call site `salt`.
inline std::vector<unsigned char> random_bytes(std::size_t n, int pe, int salt) {
  std::mt19937_64 rng(static_cast<uint64_t>(pe) * 1000003u + static_cast<uint64_t>(salt) * 7919u + 17);
  std::vector<unsigned char> v(n);
  for (auto &b : v) b = static_cast<unsigned char>(rng());
  // Never all-poison: make the first byte differ from the poison value.
  if (n) v[0] = static_cast<unsigned char>(v[0] == kPoison ? 0x11 : v[0]);
  return v;
}

// The host barrier of the tests: first finish this PE's own CUDA work (cudaMemset and pageable
// cudaMemcpy return before the device has written), then nvshmem_barrier_all, so no peer's put can
// land before a poison or an input it would overwrite.
inline void barrier() {
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  nvshmem_barrier_all();
}

inline std::vector<unsigned char> to_host(const void *device, std::size_t n) {
  std::vector<unsigned char> v(n);
  EXPECT_EQ(cudaMemcpy(v.data(), device, n, cudaMemcpyDeviceToHost), cudaSuccess);
  return v;
}

// 77 (CTest's SKIP_RETURN_CODE), with the reason printed, where the GPU tests cannot run here; else 0.
inline int skip_code() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    printf("no GPU visible: skipping GPU tests\n");
    return 77;  // CTest SKIP_RETURN_CODE
  }
  // Remote peers on one machine (NVSHMEM_DISABLE_P2P=1: every peer through UCX; NVSHMEM_NUM_CLIQUES above 1:
  // the other cliques' PEs): skipped where libucp cannot be loaded.
  const char *no_p2p = getenv("NVSHMEM_DISABLE_P2P"), *cliques = getenv("NVSHMEM_NUM_CLIQUES");
  const bool forced =
      no_p2p && (no_p2p[0] == '1' || no_p2p[0] == 't' || no_p2p[0] == 'T' || no_p2p[0] == 'y' || no_p2p[0] == 'Y');
  if (forced || (cliques && atoi(cliques) > 1)) {
    void *ucp = dlopen("libucp.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!ucp) {
      printf("%s but libucp.so.0 cannot be loaded (%s): skipping GPU tests\n",
             forced ? "NVSHMEM_DISABLE_P2P=1" : "NVSHMEM_NUM_CLIQUES > 1", dlerror());
      return 77;
    }
    dlclose(ucp);
  }
  return 0;
}

inline int gpu_test_main(int argc, char **argv) {
  if (const int skip = skip_code()) return skip;
  ::testing::InitGoogleTest(&argc, argv);
  nvshmem_init();
  const int status = RUN_ALL_TESTS();
  nvshmem_finalize();
  return status;
}

}  // namespace gpu_test
