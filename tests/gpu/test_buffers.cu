// SPDX-License-Identifier: BSD-3-Clause
// User buffers on the GPU heap (issue 11), under nvshmrun -n 2 (or more): registered local buffers
// (cudaMalloc, cudaMallocHost, pageable malloc) as RMA sources and destinations from the host and
// from kernels; an application's cuMemCreate buffer made symmetric with
// nvshmemx_buffer_register_symmetric, used through its alias from the host and from kernels,
// unregistered and registered again; its errors; nvshmemx_mc_ptr on host and device; and the device
// forms of the version queries. (nvshmemx_culibrary_init is tested beside cumodule_init, test_module.cu.)
#include <cuda.h>
#include <nvshmemx.h>

#include <cstdlib>

#include "gpu_test.hpp"

namespace {
using gpu_test::kPoison;
using gpu_test::random_bytes;
using gpu_test::to_host;

// Put `bytes` from local `src` to `dst` on `peer`, and get the same bytes of `peer`'s `dst` into
// local `got`; one thread.
__global__ void put_get_kernel(char *dst, const char *src, char *got, size_t bytes, int peer) {
  nvshmem_putmem(dst, src, bytes, peer);
  nvshmem_getmem(got, dst, bytes, peer);  // after the put: the same data comes back
}

__global__ void block_put_kernel(char *dst, const char *src, size_t bytes, int peer) {
  nvshmemx_putmem_block(dst, src, bytes, peer);
}

// Local buffer `src` (any kind the device can read) -> right's symmetric dst, from the host (blocking
// and nbi) and from a kernel; right's dst -> local `got` from the host. Checks with real data.
void exercise_local_buffers(char *src, char *got, bool device_side, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr size_t kBytes = (1 << 16) + 40;
  char *dst = static_cast<char *>(nvshmem_malloc(3 * kBytes));
  ASSERT_NE(dst, nullptr);
  const auto mine = random_bytes(kBytes, me, salt);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), kBytes, cudaMemcpyDefault));
  CUDA_CHECK(cudaMemset(dst, kPoison, 3 * kBytes));
  gpu_test::barrier();

  nvshmem_putmem(dst, src, kBytes, right);
  nvshmem_putmem_nbi(dst + kBytes, src, kBytes, right);
  nvshmem_quiet();
  if (device_side) {
    block_put_kernel<<<1, 128>>>(dst + 2 * kBytes, src, kBytes, right);
    LAUNCH_CHECK();
  }
  gpu_test::barrier();
  const auto from_left = random_bytes(kBytes, left, salt);
  const auto got_puts = to_host(dst, 3 * kBytes);
  EXPECT_EQ(memcmp(got_puts.data(), from_left.data(), kBytes), 0) << "host put from the registered buffer";
  EXPECT_EQ(memcmp(got_puts.data() + kBytes, from_left.data(), kBytes), 0) << "host put_nbi";
  if (device_side) EXPECT_EQ(memcmp(got_puts.data() + 2 * kBytes, from_left.data(), kBytes), 0) << "device put";

  // Host get of right's dst (which holds my data) into the registered buffer.
  CUDA_CHECK(cudaMemset(got, kPoison, kBytes));
  CUDA_CHECK(cudaDeviceSynchronize());  // host RMA is not ordered after work on CUDA streams
  nvshmem_getmem(got, dst, kBytes, right);
  std::vector<unsigned char> back(kBytes);
  CUDA_CHECK(cudaMemcpy(back.data(), got, kBytes, cudaMemcpyDefault));
  EXPECT_EQ(memcmp(back.data(), mine.data(), kBytes), 0) << "host get into the registered buffer";
  if (device_side) {
    CUDA_CHECK(cudaMemset(got, kPoison, kBytes));
    put_get_kernel<<<1, 1>>>(dst, src, got, kBytes, right);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpy(back.data(), got, kBytes, cudaMemcpyDefault));
    EXPECT_EQ(memcmp(back.data(), mine.data(), kBytes), 0) << "device get into the registered buffer";
  }
  gpu_test::barrier();
  nvshmem_free(dst);
}

TEST(UserBuffer, CudaMallocBuffers) {
  char *src = nullptr, *got = nullptr;
  CUDA_CHECK(cudaMalloc(&src, 1 << 17));
  CUDA_CHECK(cudaMalloc(&got, 1 << 17));
  ASSERT_EQ(nvshmemx_buffer_register(src, 1 << 17), 0);
  ASSERT_EQ(nvshmemx_buffer_register(got, 1 << 17), 0);
  exercise_local_buffers(src, got, true, 1);
  EXPECT_EQ(nvshmemx_buffer_unregister(src), 0);
  EXPECT_EQ(nvshmemx_buffer_unregister(got), 0);
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(got));
}

