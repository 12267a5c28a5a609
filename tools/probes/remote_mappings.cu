// SPDX-License-Identifier: BSD-3-Clause
// Probe: remote store / atomic throughput from GPU 0 into GPU 1 memory, by how that memory is mapped:
// cudaMalloc + peer access, or VMM (cuMemCreate, FD export + import, cuMemMap, access for GPU 0 only)
// as one allocation or several, with or without GPUDirect RDMA, and laid out as this project's heap
// and NVIDIA's. GB/s, best and median of 7 launches (best/median).
#include "probe.cuh"

#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
template <int V>
__global__ void k(char *dst, const uint32_t *src, size_t n, int iters) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int it = 0; it < iters; ++it)
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
      if (V == 0)
        asm volatile("st.relaxed.sys.global.b32 [%0], %1;" ::"l"((uint32_t *)dst + j), "r"(src[j]) : "memory");
      if (V == 1)
        asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"((uint64_t *)dst + j), "l"(1ull) : "memory");
    }
  asm volatile("fence.sc.sys;" ::: "memory");
}
// GPU 1's memory as VMM (FD export and import, as a symmetric heap): `bytes` in cuMemCreate
// allocations of `chunk` bytes each (0: one allocation), with gpuDirectRDMACapable set or not. One
// cuMemMap per allocation: a map of part of an allocation (nonzero offset) fails with
// CUDA_ERROR_NOT_SUPPORTED on H200 with CUDA 13.0 (session 12).
char *vmm(size_t bytes, size_t chunk, bool gdr = false) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 1;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.allocFlags.gpuDirectRDMACapable = gdr ? 1 : 0;
  size_t g;
  PROBE_CU(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  if (chunk == 0) chunk = bytes;
  CUdeviceptr va;
  PROBE_CU(cuMemAddressReserve(&va, bytes, g, 0, 0));
  for (size_t off = 0; off < bytes; off += chunk) {
    CUmemGenericAllocationHandle h, h2;
    PROBE_CU(cuMemCreate(&h, chunk, &prop, 0));
    int fd;
    PROBE_CU(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    PROBE_CU(cuMemImportFromShareableHandle(&h2, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    PROBE_CU(cuMemMap(va + off, chunk, 0, h2, 0));
  }
  CUmemAccessDesc a{};
  a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  a.location.id = 0;
  a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  PROBE_CU(cuMemSetAccess(va, bytes, &a, 1));
  return (char *)va;
}
int main() {
  PROBE_CHECK(cudaSetDevice(1));
  char *plain;
  PROBE_CHECK(cudaMalloc(&plain, 256 << 20));
  PROBE_CHECK(cudaSetDevice(0));
  PROBE_CHECK(cudaDeviceEnablePeerAccess(1, 0));
  uint32_t *src;
  PROBE_CHECK(cudaMalloc(&src, 64 << 20));
  PROBE_CHECK(cudaMemset(src, 1, 64 << 20));
  struct M {
    const char *name;
    char *p;
  };
  std::vector<M> ms = {{"cudaMalloc + peer access", plain}};
  ms.push_back({"VMM one 256 MiB allocation", vmm(256 << 20, 0)});
  ms.push_back({"VMM one 256 MiB allocation, GPUDirect", vmm(256 << 20, 0, true)});
  ms.push_back({"VMM 2 MiB allocations", vmm(256 << 20, 2 << 20)});
  // The two heaps as tools/probes/heap_layout.cu finds them (1 GiB NVSHMEM_SYMMETRIC_SIZE), at the
  // offset of their first nvshmem_malloc block: ours one 1298 MiB allocation, blocks from 272 MiB;
  // NVIDIA's 512 MiB allocations with GPUDirect RDMA set, blocks from 124 MiB.
  ms.push_back({"VMM 1298 MiB allocation, +272 MiB", vmm(size_t{1298} << 20, 0) + (size_t{272} << 20)});
  ms.push_back({"VMM 512 MiB allocations, GPUDirect, +124 MiB",
                vmm(size_t{1} << 30, size_t{512} << 20, true) + (size_t{124} << 20)});
  M off = ms[1];
  off.name = "VMM one allocation, +100 MiB + 4 KiB";
  off.p += (100 << 20) + 4096;
  ms.push_back(off);
  for (int v = 0; v < 2; ++v) {
    printf("%s (GB/s)\n%-46s", v == 0 ? "st.relaxed.sys.b32 (p)" : "red.relaxed.sys.add.u64 (atomic_add)", "bytes:");
    for (size_t s : kProbeSizes) printf(" %11zu", s);
    printf("\n");
    for (auto &m : ms) {
      printf("%-46s", m.name);
      for (size_t s : kProbeSizes) {
        const size_t n = s / (v ? 8 : 4);
        const Rates r = gbps_runs(
            [&](int steps) {
              if (v == 0)
                k<0><<<128, 1024>>>(m.p, src, n, steps);
              else
                k<1><<<128, 1024>>>(m.p, src, n, steps);
            },
            s);
        printf(" %5.1f/%5.1f", r.best, r.median);
      }
      printf("\n");
    }
  }
  return 0;
}
