// SPDX-License-Identifier: BSD-3-Clause
// GPU heap: CUDA VMM memory, exported as POSIX fds, imported and mapped by every PE of the node
// with read-write access for this PE's device (peer access over NVLink or PCIe).
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "heap/backing.hpp"

namespace nvshm {
namespace {
constexpr const char *kWhere = "GPU heap";

class DeviceBacking final : public HeapBacking {
 public:
  explicit DeviceBacking(int device) : device_(device) {
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = device;
    prop_.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  }
  ~DeviceBacking() override { release(); }

  std::size_t granularity() const override {
    std::size_t g = 0;
    if (driver().cuMemGetAllocationGranularity(&g, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS || !g)
      g = 2 << 20;
    return g;
  }

  Status reserve(std::size_t bytes, char **base) override {
    CUdeviceptr p = 0;
    NVSHM_CU(kWhere, cuMemAddressReserve(&p, bytes, granularity(), 0, 0));
    reserved_ = p;
    reserved_bytes_ = bytes;
    *base = reinterpret_cast<char *>(p);
    return Status::ok;
  }

  Status create_local(std::size_t bytes, int *fd) override {
    CUmemGenericAllocationHandle h;
    if (cu_check(driver().cuMemCreate(&h, bytes, &prop_, 0), kWhere, "cuMemCreate (symmetric heap)") != Status::ok) {
      log_error(kWhere, "could not allocate %zu bytes of GPU memory for the symmetric heap (NVSHMEM_SYMMETRIC_SIZE)",
                bytes);
      return Status::out_of_memory;
    }
    parts_.push_back({h, bytes});
    int out = -1;
    NVSHM_CU(kWhere, cuMemExportToShareableHandle(&out, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    *fd = out;
    return Status::ok;
  }

  Status map_local(char *at) override { return map(parts_.back().first, at, parts_.back().second); }

  Status map_peer(int fd, char *at, std::size_t bytes) override {
    CUmemGenericAllocationHandle h;
    CUresult r = driver().cuMemImportFromShareableHandle(&h, reinterpret_cast<void *>(static_cast<uintptr_t>(fd)),
                                                         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fd);
    NVSHM_TRY(cu_check(r, kWhere, "cuMemImportFromShareableHandle (peer heap)"));
    Status st = map(h, at, bytes);
    driver().cuMemRelease(h);  // the mapping keeps the memory alive
    return st;
  }

  Status enable_access(char *base, std::size_t bytes) override {
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device_;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CUresult r = driver().cuMemSetAccess(reinterpret_cast<CUdeviceptr>(base), bytes, &access, 1);
    if (r != CUDA_SUCCESS) {
      cu_check(r, kWhere, "cuMemSetAccess");
      log_error(kWhere, "GPU %d cannot access the other PEs' heaps: peer access (NVLink/PCIe P2P) is required",
                device_);
      return Status::not_supported;
    }
    return Status::ok;
  }

  Status unmap(char *at, std::size_t bytes) override {
    const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(at);
    for (auto it = mapped_.begin(); it != mapped_.end(); ++it) {
      if (it->first == p && it->second == bytes) {
        mapped_.erase(it);
        NVSHM_CU(kWhere, cuMemUnmap(p, bytes));
        return Status::ok;
      }
    }
    log_error(kWhere, "no mapping of %zu bytes at %p to undo", bytes, static_cast<void *>(at));
    return Status::internal;
  }

  Status export_user_allocation(const void *buf, std::size_t bytes, const char *call, int *fd,
                                std::size_t *mapped) override {
    CUdeviceptr base = 0;
    std::size_t length = 0;
    CUmemGenericAllocationHandle h;
    if (driver().cuMemGetAddressRange(&base, &length, reinterpret_cast<CUdeviceptr>(buf)) != CUDA_SUCCESS ||
        driver().cuMemRetainAllocationHandle(&h, const_cast<void *>(buf)) != CUDA_SUCCESS) {
      log_error(call, "buf_ptr=%p is not CUDA VMM memory: make the buffer with cuMemCreate and map it with cuMemMap",
                buf);
      return Status::invalid_value;
    }
    Status st = check_user_allocation(h, buf, bytes, base, length, call);
    if (st == Status::ok) {
      int out = -1;
      st = cu_check(driver().cuMemExportToShareableHandle(&out, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), call,
                    "cuMemExportToShareableHandle");
      *fd = out;
      *mapped = length;
    }
    driver().cuMemRelease(h);  // the reference cuMemRetainAllocationHandle took
    return st;
  }

  // Synchronous: the caller barriers right after, and no peer's put may land before the zeros.
  Status zero(void *at, std::size_t bytes) override {
    NVSHM_CU(kWhere, cuMemsetD8(reinterpret_cast<CUdeviceptr>(at), 0, bytes));
    NVSHM_CU(kWhere, cuCtxSynchronize());
    return Status::ok;
  }

  void release() override {
    for (auto &m : mapped_) driver().cuMemUnmap(m.first, m.second);
    mapped_.clear();
    for (auto &part : parts_) driver().cuMemRelease(part.first);
    parts_.clear();
    if (reserved_) driver().cuMemAddressFree(reserved_, reserved_bytes_);
    reserved_ = 0;
  }

 private:
  // The application's allocation `h`, mapped at [base, base+length), can be registered from `buf`
  // for `bytes` bytes.
  Status check_user_allocation(CUmemGenericAllocationHandle h, const void *buf, std::size_t bytes, CUdeviceptr base,
                               std::size_t length, const char *call) const {
    CUmemAllocationProp prop{};
    NVSHM_TRY(cu_check(driver().cuMemGetAllocationPropertiesFromHandle(&prop, h), call,
                       "cuMemGetAllocationPropertiesFromHandle"));
    std::size_t g = 0;
    NVSHM_TRY(cu_check(driver().cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), call,
                       "cuMemGetAllocationGranularity"));
    const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(buf);
    if (base != p) {
      log_error(call, "buf_ptr=%p is %zu bytes into the cuMemMap mapping at %p: pass the start of the mapping", buf,
                static_cast<std::size_t>(p - base), reinterpret_cast<void *>(base));
      return Status::invalid_value;
    }
    if (bytes > length) {
      log_error(call,
                "size %zu runs past the cuMemCreate allocation mapped at buf_ptr=%p (%zu bytes); register each "
                "allocation separately",
                bytes, buf, length);
      return Status::invalid_value;
    }
    if (!(prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
      log_error(call,
                "the allocation at buf_ptr=%p was created without CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in "
                "CUmemAllocationProp::requestedHandleTypes, so the other PEs cannot map it; create it with that "
                "handle type",
                buf);
      return Status::invalid_value;
    }
    if (granularity() % g != 0) {
      log_error(call, "the allocation's granularity (%zu bytes) is coarser than the symmetric heap's (%zu bytes)", g,
                granularity());
      return Status::not_supported;
    }
    return Status::ok;
  }

  Status map(CUmemGenericAllocationHandle h, char *at, std::size_t bytes) {
    const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(at);
    NVSHM_CU(kWhere, cuMemMap(p, bytes, 0, h, 0));
    mapped_.push_back({p, bytes});
    return Status::ok;
  }

  int device_;
  CUmemAllocationProp prop_{};
  CUdeviceptr reserved_ = 0;
  std::size_t reserved_bytes_ = 0;
  std::vector<std::pair<CUmemGenericAllocationHandle, std::size_t>> parts_;  // this PE's allocations
  std::vector<std::pair<CUdeviceptr, std::size_t>> mapped_;
};
}  // namespace

std::unique_ptr<HeapBacking> make_device_backing(int device_ordinal) {
  return std::make_unique<DeviceBacking>(device_ordinal);
}

}  // namespace nvshm
