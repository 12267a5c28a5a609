// SPDX-License-Identifier: BSD-3-Clause
// The whole nvshmem_init of a job of 2, 64 and 1024 PEs, in one process: the MPI bootstrap on the fake
// MPICH library with FAKE_MPICH_SIZE=n (every other rank a copy of this one), every peer remote
// (NVSHMEM_DISABLE_P2P=1, the UCX engine: its endpoints are made on first use, none at init). Issue 26:
// the bytes a PE contributes to the init's exchanges do not grow with the PE count (so the bytes each
// PE receives grow linearly). The init times are printed, not asserted: a test is not a benchmark (a
// loaded 2-core CI machine took 1.9 s at 1024 PEs); issue 26's one-second goal is for a 2-host job, and
// multipe.hosts.init_time.2x1 checks it. Run with the environment of its CTest.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// The fake MPI library, loaded here first (the bootstrap's dlopen of the same path finds this copy).
template <typename F>
F fake_mpich(const char *name) {
  static void *h = dlopen(FAKE_MPICH_PATH, RTLD_NOW);
  return h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
}

TEST(InitScale, BytesEachPeContributesDoNotGrowWithThePeCount) {
  const auto start_mpi = fake_mpich<void (*)()>("fake_mpich_reset_initialized");
  const auto take_contributed = fake_mpich<unsigned long long (*)()>("fake_mpich_take_contributed");
  ASSERT_TRUE(start_mpi && take_contributed) << dlerror();
  unsigned long long at_2 = 0;
  for (const int n : {2, 64, 1024}) {
    start_mpi();  // as an application that called MPI_Init: each nvshmem_init leaves MPI as it found it
    setenv("FAKE_MPICH_SIZE", std::to_string(n).c_str(), 1);
    const auto t0 = std::chrono::steady_clock::now();
    nvshmem_init();
    const double init_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(nvshmem_n_pes(), n);
    EXPECT_EQ(nvshmem_my_pe(), 0);
    EXPECT_EQ(nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED), 1);  // no peer mapped: each one is the engine's
    // Every peer is remote: no address for one, and this PE's own heap works.
    auto *word = static_cast<long *>(nvshmem_malloc(sizeof(long)));
    ASSERT_NE(word, nullptr);
    EXPECT_EQ(nvshmem_ptr(word, 0), word);
    EXPECT_EQ(nvshmem_ptr(word, n - 1), nullptr);
    nvshmem_long_p(word, 1000 + n, 0);
    nvshmem_quiet();
    EXPECT_EQ(*word, 1000 + n);
    nvshmem_free(word);
    nvshmem_finalize();
    const unsigned long long bytes = take_contributed();
    printf("%4d PEs: init %.3f s, %llu bytes contributed by this PE (so %llu received)\n", n, init_s, bytes,
           bytes * static_cast<unsigned long long>(n));
    fflush(stdout);
    if (n == 2) at_2 = bytes;
    EXPECT_GT(bytes, 0ull);
    EXPECT_EQ(bytes, at_2) << n << " PEs";
  }
}

}  // namespace
