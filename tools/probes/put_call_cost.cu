// SPDX-License-Identifier: BSD-3-Clause
// Issue 25's two open figures, taken apart: what does a thread's putmem + quiet, and a block's putmem_nbi of
// a few KiB, cost inside the library's call against the same copy without its checks? One PE putting to
// itself (its own heap through the mapped path), so it runs on one GPU: `nvshmrun -n 1`.
//
// Latency (one thread, us per put + quiet, median of 7 runs of 2000): L0 the library's calls; L1 the head's
// copy (copy_bytes_rma) and the quiet's fence without the remote check; L2 8c5c014's copy (copy_bytes) and
// the fence; L3 the library's check with the source's first word loaded before it (8 bytes only; the
// candidate of session 23); L4 a loop of 8-byte words and the fence (a floor); L5 L1 behind the remote check,
// with a trap for its remote branch instead of the proxy's inline code (does that code cost the loop?); L6 the
// library's put and the fence instead of its quiet; L7 L3 with the source loaded after the check (an aligned
// 8-byte put as one access, other sizes through copy_bytes_rma): is it the load's order or the copy's setup?
// L8 the 16-byte copy with 8 words in flight, not 4; L9 with 4 (both from 64 B; L1 below), each load asking the L2 for
// 256 bytes (a lone thread's 4-32 KiB put: more in flight without more registers?); L10 the library's structure (its
// remote branch inline) with a local path of the 16-byte copy alone (no alignment test, 8 B as one word: a floor);
// L11 the same with the local path's tests in another order: 16-byte words first, then the aligned 8 bytes. Bandwidth
// (128 blocks x 1024 threads, a slice per block, GB/s, median of 7 runs of 50 steps): B0 the library's
// nvshmemx_putmem_nbi_block; B1 copy_bytes_rma<block> and a block sync; B2 8c5c014's copy_bytes<block> and a block
// sync; B3 B1 after the remote check; B4 B1 to a destination translated once, before the loop (the per-call state loads
// left out). Built against an older tree's headers (no nvshmem_detail/device/proxy.cuh, e.g. .baseline), only L0, L2,
// L4, B0, B2 and B4 exist. Build and run from the repository root (GPU machine):
//   nvcc -O3 -arch=sm_90 -std=c++17 -Iinclude -Ibuild-gpu/include tools/probes/put_call_cost.cu -o /tmp/pcc \
//     -Lbuild-gpu/lib -lnvshmem_host -lcuda -Xlinker -rpath,$PWD/build-gpu/lib && build-gpu/bin/nvshmrun -n 1 /tmp/pcc
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <cstdlib>

#include "probe.cuh"

#if __has_include("nvshmem_detail/device/proxy.cuh")
#define PCC_HEAD 1  // the tree has the remote check and copy_bytes_rma
#else
#define PCC_HEAD 0
#endif

