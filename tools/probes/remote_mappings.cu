// Probe: remote store / atomic throughput from GPU 0 into GPU 1 memory, by how that memory is mapped:
// cudaMalloc + peer access, or VMM (cuMemCreate, FD export + import, cuMemMap, access for GPU 0 only)
// as one allocation or as 2 MiB chunks.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
#define CK(x)                                                          \
  do {                                                                 \
    cudaError_t e = (x);                                               \
    if (e != cudaSuccess) {                                            \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                         \
    }                                                                  \
  } while (0)
#define CU(x)                                      \
  do {                                             \
    CUresult e = (x);                              \
    if (e != CUDA_SUCCESS) {                       \
      const char *s;                               \
      cuGetErrorString(e, &s);                     \
      printf("%s:%d %s\n", __FILE__, __LINE__, s); \
      exit(1);                                     \
    }                                              \
  } while (0)
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
char *vmm(size_t bytes, size_t chunk, size_t gran_kind) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 1;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t g;
  CU(cuMemGetAllocationGranularity(
      &g, &prop, gran_kind ? CU_MEM_ALLOC_GRANULARITY_RECOMMENDED : CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  if (chunk == 0) chunk = bytes;
  CUdeviceptr va;
  CU(cuMemAddressReserve(&va, bytes, g, 0, 0));
  for (size_t off = 0; off < bytes; off += chunk) {
    CUmemGenericAllocationHandle h, h2;
    CU(cuMemCreate(&h, chunk, &prop, 0));
    int fd;
    CU(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CU(cuMemImportFromShareableHandle(&h2, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CU(cuMemMap(va + off, chunk, 0, h2, 0));
  }
  CUmemAccessDesc a{};
  a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  a.location.id = 0;
  a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(va, bytes, &a, 1));
  printf("  (granularity %zu)\n", g);
  return (char *)va;
}
int main() {
  CK(cudaSetDevice(1));
  char *plain;
  CK(cudaMalloc(&plain, 256 << 20));
  CK(cudaSetDevice(0));
  CK(cudaDeviceEnablePeerAccess(1, 0));
  uint32_t *src;
  CK(cudaMalloc(&src, 64 << 20));
  CK(cudaMemset(src, 1, 64 << 20));
  struct M {
    const char *name;
    char *p;
  };
  std::vector<M> ms = {{"cudaMalloc + peer access", plain}};
  ms.push_back({"VMM one 256 MiB allocation, min gran", vmm(256 << 20, 0, 0)});
  ms.push_back({"VMM one 256 MiB allocation, rec gran", vmm(256 << 20, 0, 1)});
  ms.push_back({"VMM 2 MiB chunks", vmm(256 << 20, 2 << 20, 0)});
  M off = ms[1];
  off.name = "VMM one allocation, +100 MiB + 4 KiB";
  off.p += (100 << 20) + 4096;
  ms.push_back(off);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const size_t sizes[] = {64 << 10, 256 << 10, 1 << 20, 4 << 20};
  for (int v = 0; v < 2; ++v) {
    printf("%s (GB/s)\n%-40s", v == 0 ? "st.relaxed.sys.b32 (p)" : "red.relaxed.sys.add.u64 (atomic_add)", "bytes:");
    for (size_t s : sizes) printf(" %9zu", s);
    printf("\n");
    for (auto &m : ms) {
      printf("%-40s", m.name);
      for (size_t s : sizes) {
        const size_t n = s / (v ? 8 : 4);
        const int iters = 50;
        auto launch = [&](int it) {
          if (v == 0)
            k<0><<<128, 1024>>>(m.p, src, n, it);
          else
            k<1><<<128, 1024>>>(m.p, src, n, it);
        };
        launch(5);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        float best = 1e30f;
        for (int r = 0; r < 7; ++r) {
          CK(cudaEventRecord(a));
          launch(iters);
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          CK(cudaGetLastError());
          float ms_;
          CK(cudaEventElapsedTime(&ms_, a, b));
          if (ms_ < best) best = ms_;
        }
        printf(" %9.1f", (double)s * iters / (best * 1e-3) / 1e9);
      }
      printf("\n");
    }
  }
  return 0;
}
