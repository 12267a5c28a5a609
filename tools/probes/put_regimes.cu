// SPDX-License-Identifier: BSD-3-Clause
// Probe: where shmem_put_bw leaves the regime in which repeated puts beat the link. With -n 1000 puts
// of one message per launch, both libraries report more than NVLink carries up to 256 KiB (ours 1223
// GB/s, NVIDIA's 664: stores to lines already on their way are absorbed before the link), and NVIDIA's
// stays there at 512 KiB (511 GB/s) while ours drops to the link (369; docs/history/benchmarks.md, session 8).
// Answer (session 10): a block sync after each put keeps 512 KiB there (505 GB/s); the library's
// block puts end with one since ddd3ba1, and the "library" row measures that form.
// PE 0 puts `size` bytes into PE 1 as shmem_put_bw does (128 blocks x 1024 threads, block b one slice
// of size/128 bytes, 1000 puts per launch, quiet at the end), in several forms; GB/s, median of 7
// launches:
//   library:      nvshmemx_putmem_nbi_block per put (its block sync included)
//   no sync:      16-byte weak stores on the nvshmem_ptr address, no block sync between puts
//   sync:         the same with __syncthreads before and after each put (the block form's syncs)
//   streaming:    as "no sync" with st.global.cs stores
//   strong:       as "no sync" with st.relaxed.sys stores (two 8-byte words per 16 bytes)
//   4 in flight:  as "no sync", each thread loading 4 vectors before it stores them
// Build and run: tools/probes/README.md.
#include "probe.cuh"
#include "probe_pes.cuh"

#include <nvshmem.h>
#include <nvshmemx.h>
#include <cstdint>
#include <cstdio>

enum Form { kLibrary, kNoSync, kSync, kStreaming, kStrong, kFourInFlight, kForms };
const char *kNames[] = {"nvshmemx_putmem_nbi_block", "16 B stores, no block sync", "16 B stores, sync per put",
                        "16 B st.global.cs",         "8 B st.relaxed.sys",         "16 B stores, 4 in flight"};

__device__ __forceinline__ int4 load16(const int4 *p) {
  int4 v;
  asm volatile("ld.global.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

// The stores are asm volatile, so the compiler keeps every one of the repeated puts.
template <Form F>
__device__ __forceinline__ void store16(int4 *p, int4 v) {
  if constexpr (F == kStreaming)
    asm volatile("st.global.cs.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  else if constexpr (F == kStrong)
    asm volatile(
        "st.relaxed.sys.global.v2.b32 [%0], {%1, %2};\n\t"
        "st.relaxed.sys.global.v2.b32 [%0+8], {%3, %4};" ::"l"(p),
        "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
        : "memory");
  else
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

template <Form F>
__global__ void puts(char *dest, char *peer_dest, const char *source, size_t size, size_t slice, int iters) {
  const size_t begin = static_cast<size_t>(blockIdx.x) * slice;
  if (begin >= size) return;
  const size_t bytes = min(size - begin, slice);
  const size_t n = bytes / 16;
  const int4 *s = reinterpret_cast<const int4 *>(source + begin);
  int4 *d = reinterpret_cast<int4 *>(peer_dest + begin);
  for (int it = 0; it < iters; ++it) {
    if constexpr (F == kLibrary) {
      nvshmemx_putmem_nbi_block(dest + begin, source + begin, bytes, 1);
    } else if constexpr (F == kFourInFlight) {
      size_t v = threadIdx.x;
      for (; v + 3 * blockDim.x < n; v += 4 * blockDim.x) {
        int4 x[4];
        for (int u = 0; u < 4; ++u) x[u] = load16(s + v + u * blockDim.x);
        for (int u = 0; u < 4; ++u) store16<F>(d + v + u * blockDim.x, x[u]);
      }
      for (; v < n; v += blockDim.x) store16<F>(d + v, load16(s + v));
    } else {
      if constexpr (F == kSync) __syncthreads();
      for (size_t v = threadIdx.x; v < n; v += blockDim.x) store16<F>(d + v, load16(s + v));
      if constexpr (F == kSync) __syncthreads();
    }
  }
  nvshmem_quiet();
}

using Kernel = void (*)(char *, char *, const char *, size_t, size_t, int);

int main() {
  const int me = probe_start_two_pes();
  constexpr size_t kSizes[] = {size_t{128} << 10, size_t{256} << 10, size_t{384} << 10,
                               size_t{512} << 10, size_t{768} << 10, size_t{1} << 20,
                               size_t{2} << 20,   size_t{4} << 20,   size_t{8} << 20};
  constexpr size_t kMost = size_t{8} << 20;
  constexpr int kBlocks = 128, kThreads = 1024, kIters = 1000;
  char *source = static_cast<char *>(nvshmem_malloc(kMost));
  char *dest = static_cast<char *>(nvshmem_malloc(kMost));
  if (!source || !dest) {
    printf("nvshmem_malloc failed\n");
    return 1;
  }
  PROBE_CHECK(cudaMemset(source, 0x5a, kMost));
  char *peer_dest = static_cast<char *>(nvshmem_ptr(dest, 1));
  if (me == 0 && !peer_dest) {
    printf("nvshmem_ptr gave no address for PE 1\n");
    return 1;
  }
  const Kernel kernels[] = {puts<kLibrary>,   puts<kNoSync>, puts<kSync>,
                            puts<kStreaming>, puts<kStrong>, puts<kFourInFlight>};
  if (me == 0) {
    printf("%-30s", "GB/s, median of 7; bytes:");
    for (size_t s : kSizes) printf(" %8zu", s);
    printf("\n");
  }
  for (int f = 0; f < kForms; ++f) {
    if (me == 0) printf("%-30s", kNames[f]);
    for (size_t size : kSizes) {
      const size_t slice = ((size + kBlocks - 1) / kBlocks + 15) / 16 * 16;
      nvshmem_barrier_all();
      if (me != 0) continue;
      const Rates r =
          gbps_runs([&](int steps) { kernels[f]<<<kBlocks, kThreads>>>(dest, peer_dest, source, size, slice, steps); },
                    size, kIters, 100);
      printf(" %8.1f", r.median);
    }
    if (me == 0) printf("\n");
  }
  nvshmem_barrier_all();
  nvshmem_free(dest);
  nvshmem_free(source);
  nvshmem_finalize();
  return 0;
}