namespace {
using nvshm_dev::Scope;

constexpr int kBlocks = 128, kThreads = 1024;

// A 16-byte load that asks the L2 to fetch the 256 bytes around it (PTX .L2::256B): more of a lone
// thread's bulk copy in flight without more registers?
__device__ __forceinline__ int4 load_l2_256(const int4 *p) {
  int4 v;
  asm volatile("ld.global.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

template <int V>
__global__ void latency(char *dest, const char *src, size_t n, int steps, int pe) {
  for (int i = 0; i < steps; ++i) {
    if constexpr (V == 0) {
      nvshmem_putmem(dest, src, n, pe);
      nvshmem_quiet();
    } else if constexpr (V == 2) {
      nvshm_dev::copy_bytes<Scope::thread>(nvshm_dev::peer_address(dest, pe), src, n);
      nvshm_dev::fence_sc_sys();
    } else if constexpr (V == 4) {
      uint64_t *d = nvshm_dev::peer_address(reinterpret_cast<uint64_t *>(dest), pe);
      const uint64_t *s = reinterpret_cast<const uint64_t *>(src);
      for (size_t w = 0; w < n / 8; ++w) d[w] = s[w];
      nvshm_dev::fence_sc_sys();
    }
#if PCC_HEAD
    else if constexpr (V == 1) {
      nvshm_dev::copy_bytes_rma<Scope::thread>(nvshm_dev::peer_address(dest, pe), src, n);
      nvshm_dev::fence_sc_sys();
    } else if constexpr (V == 3) {
      const uint64_t first = *reinterpret_cast<const uint64_t *>(src);  // issued before the check
      if (nvshm_dev::remote_pe(pe))
        nvshmem_putmem(dest, src, n, pe);
      else if (n == 8)
        *nvshm_dev::peer_address(reinterpret_cast<uint64_t *>(dest), pe) = first;
      else
        nvshm_dev::copy_bytes_rma<Scope::thread>(nvshm_dev::peer_address(dest, pe), src, n);
      nvshmem_quiet();
    } else if constexpr (V == 5) {
      if (nvshm_dev::remote_pe(pe)) __trap();
      nvshm_dev::copy_bytes_rma<Scope::thread>(nvshm_dev::peer_address(dest, pe), src, n);
      nvshm_dev::fence_sc_sys();
    } else if constexpr (V == 6) {
      nvshmem_putmem(dest, src, n, pe);
      nvshm_dev::fence_sc_sys();
    } else if constexpr (V == 7) {
      if (nvshm_dev::remote_pe(pe)) {
        nvshmem_putmem(dest, src, n, pe);
      } else {
        char *to = nvshm_dev::peer_address(dest, pe);
        if (((reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(src)) & 7 | (n ^ 8)) == 0)
          *reinterpret_cast<uint64_t *>(to) = *reinterpret_cast<const uint64_t *>(src);
        else
          nvshm_dev::copy_bytes_rma<Scope::thread>(to, src, n);
      }
      nvshmem_quiet();
    } else if constexpr (V == 8) {
      if (n < 64)
        nvshm_dev::copy_bytes_rma<Scope::thread>(nvshm_dev::peer_address(dest, pe), src, n);
      else
        nvshm_dev::copy_words<Scope::thread, int4, 8>(nvshm_dev::peer_address(reinterpret_cast<int4 *>(dest), pe),
                                                      reinterpret_cast<const int4 *>(src), n / 16);
      nvshm_dev::fence_sc_sys();
    } else if constexpr (V == 9) {
      int4 *d = nvshm_dev::peer_address(reinterpret_cast<int4 *>(dest), pe);
      const int4 *s = reinterpret_cast<const int4 *>(src);
#pragma unroll 1
      for (size_t w = 0; w + 4 <= n / 16; w += 4) {
        int4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = load_l2_256(s + w + u);
#pragma unroll
        for (int u = 0; u < 4; ++u) d[w + u] = v[u];
      }
      if (n < 64) nvshm_dev::copy_bytes_rma<Scope::thread>(nvshm_dev::peer_address(dest, pe), src, n);
      nvshm_dev::fence_sc_sys();
    } else if constexpr (V == 10) {
      if (nvshm_dev::remote_pe(pe)) {
        nvshmem_putmem(dest, src, n, pe);
      } else if (n < 16) {
        *nvshm_dev::peer_address(reinterpret_cast<uint64_t *>(dest), pe) = *reinterpret_cast<const uint64_t *>(src);
      } else {
        nvshm_dev::copy_words<Scope::thread, int4, 4>(nvshm_dev::peer_address(reinterpret_cast<int4 *>(dest), pe),
                                                      reinterpret_cast<const int4 *>(src), n / 16);
      }
      nvshm_dev::fence_sc_sys();
    } else if constexpr (V == 11) {
      if (nvshm_dev::remote_pe(pe)) {
        nvshmem_putmem(dest, src, n, pe);
      } else {
        char *to = nvshm_dev::peer_address(dest, pe);
        const uintptr_t bits = reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(src) | n;
        if ((bits & 15) == 0)
          nvshm_dev::copy_words<Scope::thread, int4, 4>(reinterpret_cast<int4 *>(to),
                                                        reinterpret_cast<const int4 *>(src), n / 16);
        else if ((((reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(src)) & 7) | (n ^ 8)) == 0)
          *reinterpret_cast<uint64_t *>(to) = *reinterpret_cast<const uint64_t *>(src);
        else
          nvshm_dev::copy_bytes<Scope::thread>(to, src, n);
      }
      nvshm_dev::fence_sc_sys();
    }
#endif
  }
}

template <int V>
__global__ void bandwidth(char *dest, const char *src, size_t slice, int steps, int pe) {
  const size_t off = blockIdx.x * slice;
  char *hoisted = nvshm_dev::peer_address(dest + off, pe);
  for (int i = 0; i < steps; ++i) {
    if constexpr (V == 0) {
      nvshmemx_putmem_nbi_block(dest + off, src + off, slice, pe);
    } else if constexpr (V == 2) {
      nvshm_dev::copy_bytes<Scope::block>(nvshm_dev::peer_address(dest + off, pe), src + off, slice);
      __syncthreads();
    }
#if PCC_HEAD
    else if constexpr (V == 1) {
      nvshm_dev::copy_bytes_rma<Scope::block>(nvshm_dev::peer_address(dest + off, pe), src + off, slice);
      __syncthreads();
    } else if constexpr (V == 3) {
      if (nvshm_dev::remote_pe(pe)) __trap();
      nvshm_dev::copy_bytes_rma<Scope::block>(nvshm_dev::peer_address(dest + off, pe), src + off, slice);
      __syncthreads();
    } else if constexpr (V == 4) {
      nvshm_dev::copy_bytes_rma<Scope::block>(hoisted, src + off, slice);
      __syncthreads();
    }
#else
    else if constexpr (V == 4) {
      nvshm_dev::copy_bytes<Scope::block>(hoisted, src + off, slice);
      __syncthreads();
    }
#endif
  }
}

// Every byte of `dest` equals `src` after a variant ran (the destination is poisoned before each variant).
void check_copy(const char *dest, const char *src, size_t n, const char *what) {
  char *h_dest = static_cast<char *>(malloc(n)), *h_src = static_cast<char *>(malloc(n));
  PROBE_CHECK(cudaMemcpy(h_dest, dest, n, cudaMemcpyDeviceToHost));
  PROBE_CHECK(cudaMemcpy(h_src, src, n, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i)
    if (h_dest[i] != h_src[i]) {
      printf("%s: byte %zu is %d, not %d\n", what, i, h_dest[i], h_src[i]);
      exit(1);
    }
  free(h_dest);
  free(h_src);
}

template <int V>
void latency_row(char *dest, const char *src, int pe) {
  printf("L%d", V);
  for (size_t n : {size_t{8}, size_t{64}, size_t{512}, size_t{4096}, size_t{32768}}) {
    PROBE_CHECK(cudaMemset(dest, 0xA5, n));
    const Rates r = gbps_runs([&](int steps) { latency<V><<<1, 1>>>(dest, src, n, steps, pe); }, 1, 2000, 20);
    check_copy(dest, src, n, "latency");
    printf(" %10.3f", 1e-3 / r.median);  // one byte a step: 1e-9 s / (GB/s) is us * 1e-3
  }
  printf("\n");
}

template <int V>
void bandwidth_row(char *dest, const char *src, int pe) {
  printf("B%d", V);
  for (size_t slice : {size_t{2} << 10, size_t{4} << 10, size_t{8} << 10, size_t{16} << 10}) {
    PROBE_CHECK(cudaMemset(dest, 0xA5, slice * kBlocks));
    const Rates r = gbps_runs([&](int steps) { bandwidth<V><<<kBlocks, kThreads>>>(dest, src, slice, steps, pe); },
                              slice * kBlocks);
    check_copy(dest, src, slice * kBlocks, "bandwidth");
    printf(" %10.1f", r.median);
  }
  printf("\n");
}

__global__ void fill(char *p, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = static_cast<char>(i * 7 + 3);
}
}  // namespace

int main() {
  nvshmem_init();
  const int pe = nvshmem_my_pe();
  const size_t bytes = size_t{16} << 10 << 7;  // 128 slices of 16 KiB
  char *src = static_cast<char *>(nvshmem_malloc(bytes)), *dest = static_cast<char *>(nvshmem_malloc(bytes));
  if (!src || !dest) {
    printf("nvshmem_malloc of 2 x %zu bytes failed\n", bytes);
    return 1;
  }
  fill<<<64, 256>>>(src, bytes);
  PROBE_CHECK(cudaGetLastError());
  PROBE_CHECK(cudaDeviceSynchronize());
  printf(
      "put_call_cost (%s tree): latency, us per put + quiet\nvar        8 B       64 B      512 B      4 KiB     32 "
      "KiB\n",
      PCC_HEAD ? "head" : "older");
  latency_row<0>(dest, src, pe);
  latency_row<2>(dest, src, pe);
  latency_row<4>(dest, src, pe);
#if PCC_HEAD
  latency_row<1>(dest, src, pe);
  latency_row<3>(dest, src, pe);
  latency_row<5>(dest, src, pe);
  latency_row<6>(dest, src, pe);
  latency_row<7>(dest, src, pe);
  latency_row<8>(dest, src, pe);
  latency_row<9>(dest, src, pe);
  latency_row<10>(dest, src, pe);
  latency_row<11>(dest, src, pe);
#endif
  printf("bandwidth, GB/s, %d x %d threads, a slice per block\nvar     2 KiB      4 KiB      8 KiB     16 KiB\n",
         kBlocks, kThreads);
  bandwidth_row<0>(dest, src, pe);
  bandwidth_row<2>(dest, src, pe);
  bandwidth_row<4>(dest, src, pe);
#if PCC_HEAD
  bandwidth_row<1>(dest, src, pe);
  bandwidth_row<3>(dest, src, pe);
#endif
  nvshmem_free(dest);
  nvshmem_free(src);
  nvshmem_finalize();
  return 0;
}
