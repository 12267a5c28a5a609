// SPDX-License-Identifier: BSD-3-Clause
// Probe: how a library lays out its symmetric heap in CUDA memory, seen from outside. One PE
// (unique-id start, no launcher), so the same source builds against this project's library or
// NVIDIA's and runs on one GPU. For blocks from nvshmem_malloc of several sizes it prints the CUDA
// allocation (cuMemGetAddressRange: the cuMemMap mapping or cudaMalloc block) the block lies in,
// the block's offset in it, and the allocation's location, handle types and granularity.
#include "probe.cuh"

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdint>

namespace {
void describe(const char *what, void *p) {
  CUdeviceptr base = 0;
  size_t length = 0;
  PROBE_CU(cuMemGetAddressRange(&base, &length, reinterpret_cast<CUdeviceptr>(p)));
  printf("%-22s %p: allocation at %p, %zu bytes (%.1f MiB), block %zu bytes in", what, p,
         reinterpret_cast<void *>(base), length, length / 1048576.0,
         static_cast<size_t>(reinterpret_cast<CUdeviceptr>(p) - base));
  CUmemGenericAllocationHandle h;
  if (cuMemRetainAllocationHandle(&h, p) != CUDA_SUCCESS) {
    printf("; not VMM memory (cudaMalloc)\n");
    return;
  }
  CUmemAllocationProp prop{};
  PROBE_CU(cuMemGetAllocationPropertiesFromHandle(&prop, h));
  size_t min_g = 0, rec_g = 0;
  PROBE_CU(cuMemGetAllocationGranularity(&min_g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  PROBE_CU(cuMemGetAllocationGranularity(&rec_g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  printf("; VMM, location type %d id %d, handle types 0x%x, compression %d, gpuDirectRDMA %d, granularity %zu/%zu\n",
         static_cast<int>(prop.location.type), prop.location.id, static_cast<unsigned>(prop.requestedHandleTypes),
         static_cast<int>(prop.allocFlags.compressionType), static_cast<int>(prop.allocFlags.gpuDirectRDMACapable),
         min_g, rec_g);
  PROBE_CU(cuMemRelease(h));
}
}  // namespace

int main() {
  PROBE_CHECK(cudaSetDevice(0));  // NVIDIA's library takes the device that is current at init
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (nvshmemx_get_uniqueid(&id) != 0 || nvshmemx_set_attr_uniqueid_args(0, 1, &id, &attr) != 0 ||
      nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) {
    printf("unique-id init failed\n");
    return 1;
  }
  const size_t sizes[] = {size_t{4} << 10, size_t{1} << 20, size_t{4} << 20, size_t{64} << 20, size_t{300} << 20};
  for (size_t s : sizes) {
    void *p = nvshmem_malloc(s);
    if (!p) {
      printf("nvshmem_malloc(%zu) failed\n", s);
      return 1;
    }
    char what[40];
    snprintf(what, sizeof what, "nvshmem_malloc(%zu)", s);
    describe(what, p);
  }
  nvshmem_finalize();
  return 0;
}
