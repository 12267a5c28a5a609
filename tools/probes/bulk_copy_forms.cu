// SPDX-License-Identifier: BSD-3-Clause
// Probe: how fast can GPU 0 copy a large buffer into GPU 1's memory over NVLink, and which way of
// copying gets closest to the peak: SM stores of 16-byte vectors (one contiguous slice per block, as
// the on-stream collectives copy, with 2, 4 or 8 vectors in flight per thread; or grid-stride over
// the whole buffer) or the copy engine (cudaMemcpyAsync between peers)? At large sizes our
// broadcast_on_stream moves about 354 GB/s and NVIDIA's about 366 (the slope from 64 to 256 MiB;
// docs/history/benchmarks.md, session 6). A second part asks whether cache hints on the loads or the
// stores (read-only path, streaming, L2 only) move shmem_put_bw's plateau (128 x 1024, 4 in flight:
// ours 358-360 GB/s at 4-16 MiB, NVIDIA's 363-367). GB/s, best and median of 7 runs of 50 copies.
// Build and run: tools/probes/README.md.
#include "probe.cuh"

#include <cstdint>
#include <cstdio>

enum class Hint { plain, ldg, ldcs, stcs, stcg, ldg_stcs };
const char *kHintNames[] = {"plain",         "__ldg loads",   "__ldcs loads",
                            "__stcs stores", "__stcg stores", "__ldg loads, __stcs stores"};

template <Hint H>
__device__ __forceinline__ int4 load_hinted(const int4 *p) {
  if constexpr (H == Hint::ldg || H == Hint::ldg_stcs) return __ldg(p);
  if constexpr (H == Hint::ldcs) return __ldcs(p);
  return *p;
}
template <Hint H>
__device__ __forceinline__ void store_hinted(int4 *p, int4 v) {
  if constexpr (H == Hint::stcs || H == Hint::ldg_stcs)
    __stcs(p, v);
  else if constexpr (H == Hint::stcg)
    __stcg(p, v);
  else
    *p = v;
}

// Block b copies its contiguous slice of n vectors; each thread keeps U vectors in flight; H the cache
// hint on its loads or stores.
template <int U, Hint H = Hint::plain>
__global__ void slice_copy(int4 *dst, const int4 *src, size_t n, int steps) {
  const size_t per = (n + gridDim.x - 1) / gridDim.x, begin = blockIdx.x * per, end = begin + per < n ? begin + per : n;
  for (int s = 0; s < steps; ++s) {
    size_t i = begin + threadIdx.x;
    for (; i + (U - 1) * blockDim.x < end; i += U * blockDim.x) {
      int4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = load_hinted<H>(src + i + u * blockDim.x);
#pragma unroll
      for (int u = 0; u < U; ++u) store_hinted<H>(dst + i + u * blockDim.x, v[u]);
    }
    for (; i < end; i += blockDim.x) store_hinted<H>(dst + i, load_hinted<H>(src + i));
  }
}

// Every thread of the grid strides over the whole buffer, 4 vectors in flight.
__global__ void grid_copy(int4 *dst, const int4 *src, size_t n, int steps) {
  const size_t g = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + 3 * g < n; i += 4 * g) {
      const int4 a = src[i], b = src[i + g], c = src[i + 2 * g], d = src[i + 3 * g];
      dst[i] = a;
      dst[i + g] = b;
      dst[i + 2 * g] = c;
      dst[i + 3 * g] = d;
    }
    for (; i < n; i += g) dst[i] = src[i];
  }
}

int main() {
  constexpr size_t kMost = size_t{256} << 20;
  const size_t sizes[] = {size_t{4} << 20, size_t{16} << 20, size_t{64} << 20, kMost};
  int4 *remote, *src;
  PROBE_CHECK(cudaSetDevice(1));
  PROBE_CHECK(cudaMalloc(&remote, kMost));
  PROBE_CHECK(cudaSetDevice(0));
  PROBE_CHECK(cudaDeviceEnablePeerAccess(1, 0));
  PROBE_CHECK(cudaMalloc(&src, kMost));
  PROBE_CHECK(cudaMemset(src, 1, kMost));
  int sms = 0;
  PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("%-44s", "bytes (GB/s best/median of 7):");
  for (size_t s : sizes) printf(" %15zu", s);
  printf("\n");
  auto row = [&](const char *name, auto launch) {
    printf("%-44s", name);
    for (size_t s : sizes) {
      const Rates r = gbps_runs([&](int steps) { launch(s, steps); }, s);
      printf(" %7.1f/%7.1f", r.best, r.median);
    }
    printf("\n");
  };
  for (int blocks : {128, sms, 2 * sms}) {
    char name[64];
    snprintf(name, sizeof name, "slice, %d x 512, 2 in flight", blocks);
    row(name, [&](size_t s, int steps) { slice_copy<2><<<blocks, 512>>>(remote, src, s / 16, steps); });
    snprintf(name, sizeof name, "slice, %d x 512, 4 in flight", blocks);
    row(name, [&](size_t s, int steps) { slice_copy<4><<<blocks, 512>>>(remote, src, s / 16, steps); });
    snprintf(name, sizeof name, "slice, %d x 512, 8 in flight", blocks);
    row(name, [&](size_t s, int steps) { slice_copy<8><<<blocks, 512>>>(remote, src, s / 16, steps); });
    snprintf(name, sizeof name, "grid-stride, %d x 512, 4 in flight", blocks);
    row(name, [&](size_t s, int steps) { grid_copy<<<blocks, 512>>>(remote, src, s / 16, steps); });
  }
  row("slice, 128 x 1024, 4 in flight",
      [&](size_t s, int steps) { slice_copy<4><<<128, 1024>>>(remote, src, s / 16, steps); });
  row("copy engine (cudaMemcpyAsync, peer)", [&](size_t s, int steps) {
    for (int i = 0; i < steps; ++i) PROBE_CHECK(cudaMemcpyAsync(remote, src, s, cudaMemcpyDeviceToDevice));
  });
  const auto hinted = [&](Hint h, auto kernel) {
    char name[64];
    snprintf(name, sizeof name, "128 x 1024, 4 in flight, %s", kHintNames[static_cast<int>(h)]);
    row(name, [&](size_t s, int steps) { kernel<<<128, 1024>>>(remote, src, s / 16, steps); });
  };
  hinted(Hint::ldg, slice_copy<4, Hint::ldg>);
  hinted(Hint::ldcs, slice_copy<4, Hint::ldcs>);
  hinted(Hint::stcs, slice_copy<4, Hint::stcs>);
  hinted(Hint::stcg, slice_copy<4, Hint::stcg>);
  hinted(Hint::ldg_stcs, slice_copy<4, Hint::ldg_stcs>);
  return 0;
}