TEST(UserBuffer, PinnedHostBuffers) {
  char *src = nullptr, *got = nullptr;
  CUDA_CHECK(cudaMallocHost(&src, 1 << 17));
  CUDA_CHECK(cudaMallocHost(&got, 1 << 17));
  ASSERT_EQ(nvshmemx_buffer_register(src, 1 << 17), 0);
  ASSERT_EQ(nvshmemx_buffer_register(got, 1 << 17), 0);
  exercise_local_buffers(src, got, true, 2);
  EXPECT_EQ(nvshmemx_buffer_unregister_all(), 0);
  CUDA_CHECK(cudaFreeHost(src));
  CUDA_CHECK(cudaFreeHost(got));
}

// Registration page-locks pageable memory: afterwards CUDA knows it, and (where the device can use
// host pointers of registered memory) kernels read and write it; unregistering unpins it.
TEST(UserBuffer, PageableHostBuffersArePinnedWhileRegistered) {
  constexpr size_t kBytes = 1 << 17;
  char *src = static_cast<char *>(aligned_alloc(4096, kBytes));
  char *got = static_cast<char *>(aligned_alloc(4096, kBytes));
  ASSERT_TRUE(src && got);
  ASSERT_EQ(nvshmemx_buffer_register(src, kBytes), 0);
  ASSERT_EQ(nvshmemx_buffer_register(got, kBytes), 0);
  cudaPointerAttributes attr{};
  CUDA_CHECK(cudaPointerGetAttributes(&attr, src));
  EXPECT_EQ(attr.type, cudaMemoryTypeHost) << "registered pageable memory is page-locked";
  int device = 0, host_pointer = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&host_pointer, cudaDevAttrCanUseHostPointerForRegisteredMem, device));
  exercise_local_buffers(src, got, host_pointer != 0, 3);
  EXPECT_EQ(nvshmemx_buffer_unregister(src), 0);
  EXPECT_EQ(nvshmemx_buffer_unregister(got), 0);
  CUDA_CHECK(cudaPointerGetAttributes(&attr, src));
  EXPECT_EQ(attr.type, cudaMemoryTypeUnregistered) << "unregistering unpins";
  free(src);
  free(got);
}

// An application VMM buffer: cuMemCreate (+ the handle types asked for), reserve, map, access.
struct VmmBuffer {
  CUmemGenericAllocationHandle handle{};
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  bool ok = false;

