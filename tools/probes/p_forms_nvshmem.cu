// SPDX-License-Identifier: BSD-3-Clause
// Probe: shmem_p_bw's and shmem_atomic_bw's loops in the real two-process setting (nvshmrun -n 2,
// the symmetric heap), each with the library's call and with the same access made directly on the
// nvshmem_ptr address in several PTX forms: PE 0 writes PE 1's buffer, 128 x 1024 threads, one
// element per thread per step, 50 steps, best of 7 (GB/s). A second table times the library's two
// loops again, best and median of 7, with the receiver (PE 1) waiting in nvshmem_barrier_all as in
// the perftests, busy, or asleep: does the receiver's state change the sender's bandwidth? Build
// and run: tools/probes/README.md. A third table steps from the probe's setting to the perftest's.
#include "probe.cuh"
#include "probe_pes.cuh"

#include <nvshmem.h>
#include <nvshmemx.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <unistd.h>
#include <vector>

enum Form { kLibP, kWeakGeneric, kWeakGlobal, kRelaxedSys, kLibAtomicAdd, kRedRelaxedSys, kAtomicAddSystem };
const char *kNames[] = {"nvshmem_int_p",
                        "st (generic, weak) on nvshmem_ptr",
                        "st.global (weak) on nvshmem_ptr",
                        "st.relaxed.sys on nvshmem_ptr",
                        "nvshmem_uint64_atomic_add",
                        "red.relaxed.sys.add on nvshmem_ptr",
                        "atomicAdd_system on nvshmem_ptr"};

template <Form F>
__global__ void loop(int *sym32, uint64_t *sym64, int *peer32, uint64_t *peer64, const int *src, size_t n, int iters,
                     int pe) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int it = 0; it < iters; ++it)
    for (size_t j = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += stride) {
      if constexpr (F == kLibP) nvshmem_int_p(sym32 + j, src[j], pe);
      if constexpr (F == kWeakGeneric) peer32[j] = src[j];
      if constexpr (F == kWeakGlobal) asm volatile("st.global.b32 [%0], %1;" ::"l"(peer32 + j), "r"(src[j]) : "memory");
      if constexpr (F == kRelaxedSys)
        asm volatile("st.relaxed.sys.global.b32 [%0], %1;" ::"l"(peer32 + j), "r"(src[j]) : "memory");
      if constexpr (F == kLibAtomicAdd) nvshmem_uint64_atomic_add(sym64 + j, 1, pe);
      if constexpr (F == kRedRelaxedSys)
        asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(peer64 + j), "l"(uint64_t{1}) : "memory");
      if constexpr (F == kAtomicAddSystem) atomicAdd_system(reinterpret_cast<unsigned long long *>(peer64 + j), 1ull);
    }
  nvshmem_quiet();
}

__device__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Keeps every SM of this GPU busy for `ns` nanoseconds.
__global__ void spin(uint64_t ns) {
  const uint64_t t0 = global_ns();
  while (global_ns() - t0 < ns) __nanosleep(1000);
}

using Kernel = void (*)(int *, uint64_t *, int *, uint64_t *, const int *, size_t, int, int);

// The second table: the library's p and atomic-add loops while PE 1 (the receiver) is in one of three
// states from the barrier on, for longer than PE 0's 8 launches: "poll" waits in nvshmem_barrier_all
// (whose host wait reads PE 1's words with copies from its GPU memory); "busy" does the same while a
// kernel spins on every SM of its GPU; "sleep" sleeps 300 ms first, so nothing runs on or reads from
// its GPU meanwhile.
void peer_states(Kernel p, Kernel add, int *dst32, uint64_t *dst64, int *peer32, uint64_t *peer64, const int *src) {
  const int me = nvshmem_my_pe();
  const char *states[] = {"poll", "busy", "sleep"};
  int sms = 0;
  PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (me == 0) {
    printf("\n%-40s", "best/median of 7, PE 1 poll/busy/sleep:");
    for (size_t s : kProbeSizes) printf(" %15zu", s);
    printf("\n");
  }
  for (int l = 0; l < 2; ++l)
    for (int state = 0; state < 3; ++state) {
      if (me == 0) printf("%-34s %-5s", l ? "nvshmem_uint64_atomic_add" : "nvshmem_int_p", states[state]);
      for (size_t s : kProbeSizes) {
        nvshmem_barrier_all();
        if (me == 1 && state == 1) {
          spin<<<sms, 32>>>(uint64_t{200} * 1000 * 1000);
          PROBE_CHECK(cudaGetLastError());
        }
        if (me == 1 && state == 2) usleep(300 * 1000);
        if (me == 0) {
          const Rates r = gbps_runs(
              [&](int steps) {
                (l ? add : p)<<<128, 1024>>>(dst32, dst64, peer32, peer64, src, s / (l ? 8 : 4), steps, 1);
              },
              s);
          printf(" %7.1f/%7.1f", r.best, r.median);
        }
        nvshmem_barrier_all();
        if (me == 1) PROBE_CHECK(cudaDeviceSynchronize());
      }
      if (me == 0) printf("\n");
    }
}

