// SPDX-License-Identifier: BSD-3-Clause
// Init and finalize across real processes: status queries, finalize twice, calls after finalize,
// 50 init/finalize cycles without leaking descriptors, threads or memory, and a barrier as the
// very first operation when the PEs start seconds apart. Run under nvshmrun.
#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "pe_test.hpp"

namespace {

int count_entries(const char *dir) {
  int n = 0;
  if (DIR *d = opendir(dir)) {
    while (dirent *e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// One cycle: init, allocate, put to the right neighbour, check, free, finalize.
void one_cycle(int round) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *x = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  ASSERT_NE(x, nullptr);
  nvshmem_int_p(x, round * 100 + me, (me + 1) % n);
  nvshmem_barrier_all();
  EXPECT_EQ(nvshmem_int_g(x, me), round * 100 + (me + n - 1) % n);
  nvshmem_free(x);
  nvshmem_finalize();
}

TEST(Lifecycle, FirstBarrierWithStaggeredStart) {
  const char *rank = getenv("NVSHMRUN_RANK");
  std::this_thread::sleep_for(std::chrono::milliseconds(400 * (rank ? atoi(rank) : 0)));
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  nvshmem_init();
  EXPECT_GE(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
  nvshmem_barrier_all();
  nvshmem_finalize();
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  nvshmem_finalize();  // harmless
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
}

TEST(Lifecycle, FiftyCyclesLeakNothing) {
  one_cycle(0);  // warm-up: lazily loaded libraries and the CUDA runtime settle here
  const int fds = count_entries("/proc/self/fd"), threads = count_entries("/proc/self/task");
  [[maybe_unused]] const long rss = rss_kib();
  for (int round = 1; round <= 50; ++round) one_cycle(round);
  EXPECT_EQ(count_entries("/proc/self/fd"), fds) << "file descriptors leaked";
  EXPECT_EQ(count_entries("/proc/self/task"), threads) << "threads leaked";
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // the sanitizers keep freed memory resident
  // (ASan: its quarantine, and LeakSanitizer checks leaks there; TSan: its shadow and history)
  EXPECT_LT(rss_kib() - rss, 16 * 1024) << "resident memory grew by more than 16 MiB over 50 cycles";
#endif
}

// The host-library pair works like nvshmemx_init_attr / nvshmem_finalize.
TEST(Lifecycle, HostlibInitAndFinalize) {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  ASSERT_EQ(nvshmemx_hostlib_init_attr(0, &attr), 0);
  EXPECT_GE(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
  nvshmem_barrier_all();
  nvshmemx_hostlib_finalize();
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  one_cycle(3);
}

// Without a GPU, asking for the heap in GPU memory fails on every PE with a status (not a crash),
// and the runtime can be initialised normally afterwards.
TEST(Lifecycle, ForcedDeviceHeapWithoutGpuFailsCleanly) {
  setenv("NVSHMEM_HEAP_KIND", "DEVICE", 1);
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  const int rc = nvshmemx_init_attr(0, &attr);
  unsetenv("NVSHMEM_HEAP_KIND");
  if (rc == 0) {
    nvshmem_finalize();
    GTEST_SKIP() << "a GPU is visible here";
  }
  EXPECT_EQ(rc, NVSHMEMX_ERROR_GPU_NOT_SELECTED);
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  one_cycle(7);
}

// PEs that size their heaps differently would map each other's memory wrongly: init fails on every
// PE with NVSHMEMX_ERROR_SYMMETRY and a message naming both layouts, and a later init works.
TEST(Lifecycle, MismatchedHeapSizesFailOnEveryPe) {
  const char *rank = getenv("NVSHMRUN_RANK");
  const char *size = getenv("NVSHMRUN_SIZE");
  if (!rank || !size || atoi(size) < 2) GTEST_SKIP() << "needs 2 or more PEs under nvshmrun";
  const std::string saved = getenv("NVSHMEM_SYMMETRIC_SIZE") ? getenv("NVSHMEM_SYMMETRIC_SIZE") : "";
  if (atoi(rank) == 1) setenv("NVSHMEM_SYMMETRIC_SIZE", "96m", 1);
  testing::internal::CaptureStderr();
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  const int rc = nvshmemx_init_attr(0, &attr);
  const std::string err = testing::internal::GetCapturedStderr();
  saved.empty() ? unsetenv("NVSHMEM_SYMMETRIC_SIZE") : setenv("NVSHMEM_SYMMETRIC_SIZE", saved.c_str(), 1);
  EXPECT_EQ(rc, NVSHMEMX_ERROR_SYMMETRY);
  EXPECT_NE(err.find("PEs disagree on the heap's layout"), std::string::npos) << err;
  EXPECT_NE(err.find("NVSHMEM_SYMMETRIC_SIZE"), std::string::npos) << err;
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  one_cycle(9);
}

TEST(LifecycleDeathTest, CallAfterFinalizeFailsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "fast");
  EXPECT_DEATH(nvshmem_my_pe(), "nvshmem_my_pe.*not initialised");
  EXPECT_DEATH(nvshmem_malloc(8), "nvshmem_malloc.*not initialised");
  EXPECT_DEATH(nvshmem_barrier_all(), "nvshmem_barrier_all.*not initialised");
}

}  // namespace