  VmmBuffer(size_t min_bytes, CUmemAllocationHandleType types) {
    auto create = gpu_test::driver_function<decltype(&cuMemCreate)>("cuMemCreate");
    auto granularity =
        gpu_test::driver_function<decltype(&cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
    auto reserve = gpu_test::driver_function<decltype(&cuMemAddressReserve)>("cuMemAddressReserve");
    auto map = gpu_test::driver_function<decltype(&cuMemMap)>("cuMemMap");
    auto set_access = gpu_test::driver_function<decltype(&cuMemSetAccess)>("cuMemSetAccess");
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return;
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = types;
    size_t g = 0;
    if (granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS) return;
    bytes = (min_bytes + g - 1) / g * g;
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    ok = create(&handle, bytes, &prop, 0) == CUDA_SUCCESS && reserve(&ptr, bytes, g, 0, 0) == CUDA_SUCCESS &&
         map(ptr, bytes, 0, handle, 0) == CUDA_SUCCESS && set_access(ptr, bytes, &access, 1) == CUDA_SUCCESS;
  }
  ~VmmBuffer() {
    if (ptr) {
      gpu_test::driver_function<decltype(&cuMemUnmap)>("cuMemUnmap")(ptr, bytes);
      gpu_test::driver_function<decltype(&cuMemAddressFree)>("cuMemAddressFree")(ptr, bytes);
    }
    if (bytes) gpu_test::driver_function<decltype(&cuMemRelease)>("cuMemRelease")(handle);
  }
  char *get() const { return reinterpret_cast<char *>(ptr); }
};

__global__ void alias_kernel(char *alias, size_t half, int peer, char *got, void **peer_ptr) {
  nvshmemx_putmem_block(alias + half, alias, half, peer);  // my first half -> peer's second half
  nvshmemx_getmem_block(got, alias, half, peer);           // peer's first half -> got
  if (threadIdx.x == 0) *peer_ptr = nvshmem_ptr(alias, peer);
}

// Host and device RMA through the alias of a registered VMM buffer; the data lands in each PE's
// own allocation (read through the application's mapping).
void exercise_alias(const VmmBuffer &buf, char *alias, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t half = buf.bytes / 2;
  const auto mine = random_bytes(half, me, salt);
  CUDA_CHECK(cudaMemcpy(buf.get(), mine.data(), half, cudaMemcpyHostToDevice));  // the application's mapping
  CUDA_CHECK(cudaMemset(buf.get() + half, kPoison, half));
  gpu_test::barrier();
  EXPECT_EQ(nvshmem_ptr(alias, me), alias);
  EXPECT_NE(nvshmem_ptr(alias, right), nullptr);

  // Host: right's first half (its data) into my scratch via get, my first half into right's second half.
  std::vector<unsigned char> got(half);
  nvshmem_getmem(got.data(), alias, half, right);
  EXPECT_EQ(memcmp(got.data(), random_bytes(half, right, salt).data(), half), 0) << "host get through the alias";
  nvshmem_putmem(alias + half, alias, half, right);
  gpu_test::barrier();
  const auto from_left = random_bytes(half, left, salt);
  EXPECT_EQ(memcmp(to_host(buf.get() + half, half).data(), from_left.data(), half), 0) << "host put through the alias";

  // Device: the same through the alias inside a kernel.
  CUDA_CHECK(cudaMemset(buf.get() + half, kPoison, half));
  char *dev_got = nullptr;
  void **peer_ptr = nullptr;
  CUDA_CHECK(cudaMalloc(&dev_got, half));
  CUDA_CHECK(cudaMallocManaged(&peer_ptr, sizeof(void *)));
  gpu_test::barrier();
  alias_kernel<<<1, 256>>>(alias, half, right, dev_got, peer_ptr);
  LAUNCH_CHECK();
  gpu_test::barrier();
  EXPECT_EQ(memcmp(to_host(buf.get() + half, half).data(), from_left.data(), half), 0) << "device put via alias";
  EXPECT_EQ(memcmp(to_host(dev_got, half).data(), random_bytes(half, right, salt).data(), half), 0)
      << "device get via alias";
  EXPECT_NE(*peer_ptr, nullptr) << "device nvshmem_ptr of the alias";
  CUDA_CHECK(cudaFree(dev_got));
  CUDA_CHECK(cudaFree(peer_ptr));
}

TEST(SymmetricBuffer, RegisterUseUnregisterRegisterAgain) {
  VmmBuffer buf(3 << 20, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  ASSERT_TRUE(buf.ok);
  char *alias = static_cast<char *>(nvshmemx_buffer_register_symmetric(buf.get(), buf.bytes, 0));
  ASSERT_NE(alias, nullptr);
  exercise_alias(buf, alias, 10);
  gpu_test::barrier();
  EXPECT_EQ(nvshmemx_buffer_unregister_symmetric(alias, buf.bytes), 0);
  EXPECT_EQ(nvshmem_ptr(alias, nvshmem_my_pe()), nullptr) << "no longer symmetric";

  char *again = static_cast<char *>(nvshmemx_buffer_register_symmetric(buf.get(), buf.bytes, 0));
  ASSERT_NE(again, nullptr);
  exercise_alias(buf, again, 11);
  gpu_test::barrier();
  // Heap allocations and the registered buffer coexist.
  void *sym = nvshmem_malloc(1 << 20);
  EXPECT_NE(sym, nullptr);
  nvshmem_free(sym);
  EXPECT_EQ(nvshmemx_buffer_unregister_symmetric(again, buf.bytes), 0);
}

// NVSHMEM 3.6 nvshmemx_buffer_register_symmetric_at_preferred_address: a free, aligned address of the
// region (the same offset on every PE) is taken as asked and works like any alias; a taken or unaligned
// one is replaced by where the plain call would map it.
TEST(SymmetricBuffer, PreferredAddress) {
  VmmBuffer first(3 << 20, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
      second(3 << 20, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
      third(3 << 20, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  ASSERT_TRUE(first.ok && second.ok && third.ok);
  char *base = static_cast<char *>(nvshmemx_buffer_register_symmetric(first.get(), first.bytes, 0));
  ASSERT_NE(base, nullptr);
  char *wanted = base + (64 << 20);  // a multiple of every granularity the tests use (2 MiB)
  char *placed = static_cast<char *>(
      nvshmemx_buffer_register_symmetric_at_preferred_address(second.get(), second.bytes, wanted, 0));
  ASSERT_EQ(placed, wanted);
  exercise_alias(second, placed, 12);
  gpu_test::barrier();
  char *moved =
      static_cast<char *>(nvshmemx_buffer_register_symmetric_at_preferred_address(third.get(), third.bytes, wanted, 0));
  ASSERT_NE(moved, nullptr);
  EXPECT_NE(moved, wanted) << "taken: placed elsewhere";
  exercise_alias(third, moved, 13);
  gpu_test::barrier();
  EXPECT_EQ(nvshmemx_buffer_unregister_symmetric(moved, third.bytes), 0);
  char *unaligned = static_cast<char *>(
      nvshmemx_buffer_register_symmetric_at_preferred_address(third.get(), third.bytes, wanted + (32 << 20) + 4096, 0));
  ASSERT_NE(unaligned, nullptr);
  EXPECT_NE(unaligned, wanted + (32 << 20) + 4096);
  gpu_test::barrier();
  EXPECT_EQ(nvshmemx_buffer_unregister_symmetric(unaligned, third.bytes), 0);
  EXPECT_EQ(nvshmemx_buffer_unregister_symmetric(placed, second.bytes), 0);
  EXPECT_EQ(nvshmemx_buffer_unregister_symmetric(base, first.bytes), 0);
}

TEST(SymmetricBuffer, ErrorsReturnNullOnEveryPe) {
  VmmBuffer buf(2 << 20, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  ASSERT_TRUE(buf.ok);
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(buf.get(), buf.bytes, 1), nullptr) << "flags must be 0";
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(nullptr, buf.bytes, 0), nullptr);
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(buf.get() + 4096, 4096, 0), nullptr) << "not the mapping's start";
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(buf.get(), buf.bytes + 4096, 0), nullptr) << "past the allocation";
  VmmBuffer no_fd(2 << 20, CU_MEM_HANDLE_TYPE_NONE);
  ASSERT_TRUE(no_fd.ok);
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(no_fd.get(), no_fd.bytes, 0), nullptr) << "no POSIX fd handle type";
  char *plain = nullptr;
  CUDA_CHECK(cudaMalloc(&plain, 2 << 20));
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(plain, 2 << 20, 0), nullptr) << "cudaMalloc memory is not VMM";
  CUDA_CHECK(cudaFree(plain));
  // One PE asks for a different size: NULL everywhere.
  const size_t size = nvshmem_my_pe() == 0 ? buf.bytes : buf.bytes / 2;
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(buf.get(), size, 0), nullptr) << "sizes differ";

  char *alias = static_cast<char *>(nvshmemx_buffer_register_symmetric(buf.get(), buf.bytes, 0));
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(buf.get(), buf.bytes, 0), nullptr) << "registered twice";
  EXPECT_EQ(nvshmemx_buffer_register_symmetric(alias, buf.bytes, 0), nullptr) << "the alias is symmetric already";
  EXPECT_NE(nvshmemx_buffer_unregister_symmetric(alias + 4096, buf.bytes), 0) << "unknown pointer";
  EXPECT_NE(nvshmemx_buffer_unregister_symmetric(alias, buf.bytes / 2), 0) << "wrong size";
  EXPECT_EQ(nvshmemx_buffer_unregister_symmetric(alias, buf.bytes), 0);
}

