// SPDX-License-Identifier: BSD-3-Clause
// Probe: where the time of a thread-scope nvshmem_team_sync goes. Our thread-scope sync_latency took
// 1.67 us per call against NVIDIA's 1.51 (docs/history/benchmarks.md, session 6), while warp and block scope
// were at or below NVIDIA's. Both PEs run one thread that calls the same step 2000 times; each step
// signals the peer and waits for the peer's signal of that step. The steps add one piece of the
// library's sync_round at a time to a bare exchange, to see which costs the difference:
//   bare:            red.relaxed.sys.add to the peer's word, poll the own word with ld.relaxed.sys
//   + release red:   the signal as red.release.sys (the fence that publishes earlier stores)
//   + acquire poll:  the poll with ld.acquire.sys (as wait_until)
//   + epoch atomic:  the step's target from an atomicAdd on a counter in GPU memory (as sync_epoch)
//   + team lookup:   the peer and the words read from the team table each step (team_entry)
//   + the same lookup with ld.global.nc (__ldg): does the read-only path keep the lines that an
//                    acquire load invalidates in L1? If so, tables could be read that way.
//   nvshmem_team_sync(NVSHMEM_TEAM_WORLD) itself, and with the handle read from memory (known only at
//   run time, as in a kernel that takes its team as an argument).
// us per step, median of 7 launches on PE 0. Build and run: tools/probes/README.md.
#include "probe.cuh"
#include "probe_pes.cuh"

#include <nvshmem.h>
#include <nvshmemx.h>
#include <cstdint>
#include <cstdio>

using namespace nvshm_dev;

enum Step { kBare, kRelease, kAcquire, kEpoch, kTeam, kTeamNc, kLibrary, kLibraryRuntimeTeam, kSteps };
const char *kStepNames[] = {"bare (relaxed red, relaxed poll)",
                            "+ release red",
                            "+ acquire poll",
                            "+ epoch atomic",
                            "+ team lookup",
                            "+ team lookup with ld.global.nc",
                            "nvshmem_team_sync",
                            "nvshmem_team_sync, run-time handle"};
__device__ nvshmem_team_t world_in_memory = NVSHMEM_TEAM_WORLD;

// words: this step's symmetric words (one per PE); counter: a local counter in GPU memory.
template <Step S>
__global__ void exchange(uint64_t *words, uint64_t *counter, int iters, uint64_t base) {
  const int me = nvshmem_my_pe(), peer = 1 - me;
  const nvshmem_team_t world = *static_cast<volatile nvshmem_team_t *>(&world_in_memory);
  for (int i = 1; i <= iters; ++i) {
    if constexpr (S == kLibraryRuntimeTeam) {
      nvshmem_team_sync(world);
      continue;
    }
    if constexpr (S == kLibrary) {
      nvshmem_team_sync(NVSHMEM_TEAM_WORLD);
      continue;
    }
    uint64_t *mine = words + peer, *theirs = words + me;  // the peer signals words[peer] here
    int to = peer;
    if constexpr (S == kTeam) {
      const nvshm_team_device &t = *team_entry(NVSHMEM_TEAM_WORLD);
      to = team_world_pe(t, (t.my_pe + 1) % t.size);
      mine = words + (t.my_pe + 1) % t.size;
      theirs = words + t.my_pe;
    }
    if constexpr (S == kTeamNc) {
      const nvshm_team_device *t = state().teams + NVSHMEM_TEAM_WORLD;  // no validity check: all loads are nc
      const int my = __ldg(&t->my_pe), size = __ldg(&t->size), next = (my + 1) % size;
      to = __ldg(&t->start) + next * __ldg(&t->stride);
      mine = words + next;
      theirs = words + my;
    }
    uint64_t *remote = peer_address(theirs, to);
    if constexpr (S >= kRelease)
      add_release(remote, 1);
    else
      add_relaxed(remote, 1);
    uint64_t target = base + static_cast<uint64_t>(i);
    if constexpr (S >= kEpoch)
      target = static_cast<uint64_t>(atomicAdd(reinterpret_cast<unsigned long long *>(counter), 1ull)) + 1;
    if constexpr (S >= kAcquire) {
      while (load<Load::acquire>(mine) < target) {
      }
    } else {
      while (load_relaxed(mine) < target) {
      }
    }
  }
}

using Kernel = void (*)(uint64_t *, uint64_t *, int, uint64_t);

int main() {
  const int me = probe_start_two_pes();
  constexpr int kIters = 2000, kRuns = 7;
  uint64_t *words = static_cast<uint64_t *>(nvshmem_malloc(kSteps * 2 * sizeof(uint64_t)));
  uint64_t *counters = nullptr;
  PROBE_CHECK(cudaMalloc(&counters, kSteps * sizeof(uint64_t)));
  if (!words) {
    printf("nvshmem_malloc failed\n");
    return 1;
  }
  PROBE_CHECK(cudaMemset(words, 0, kSteps * 2 * sizeof(uint64_t)));
  PROBE_CHECK(cudaMemset(counters, 0, kSteps * sizeof(uint64_t)));
  PROBE_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
  const Kernel kernels[] = {exchange<kBare>, exchange<kRelease>, exchange<kAcquire>, exchange<kEpoch>,
                            exchange<kTeam>, exchange<kTeamNc>,  exchange<kLibrary>, exchange<kLibraryRuntimeTeam>};
  cudaEvent_t a, b;
  PROBE_CHECK(cudaEventCreate(&a));
  PROBE_CHECK(cudaEventCreate(&b));
  for (int s = 0; s < kSteps; ++s) {
    uint64_t done = 0;  // steps already taken on this step's words
    double us[kRuns];
    for (int r = -1; r < kRuns; ++r) {  // r = -1: warm-up
      nvshmem_barrier_all();
      PROBE_CHECK(cudaEventRecord(a));
      kernels[s]<<<1, 1>>>(words + 2 * s, counters + s, kIters, done);
      PROBE_CHECK(cudaEventRecord(b));
      PROBE_CHECK(cudaEventSynchronize(b));
      PROBE_CHECK(cudaGetLastError());
      done += kIters;
      float ms;
      PROBE_CHECK(cudaEventElapsedTime(&ms, a, b));
      if (r >= 0) us[r] = ms * 1e3 / kIters;
    }
    std::sort(us, us + kRuns);
    if (me == 0) printf("%-36s %7.3f us per step (best %7.3f)\n", kStepNames[s], us[kRuns / 2], us[0]);
  }
  nvshmem_barrier_all();
  PROBE_CHECK(cudaEventDestroy(a));
  PROBE_CHECK(cudaEventDestroy(b));
  PROBE_CHECK(cudaFree(counters));
  nvshmem_free(words);
  nvshmem_finalize();
  return 0;
}
