// SPDX-License-Identifier: BSD-3-Clause
// Host shared-memory heap (CPU backend): memfd pages mapped MAP_SHARED by every PE of the node.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "common/log.hpp"
#include "heap/backing.hpp"

namespace nvshm {
namespace {
constexpr const char *kWhere = "host heap";

class HostBacking final : public HeapBacking {
 public:
  ~HostBacking() override { release(); }
  std::size_t granularity() const override { return 64 << 10; }

  Status reserve(std::size_t bytes, char **base) override {
    void *p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      log_error(kWhere, "reserving %zu bytes of address space failed: %s", bytes, strerror(errno));
      return Status::out_of_memory;
    }
    reserved_ = {static_cast<char *>(p), bytes};
    *base = reserved_.first;
    return Status::ok;
  }

  Status create_local(std::size_t bytes, int *fd) override {
    fd_ = memfd_create("nvshmem-symmetric-heap", MFD_CLOEXEC);
    if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
      log_error(kWhere, "creating %zu bytes of shared memory failed: %s", bytes, strerror(errno));
      return Status::out_of_memory;
    }
    bytes_ = bytes;
    *fd = dup(fd_);
    return *fd >= 0 ? Status::ok : Status::internal;
  }

  Status map_local(char *at) override { return map(fd_, at, bytes_); }

  Status map_peer(int fd, char *at, std::size_t bytes) override {
    Status st = map(fd, at, bytes);
    close(fd);
    return st;
  }

  Status enable_access(char *, std::size_t) override { return Status::ok; }
  // Back to reserved address space.
  Status unmap(char *at, std::size_t bytes) override {
    if (mmap(at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
      log_error(kWhere, "unmapping %zu bytes failed: %s", bytes, strerror(errno));
      return Status::internal;
    }
    return Status::ok;
  }
  Status export_user_allocation(const void *, std::size_t, const char *call, int *, std::size_t *) override {
    log_error(call,
              "symmetric registration of an application buffer needs the symmetric heap in GPU memory (CUDA VMM); "
              "this job's heap is in host shared memory (no GPU, or NVSHMEM_HEAP_KIND=SYSMEM)");
    return Status::not_supported;
  }
  Status zero(void *at, std::size_t bytes) override {
    memset(at, 0, bytes);
    return Status::ok;
  }

  void release() override {
    if (reserved_.first) munmap(reserved_.first, reserved_.second);  // also drops the fixed mappings
    reserved_ = {nullptr, 0};
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  Status map(int fd, char *at, std::size_t bytes) {
    void *p = mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
      log_error(kWhere, "mapping %zu bytes of shared memory failed: %s", bytes, strerror(errno));
      return Status::internal;
    }
    return Status::ok;
  }

  std::pair<char *, std::size_t> reserved_{nullptr, 0};
  int fd_ = -1;
  std::size_t bytes_ = 0;
};
}  // namespace

std::unique_ptr<HeapBacking> make_host_backing() {
  return std::make_unique<HostBacking>();
}

}  // namespace nvshm