__global__ void mc_ptr_kernel(void *sym, void **out) {
  *out = nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, sym);
}

TEST(Multicast, McPtrIsNullOnHostAndDevice) {
  void *sym = nvshmem_malloc(256);
  ASSERT_NE(sym, nullptr);
  EXPECT_EQ(nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, sym), nullptr);
  void **out = nullptr;
  CUDA_CHECK(cudaMallocManaged(&out, sizeof(void *)));
  *out = sym;
  mc_ptr_kernel<<<1, 1>>>(sym, out);
  LAUNCH_CHECK();
  EXPECT_EQ(*out, nullptr);
  CUDA_CHECK(cudaFree(out));
  nvshmem_free(sym);
}

__global__ void version_kernel(int *v, char *name) {
  nvshmemx_vendor_get_version_info(v, v + 1, v + 2);
  nvshmem_info_get_version(v + 3, v + 4);
  nvshmem_info_get_name(name);
}

TEST(Query, DeviceVersionAndNameMatchTheHost) {
  int *v = nullptr;
  char *name = nullptr;
  CUDA_CHECK(cudaMallocManaged(&v, 5 * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&name, NVSHMEM_MAX_NAME_LEN));
  version_kernel<<<1, 1>>>(v, name);
  LAUNCH_CHECK();
  int host[5];
  char host_name[NVSHMEM_MAX_NAME_LEN];
  nvshmemx_vendor_get_version_info(host, host + 1, host + 2);
  nvshmem_info_get_version(host + 3, host + 4);
  nvshmem_info_get_name(host_name);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(v[i], host[i]) << i;
  EXPECT_STREQ(name, host_name);
  CUDA_CHECK(cudaFree(v));
  CUDA_CHECK(cudaFree(name));
}

}  // namespace