// The third table: the library's p loop in the perftest's setting, one difference at a time from the
// probe's: a non-blocking stream instead of the legacy default stream, nvshmem_barrier_all on both
// PEs before each timed launch, a random source instead of a constant one. Median of 7 (GB/s).
void perftest_setting(Kernel p, int *dst32, int *src) {
  const int me = nvshmem_my_pe();
  const char *names[] = {"legacy stream, back to back", "non-blocking stream, back to back",
                         "non-blocking, barrier before each run", "non-blocking, barrier, random source"};
  cudaStream_t nonblocking;
  PROBE_CHECK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  PROBE_CHECK(cudaEventCreate(&a));
  PROBE_CHECK(cudaEventCreate(&b));
  if (me == 0) {
    printf("\n%-40s", "nvshmem_int_p, median of 7:");
    for (size_t s : kProbeSizes) printf(" %9zu", s);
    printf("\n");
  }
  for (int setting = 0; setting < 4; ++setting) {
    if (setting == 3) {
      std::vector<int> random(kProbeSizes[3] / 4);
      uint32_t x = 12345;
      for (int &v : random) v = static_cast<int>(x = x * 1664525u + 1013904223u);
      PROBE_CHECK(cudaMemcpy(src, random.data(), random.size() * 4, cudaMemcpyHostToDevice));
    }
    const cudaStream_t stream = setting == 0 ? cudaStream_t{0} : nonblocking;
    const bool barrier = setting >= 2;
    if (me == 0) printf("%-40s", names[setting]);
    for (size_t s : kProbeSizes) {
      nvshmem_barrier_all();
      double rates[7];
      if (me == 0) {
        p<<<128, 1024, 0, stream>>>(dst32, nullptr, nullptr, nullptr, src, s / 4, 5, 1);
        PROBE_CHECK(cudaGetLastError());
        PROBE_CHECK(cudaStreamSynchronize(stream));
      }
      for (int r = 0; r < 7; ++r) {
        if (barrier) nvshmem_barrier_all();
        if (me != 0) continue;
        PROBE_CHECK(cudaEventRecord(a, stream));
        p<<<128, 1024, 0, stream>>>(dst32, nullptr, nullptr, nullptr, src, s / 4, 50, 1);
        PROBE_CHECK(cudaEventRecord(b, stream));
        PROBE_CHECK(cudaEventSynchronize(b));
        PROBE_CHECK(cudaGetLastError());
        float ms;
        PROBE_CHECK(cudaEventElapsedTime(&ms, a, b));
        rates[r] = static_cast<double>(s) * 50 / (ms * 1e-3) / 1e9;
      }
      if (me == 0) {
        std::sort(rates, rates + 7);
        printf(" %9.1f", rates[3]);
      }
    }
    if (me == 0) printf("\n");
  }
  nvshmem_barrier_all();
  PROBE_CHECK(cudaEventDestroy(a));
  PROBE_CHECK(cudaEventDestroy(b));
  PROBE_CHECK(cudaStreamDestroy(nonblocking));
}

int main() {
  const int me = probe_start_two_pes();
  const size_t most = 4 << 20;
  int *src = static_cast<int *>(nvshmem_malloc(most));
  int *dst32 = static_cast<int *>(nvshmem_malloc(most));
  uint64_t *dst64 = static_cast<uint64_t *>(nvshmem_malloc(most));
  if (!src || !dst32 || !dst64) {
    printf("nvshmem_malloc failed\n");
    return 1;
  }
  PROBE_CHECK(cudaMemset(src, 1, most));
  int *peer32 = static_cast<int *>(nvshmem_ptr(dst32, 1));
  uint64_t *peer64 = static_cast<uint64_t *>(nvshmem_ptr(dst64, 1));
  if (me == 0 && (!peer32 || !peer64)) {
    printf("nvshmem_ptr gave no address for PE 1\n");
    return 1;
  }
  const Kernel kernels[] = {loop<kLibP>,         loop<kWeakGeneric>,   loop<kWeakGlobal>,     loop<kRelaxedSys>,
                            loop<kLibAtomicAdd>, loop<kRedRelaxedSys>, loop<kAtomicAddSystem>};
  if (me == 0) {
    printf("%-40s", "bytes:");
    for (size_t s : kProbeSizes) printf(" %9zu", s);
    printf("   (GB/s; 4 B stores, 8 B atomics)\n");
  }
  for (int f = 0; f < 7; ++f) {
    if (me == 0) printf("%-40s", kNames[f]);
    for (size_t s : kProbeSizes) {
      const size_t n = s / (f >= kLibAtomicAdd ? 8 : 4);
      nvshmem_barrier_all();
      if (me == 0)
        printf(" %9.1f",
               best_gbps([&](int steps) { kernels[f]<<<128, 1024>>>(dst32, dst64, peer32, peer64, src, n, steps, 1); },
                         s));
    }
    if (me == 0) printf("\n");
  }
  peer_states(kernels[kLibP], kernels[kLibAtomicAdd], dst32, dst64, peer32, peer64, src);
  perftest_setting(kernels[kLibP], dst32, src);
  nvshmem_barrier_all();
  nvshmem_free(dst64);
  nvshmem_free(dst32);
  nvshmem_free(src);
  nvshmem_finalize();
  return 0;
}
