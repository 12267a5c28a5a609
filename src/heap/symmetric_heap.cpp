#include "heap/symmetric_heap.hpp"

#include <unistd.h>

#include <cinttypes>
#include <vector>

#include "common/log.hpp"
#include "heap/fd_exchange.hpp"

namespace nvshm {

Status agree(Bootstrap &boot, Status mine) {
  std::vector<int32_t> all(boot.size());
  int32_t code = static_cast<int32_t>(mine);
  NVSHM_TRY(boot.allgather(&code, all.data(), sizeof code));
  for (int32_t c : all)
    if (c != 0) return static_cast<Status>(c);
  return Status::ok;
}

Status SymmetricHeap::create(Bootstrap &boot, const NodeInfo &node, HeapKind kind, int device_ordinal,
                             std::size_t user_bytes, std::size_t reserved_bytes, int timeout_s,
                             std::unique_ptr<SymmetricHeap> *out) {
  const char *where = "symmetric heap";
  if (!node.consecutive()) {
    log_error(where, "the PEs of this node are not numbered consecutively; this version needs them to be");
    return Status::not_supported;
  }
  std::unique_ptr<SymmetricHeap> heap(new SymmetricHeap());
  heap->kind_ = kind;
  heap->backing_ = kind == HeapKind::device ? make_device_backing(device_ordinal) : make_host_backing();
  const std::size_t g = heap->backing_->granularity();
  heap->user_bytes_ = user_bytes;
  heap->stride_ = (user_bytes + reserved_bytes + g - 1) / g * g;
  heap->capacity_ = heap->stride_;
  heap->first_node_pe_ = node.pes.front();
  heap->node_pes_ = static_cast<int>(node.pes.size());

  char *slot0 = nullptr;
  int my_fd = -1;
  Status st = heap->backing_->reserve(heap->stride_ * node.pes.size(), &slot0);
  if (st == Status::ok) st = heap->backing_->create_local(heap->stride_, &my_fd);
  if (st != Status::ok)
    log_error(where, "could not set up a heap of %zu bytes (NVSHMEM_SYMMETRIC_SIZE=%zu plus %zu reserved) for each of "
              "the %zu PEs of this node; lower NVSHMEM_SYMMETRIC_SIZE", heap->stride_, user_bytes, reserved_bytes,
              node.pes.size());
  NVSHM_TRY(agree(boot, st));

  std::vector<int> fds;
  st = exchange_fds(boot, node, my_fd, timeout_s, &fds);
  close(my_fd);
  NVSHM_TRY(agree(boot, st));
  for (std::size_t i = 0; i < node.pes.size(); ++i) {
    char *at = slot0 + i * heap->stride_;
    if (static_cast<int>(i) == node.my_index) {
      if (st == Status::ok) st = heap->backing_->map_local(at);
    } else if (st == Status::ok) {
      st = heap->backing_->map_peer(fds[i], at, heap->stride_);
    } else {
      close(fds[i]);
    }
  }
  if (st == Status::ok) st = heap->backing_->enable_access(slot0, heap->stride_ * node.pes.size());
  NVSHM_TRY(agree(boot, st));
  heap->local_ = slot0 + node.my_index * heap->stride_;
  heap->world_base_ = slot0 - static_cast<std::ptrdiff_t>(heap->first_node_pe_) * heap->stride_;
  heap->allocator_ = Allocator(heap->capacity_);
  *out = std::move(heap);
  return Status::ok;
}

SymmetricHeap::~SymmetricHeap() {
  backing_->release();
}

bool SymmetricHeap::contains(const void *p, std::size_t bytes) const {
  const char *c = static_cast<const char *>(p);
  return c >= local_ && bytes <= capacity_ && static_cast<std::size_t>(c - local_) <= capacity_ - bytes;
}

void *SymmetricHeap::translate(const void *sym, int pe) const {
  if (!contains(sym) || pe < first_node_pe_ || pe >= first_node_pe_ + node_pes_) return nullptr;
  return world_base_ + static_cast<std::size_t>(pe) * stride_ + (static_cast<const char *>(sym) - local_);
}

Status SymmetricHeap::allocate(Bootstrap &boot, std::size_t bytes, std::size_t alignment, const char *call,
                               void **out) {
  *out = nullptr;
  struct Request {
    uint64_t bytes, alignment;
  } mine{bytes, alignment}, *all = nullptr;
  std::vector<Request> requests(boot.size());
  all = requests.data();
  NVSHM_TRY(boot.allgather(&mine, all, sizeof mine));
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (all[pe].bytes != bytes || all[pe].alignment != alignment) {
      log_error(call,
                "PEs asked for different sizes: PE %d asked for %" PRIu64 " bytes (alignment %" PRIu64
                "), PE %d asked for %zu bytes (alignment %zu); every PE must pass the same arguments",
                pe, all[pe].bytes, all[pe].alignment, boot.rank(), bytes, alignment);
      return Status::symmetry;
    }
  }
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
    log_error(call, "alignment %zu is not a power of two multiple of sizeof(void*) (%zu)", alignment, sizeof(void *));
    return Status::invalid_value;
  }
  std::size_t offset = 0;
  if (!allocator_.allocate(bytes, alignment, &offset)) {
    log_error(call,
              "cannot allocate %zu bytes: the symmetric heap has %zu bytes (NVSHMEM_SYMMETRIC_SIZE=%zu), %zu in use, "
              "largest free block %zu; raise NVSHMEM_SYMMETRIC_SIZE",
              bytes, capacity_, user_bytes_, allocator_.bytes_in_use(), allocator_.largest_free());
    return Status::out_of_memory;
  }
  *out = local_ + offset;
  return Status::ok;
}

Status SymmetricHeap::release(Bootstrap &boot, void *ptr, const char *call) {
  const uint64_t offset = contains(ptr) ? static_cast<uint64_t>(static_cast<char *>(ptr) - local_) : UINT64_MAX;
  std::vector<uint64_t> all(boot.size());
  NVSHM_TRY(boot.allgather(&offset, all.data(), sizeof offset));
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (all[pe] != offset) {
      log_error(call, "PEs freed different objects: PE %d freed heap offset %" PRIu64 ", PE %d offset %" PRIu64, pe,
                all[pe], boot.rank(), offset);
      return Status::symmetry;
    }
  }
  if (offset == UINT64_MAX || !allocator_.release(offset)) {
    log_error(call, "%p is not an object of the symmetric heap (nvshmem_malloc/calloc/align)", ptr);
    return Status::invalid_value;
  }
  return Status::ok;
}

}  // namespace nvshm
