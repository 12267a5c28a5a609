// SPDX-License-Identifier: BSD-3-Clause
// Probe: throughput of remote (P2P) single-element stores, loads and atomics in different PTX forms,
// GPU 0 -> GPU 1, grid of 128 x 1024 threads over N words, like shmem_p_bw / g_bw / atomic_bw.
#include "probe.cuh"

#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
template <int V>
__global__ void k(uint32_t *dst32, uint64_t *dst64, const uint32_t *src, size_t n, int iters, uint32_t *sink) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  uint32_t acc = 0;
  for (int it = 0; it < iters; ++it)
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
      uint32_t v = src[j];
      uint32_t *p = dst32 + j;
      uint64_t *q = dst64 + j;
      if (V == 0) asm volatile("st.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
      if (V == 1) asm volatile("st.relaxed.sys.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
      if (V == 2) asm volatile("st.volatile.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
      if (V == 3) asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
      if (V == 4) {
        uint32_t r;
        asm volatile("ld.global.b32 %0, [%1];" : "=r"(r) : "l"(p));
        acc += r;
      }
      if (V == 5) {
        uint32_t r;
        asm volatile("ld.relaxed.sys.global.b32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
        acc += r;
      }
      if (V == 6) {
        uint32_t r;
        asm volatile("ld.volatile.global.b32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
        acc += r;
      }
      if (V == 7) asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(q), "l"(1ull) : "memory");
      if (V == 8) asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"(q), "l"(1ull) : "memory");
      if (V == 9) asm volatile("red.global.add.u64 [%0], %1;" ::"l"(q), "l"(1ull) : "memory");
      if (V == 10) {
        unsigned long long r;
        asm volatile("atom.relaxed.sys.global.add.u64 %0, [%1], %2;" : "=l"(r) : "l"(q), "l"(1ull) : "memory");
        acc += (uint32_t)r;
      }
      if (V == 11) atomicAdd_system((unsigned long long *)q, 1ull);
      if (V == 12) atomicAdd((unsigned long long *)q, 1ull);
    }
  if (acc == 0xdeadbeef) *sink = acc;
  if (V <= 3 || V >= 7) asm volatile("fence.sc.sys;" ::: "memory");
}
typedef void (*KFn)(uint32_t *, uint64_t *, const uint32_t *, size_t, int, uint32_t *);
int main() {
  const KFn ks[] = {k<0>, k<1>, k<2>, k<3>, k<4>, k<5>, k<6>, k<7>, k<8>, k<9>, k<10>, k<11>, k<12>};
  const char *names[] = {"st.global (weak)",
                         "st.relaxed.sys",
                         "st.volatile",
                         "st.relaxed.gpu",
                         "ld.global (weak)",
                         "ld.relaxed.sys",
                         "ld.volatile",
                         "red.relaxed.sys.add.u64",
                         "red.relaxed.gpu.add.u64",
                         "red.global.add.u64 (default)",
                         "atom.relaxed.sys.add.u64",
                         "atomicAdd_system",
                         "atomicAdd"};
  uint32_t *remote, *src, *sink;
  uint64_t *remote64;
  PROBE_CHECK(cudaSetDevice(1));
  PROBE_CHECK(cudaMalloc(&remote, 64 << 20));
  PROBE_CHECK(cudaMalloc(&remote64, 64 << 20));
  PROBE_CHECK(cudaSetDevice(0));
  PROBE_CHECK(cudaDeviceEnablePeerAccess(1, 0));
  PROBE_CHECK(cudaMalloc(&src, 64 << 20));
  PROBE_CHECK(cudaMemset(src, 1, 64 << 20));
  PROBE_CHECK(cudaMalloc(&sink, 4));
  printf("%-30s", "bytes:");
  for (size_t s : kProbeSizes) printf(" %10zu", s);
  printf("   (GB/s, 4 B elements for st/ld, 8 B for atomics)\n");
  for (int v = 0; v < 13; ++v) {
    printf("%-30s", names[v]);
    for (size_t s : kProbeSizes) {
      const size_t n = s / (v >= 7 ? 8 : 4);
      printf(" %10.1f", best_gbps([&](int steps) { ks[v]<<<128, 1024>>>(remote, remote64, src, n, steps, sink); }, s));
    }
    printf("\n");
  }
  return 0;
}
