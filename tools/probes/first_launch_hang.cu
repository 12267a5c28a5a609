// SPDX-License-Identifier: BSD-3-Clause
// Probe: does a kernel's first launch behind a stream barrier through the proxy hang the job, and which step
// of the sequence decides it? Session 37 (docs/history/benchmarks.md): forced remote, the suite
// test_remote_device hung in RemoteDevice.StreamBarrierCompletesTheNbiPutsOfKernelsBeforeIt, whose check kernel
// was launched for the first time right behind nvshmemx_barrier_all_on_stream; the suspected cause is CUDA's
// lazy loading (docs/proxy.md, "Kernels loaded at init"). Each PE: a block put_nbi of 4 KiB to its right
// neighbour in one kernel on a non-blocking stream, then the variant's ordering, then a first launch of a
// check kernel on the same stream, which counts the ints that are not the left neighbour's. A watchdog prints
// the step reached after 25 s (and every thread's stack, where gdb is installed) and ends the PE.
// Variants (argument): barrier (the test), quiet-barrier (nvshmemx_quiet_on_stream first), sync (team sync
// on the stream: no quiet, so the count may be wrong, but nothing waits on the puts), quiet-sync, host-sync
// (cudaStreamSynchronize between the put's kernel and the barrier). Compare CUDA_MODULE_LOADING=LAZY and EAGER.
// Build and run: tools/probes/README.md.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "probe.cuh"
#include "probe_pes.cuh"
#include <nvshmemx.h>

namespace {
constexpr int kInts = 1024;
std::atomic<int> g_step{0};

__global__ void fill(int *src, int me) {
  for (int i = threadIdx.x; i < kInts; i += blockDim.x) src[i] = me * 100000 + i;
}
__global__ void put_nbi_right(int *dst, const int *src, int pe) {
  nvshmemx_int_put_nbi_block(dst, src, kInts, pe);
}
__global__ void count_wrong(const int *dst, int from, int *bad) {
  for (int i = threadIdx.x; i < kInts; i += blockDim.x)
    if (dst[i] != from * 100000 + i) atomicAdd(bad, 1);
}

void watchdog(int me, const char *variant) {
  std::this_thread::sleep_for(std::chrono::seconds(25));
  printf("PE %d %s: stuck at step %d (1 put launched, 2 ordering enqueued, 3 check launched, 4 done)\n", me, variant,
         g_step.load());
  fflush(stdout);
  const std::string gdb = "command -v gdb >/dev/null && gdb -p " + std::to_string(getpid()) +
                          " -batch -ex 'thread apply all bt' 2>&1 | grep -E '^#|^Thread' | cut -c1-160 | head -100";
  if (system(gdb.c_str()) != 0) printf("PE %d: no stacks (gdb missing or failed)\n", me);
  _exit(3);
}
}  // namespace

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "barrier";
  const int me = probe_start_two_pes(), other = 1 - me;
  std::thread(watchdog, me, variant).detach();
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *dst = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *bad = nullptr;
  PROBE_CHECK(cudaMalloc(&bad, sizeof(int)));
  PROBE_CHECK(cudaMemset(bad, 0, sizeof(int)));
  PROBE_CHECK(cudaMemset(dst, 0xab, kInts * sizeof(int)));
  fill<<<1, 256>>>(src, me);
  PROBE_CHECK(cudaGetLastError());
  PROBE_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
  cudaStream_t stream;
  PROBE_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto start = std::chrono::steady_clock::now();
  put_nbi_right<<<1, 256, 0, stream>>>(dst, src, other);
  PROBE_CHECK(cudaGetLastError());
  g_step = 1;
  const bool quiet_first = !strncmp(variant, "quiet-", 6),
             sync = strstr(variant, "sync") && strcmp(variant, "host-sync");
  if (quiet_first) nvshmemx_quiet_on_stream(stream);
  if (!strcmp(variant, "host-sync")) PROBE_CHECK(cudaStreamSynchronize(stream));
  if (sync)
    nvshmemx_sync_all_on_stream(stream);
  else
    nvshmemx_barrier_all_on_stream(stream);
  g_step = 2;
  count_wrong<<<1, 256, 0, stream>>>(dst, other, bad);
  PROBE_CHECK(cudaGetLastError());
  g_step = 3;
  PROBE_CHECK(cudaStreamSynchronize(stream));
  g_step = 4;
  int wrong = -1;
  PROBE_CHECK(cudaMemcpy(&wrong, bad, sizeof wrong, cudaMemcpyDeviceToHost));
  printf("PE %d %s: %d of %d ints wrong, %.1f ms\n", me, variant, wrong, kInts,
         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  nvshmem_barrier_all();
  PROBE_CHECK(cudaStreamDestroy(stream));
  PROBE_CHECK(cudaFree(bad));
  nvshmem_free(dst);
  nvshmem_free(src);
  nvshmem_finalize();
  return 0;
}
