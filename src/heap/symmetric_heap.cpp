// SPDX-License-Identifier: BSD-3-Clause
#include "heap/symmetric_heap.hpp"

#include <unistd.h>

#include <algorithm>
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

namespace {
// Every PE must lay out its heap alike, since each maps the others' parts at the same offsets.
Status check_layout(Bootstrap &boot, std::size_t capacity, std::size_t part, const char *where) {
  struct Layout {
    uint64_t capacity, part;
  };
  const Layout mine{capacity, part};
  std::vector<Layout> all(boot.size());
  NVSHM_TRY(boot.allgather(&mine, all.data(), sizeof mine));
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (all[pe].capacity != mine.capacity || all[pe].part != mine.part) {
      log_error(where,
                "PEs disagree on the heap's layout: PE %d has %" PRIu64 " bytes in parts of %" PRIu64
                ", PE %d %zu bytes in parts of %zu; set NVSHMEM_SYMMETRIC_SIZE, NVSHMEM_CUMEM_GRANULARITY, "
                "NVSHMEM_MAX_TEAMS and NVSHMEM_REDUCE_SCRATCH_SIZE alike on every PE",
                pe, all[pe].capacity, all[pe].part, boot.rank(), capacity, part);
      return Status::symmetry;
    }
  }
  return Status::ok;
}
}  // namespace

Status SymmetricHeap::create(Bootstrap &boot, const NodeInfo &node, HeapKind kind, int device_ordinal,
                             std::size_t user_bytes, std::size_t reserved_bytes, std::size_t slot_bytes,
                             std::size_t part_bytes, int timeout_s, std::unique_ptr<SymmetricHeap> *out) {
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
  heap->capacity_ = (user_bytes + reserved_bytes + g - 1) / g * g;
  heap->stride_ = std::max(heap->capacity_, (slot_bytes + g - 1) / g * g);
  heap->first_node_pe_ = node.pes.front();
  heap->node_pes_ = static_cast<int>(node.pes.size());
  heap->node_ = node;
  heap->timeout_s_ = timeout_s;

  // The heap's memory: one allocation, or for the GPU heap parts of part_bytes (rounded up to g).
  std::size_t part = heap->capacity_;
  if (kind == HeapKind::device && part_bytes) part = std::min(part, (part_bytes + g - 1) / g * g);
  NVSHM_TRY(check_layout(boot, heap->capacity_, part, where));

  char *slot0 = nullptr;
  Status st = heap->backing_->reserve(heap->stride_ * node.pes.size(), &slot0);
  if (st != Status::ok)
    log_error(where,
              "could not reserve %zu bytes of address space (a slot of %zu bytes for each of the %zu PEs of this "
              "node); lower NVSHMEM_MAX_MEMORY_PER_GPU (the slot) or NVSHMEM_SYMMETRIC_SIZE",
              heap->stride_ * node.pes.size(), heap->stride_, node.pes.size());
  // One round per part: create, exchange, map. A failure to reserve or to map the previous part
  // skips the creation, so the agreement after it ends every PE's loop together.
  for (std::size_t offset = 0; offset < heap->capacity_; offset += part) {
    const std::size_t bytes = std::min(part, heap->capacity_ - offset);
    int my_fd = -1;
    if (st == Status::ok && (st = heap->backing_->create_local(bytes, &my_fd)) != Status::ok)
      log_error(where,
                "could not allocate the heap's %zu bytes (NVSHMEM_SYMMETRIC_SIZE=%zu plus %zu reserved for teams "
                "and collective scratch; %zu allocated before this part); lower NVSHMEM_SYMMETRIC_SIZE, or "
                "NVSHMEM_REDUCE_SCRATCH_SIZE or NVSHMEM_MAX_TEAMS for the reserved part",
                heap->capacity_, user_bytes, reserved_bytes, offset);
    NVSHM_TRY(agree(boot, st));
    std::vector<int> fds;
    st = exchange_fds(boot, node, my_fd, timeout_s, &fds);
    close(my_fd);
    NVSHM_TRY(agree(boot, st));
    for (std::size_t i = 0; i < node.pes.size(); ++i) {
      char *at = slot0 + i * heap->stride_ + offset;
      if (static_cast<int>(i) == node.my_index) {
        if (st == Status::ok) st = heap->backing_->map_local(at);
      } else if (st == Status::ok) {
        st = heap->backing_->map_peer(fds[i], at, bytes);
      } else {
        close(fds[i]);
      }
    }
  }
  for (std::size_t i = 0; st == Status::ok && i < node.pes.size(); ++i)
    st = heap->backing_->enable_access(slot0 + i * heap->stride_, heap->capacity_);
  NVSHM_TRY(agree(boot, st));
  heap->local_ = slot0 + node.my_index * heap->stride_;
  heap->world_base_ = slot0 - static_cast<std::ptrdiff_t>(heap->first_node_pe_) * heap->stride_;
  heap->allocator_ = Allocator(heap->capacity_);
  heap->buffer_offsets_ = Allocator(heap->stride_ - heap->capacity_);
  *out = std::move(heap);
  return Status::ok;
}

SymmetricHeap::~SymmetricHeap() {
  backing_->release();
}

bool SymmetricHeap::contains(const void *p, std::size_t bytes) const {
  const char *c = static_cast<const char *>(p);
  if (c < local_ || bytes > stride_) return false;
  const std::size_t offset = static_cast<std::size_t>(c - local_);
  if (bytes <= capacity_ && offset <= capacity_ - bytes) return true;
  if (offset < capacity_ || offset >= stride_) return false;
  const std::size_t in_region = offset - capacity_;
  std::lock_guard<std::mutex> lock(buffers_mutex_);
  auto it = buffers_.upper_bound(in_region);
  if (it == buffers_.begin()) return false;
  --it;
  return in_region - it->first <= it->second.bytes && bytes <= it->second.bytes - (in_region - it->first);
}

void *SymmetricHeap::translate(const void *sym, int pe) const {
  if (!contains(sym) || pe < first_node_pe_ || pe >= first_node_pe_ + node_pes_) return nullptr;
  return world_base_ + static_cast<std::size_t>(pe) * stride_ + (static_cast<const char *>(sym) - local_);
}

Status SymmetricHeap::allocate(Bootstrap &boot, std::size_t bytes, std::size_t alignment, const char *call,
                               void **out) {
  *out = nullptr;
  struct Request {
    uint64_t bytes, alignment, limit;  // limit: the lowest range this PE has taken (take_range)
  } mine{bytes, alignment, taken_.empty() ? capacity_ : taken_.begin()->first}, *all = nullptr;
  std::vector<Request> requests(boot.size());
  all = requests.data();
  NVSHM_TRY(boot.allgather(&mine, all, sizeof mine));
  std::size_t limit = capacity_;
  for (int pe = 0; pe < boot.size(); ++pe) {
    limit = std::min(limit, static_cast<std::size_t>(all[pe].limit));
    if (all[pe].bytes != bytes || all[pe].alignment != alignment) {
      log_error(call,
                "PEs asked for different sizes: PE %d asked for %" PRIu64 " bytes (alignment %" PRIu64
                "), PE %d asked for %zu bytes (alignment %zu); every PE must pass the same arguments",
                pe, all[pe].bytes, all[pe].alignment, boot.rank(), bytes, alignment);
      return Status::symmetry;
    }
  }
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    log_error(call, "alignment %zu is not a power of two", alignment);
    return Status::invalid_value;
  }
  if (alignment < sizeof(void *)) {
    // OpenSHMEM asks for a power-of-two multiple of sizeof(void*); NVIDIA's library takes smaller
    // powers of two, and so do we: a block aligned to 8 is aligned to them.
    NVSHM_INFO(call, "alignment %zu rounded up to %zu (sizeof(void*))", alignment, sizeof(void *));
    alignment = sizeof(void *);
  }
  if (bytes == 0) return Status::ok;  // NULL on every PE, after the check that every PE asked for 0
  std::size_t offset = 0;
  if (!allocator_.allocate(bytes, alignment, &offset, limit)) {
    log_error(call,
              "cannot allocate %zu bytes: the symmetric heap has %zu bytes (NVSHMEM_SYMMETRIC_SIZE=%zu), %zu in use, "
              "largest free block %zu, the top %zu bytes held by the buffers of teams (docs/teams.md); raise "
              "NVSHMEM_SYMMETRIC_SIZE or destroy teams",
              bytes, capacity_, user_bytes_, allocator_.bytes_in_use(), allocator_.largest_free(), capacity_ - limit);
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

bool SymmetricHeap::take_range(std::size_t offset, std::size_t bytes) {
  if (bytes == 0 || offset > capacity_ || capacity_ - offset < bytes || !allocator_.is_free(offset, bytes))
    return false;
  const auto next = taken_.lower_bound(offset);
  if (next != taken_.end() && next->first < offset + bytes) return false;
  if (next != taken_.begin() && std::prev(next)->first + std::prev(next)->second > offset) return false;
  taken_[offset] = bytes;
  return true;
}

void SymmetricHeap::give_back_range(std::size_t offset) {
  taken_.erase(offset);
}

Status SymmetricHeap::register_buffer(Bootstrap &boot, void *buf, std::size_t bytes, const void *preferred,
                                      const char *call, void **alias) {
  *alias = nullptr;
  int fd = -1;
  std::size_t mapped = 0;
  Status st = check_new_buffer(buf, bytes, call);
  if (st == Status::ok) st = backing_->export_user_allocation(buf, bytes, call, &fd, &mapped);
  // The preferred offset in the region (UINT64_MAX: none, or outside the region of this PE).
  const char *p = static_cast<const char *>(preferred);
  const uint64_t wanted =
      p && p >= local_ + capacity_ && p < local_ + stride_ ? static_cast<uint64_t>(p - local_ - capacity_) : UINT64_MAX;
  struct Request {
    int32_t status, unused;
    uint64_t bytes, mapped, wanted;
  } mine{static_cast<int32_t>(st), 0, bytes, mapped, wanted};
  std::vector<Request> all(boot.size());
  Status gathered = boot.allgather(&mine, all.data(), sizeof mine);
  if (gathered != Status::ok) {
    if (fd >= 0) close(fd);
    return gathered;
  }
  for (int pe = 0; st == Status::ok && pe < boot.size(); ++pe) {
    if (all[pe].status != 0) {
      log_error(call, "PE %d could not register its buffer (see its message)", pe);
      st = static_cast<Status>(all[pe].status);
    } else if (all[pe].bytes != bytes || all[pe].mapped != mapped) {
      log_error(call,
                "PEs registered different sizes: PE %d %" PRIu64 " bytes (allocation of %" PRIu64
                "), PE %d %zu bytes (allocation of %zu); every PE must register the same size",
                pe, all[pe].bytes, all[pe].mapped, boot.rank(), bytes, mapped);
      st = Status::symmetry;
    }
  }
  // Every PE holds the same offsets and sees every PE's preferred offset, so all PEs take the same branches.
  std::size_t offset = 0;
  bool placed = false;
  if (st == Status::ok && preferred) {
    bool same = true;
    for (int pe = 0; pe < boot.size(); ++pe) same = same && all[pe].wanted == wanted;
    placed = same && wanted != UINT64_MAX && wanted % backing_->granularity() == 0 &&
             buffer_offsets_.allocate_at(wanted, mapped);
    if (placed)
      offset = wanted;
    else
      NVSHM_INFO(call,
                 "the preferred address %p is %s; the buffer goes where nvshmemx_buffer_register_symmetric "
                 "would put it",
                 preferred,
                 !same                              ? "not the same offset on every PE"
                 : wanted == UINT64_MAX             ? "outside this PE's registered-buffer region"
                 : wanted % backing_->granularity() ? "not aligned to the heap granularity"
                                                    : "taken, or too close to the region's end");
  }
  if (st == Status::ok && !placed && !buffer_offsets_.allocate(mapped, backing_->granularity(), &offset)) {
    log_error(call,
              "no room for %zu bytes: registered buffers have %zu bytes of address space per PE "
              "(NVSHMEM_MAX_MEMORY_PER_GPU minus the heap), %zu in use; raise NVSHMEM_MAX_MEMORY_PER_GPU",
              mapped, buffer_offsets_.capacity(), buffer_offsets_.bytes_in_use());
    st = Status::out_of_memory;
  }
  if (st != Status::ok) {
    if (fd >= 0) close(fd);
    return st;
  }
  std::vector<int> fds;
  st = exchange_fds(boot, node_, fd, timeout_s_, &fds);
  int done = 0;
  if (st == Status::ok) {
    st = map_buffer_everywhere(fd, fds, offset, mapped, &done);
  } else {
    close(fd);
  }
  st = agree(boot, st);
  if (st != Status::ok) {
    for (int i = 0; i < done; ++i) backing_->unmap(slot(i) + capacity_ + offset, mapped);
    buffer_offsets_.release(offset);
    return st;
  }
  {
    std::lock_guard<std::mutex> lock(buffers_mutex_);
    buffers_[offset] = Buffer{static_cast<const char *>(buf), bytes, mapped};
  }
  *alias = local_ + capacity_ + offset;
  return Status::ok;
}

Status SymmetricHeap::check_new_buffer(const void *buf, std::size_t bytes, const char *call) const {
  const char *start = static_cast<const char *>(buf);
  if (overlaps_slots(buf, bytes)) {
    log_error(call, "buf_ptr=%p lies in the symmetric address range: it is symmetric already", buf);
    return Status::invalid_value;
  }
  std::lock_guard<std::mutex> lock(buffers_mutex_);
  for (const auto &b : buffers_) {
    if (start < b.second.user + b.second.bytes && b.second.user < start + bytes) {
      log_error(call, "[%p, +%zu) overlaps the buffer [%p, +%zu) registered already (symmetric at %p)", buf, bytes,
                static_cast<const void *>(b.second.user), b.second.bytes,
                static_cast<const void *>(local_ + capacity_ + b.first));
      return Status::invalid_value;
    }
  }
  return Status::ok;
}

Status SymmetricHeap::map_buffer_everywhere(int my_fd, const std::vector<int> &fds, std::size_t offset,
                                            std::size_t mapped, int *done) {
  Status st = Status::ok;
  for (int i = 0; i < static_cast<int>(fds.size()); ++i) {
    const int fd = i == node_.my_index ? my_fd : fds[i];
    if (st != Status::ok) {
      close(fd);
      continue;
    }
    char *at = slot(i) + capacity_ + offset;
    st = backing_->map_peer(fd, at, mapped);
    if (st == Status::ok) {
      *done = i + 1;
      st = backing_->enable_access(at, mapped);
    }
  }
  return st;
}

Status SymmetricHeap::unregister_buffer(Bootstrap &boot, void *alias, std::size_t bytes, const char *call) {
  const char *c = static_cast<const char *>(alias);
  uint64_t offset = UINT64_MAX;
  {
    std::lock_guard<std::mutex> lock(buffers_mutex_);
    const bool in_region = c >= local_ + capacity_ && c < local_ + stride_;
    auto it = in_region ? buffers_.find(static_cast<std::size_t>(c - local_ - capacity_)) : buffers_.end();
    if (it == buffers_.end())
      log_error(call,
                "mmap_ptr=%p is not a buffer registered with nvshmemx_buffer_register_symmetric (pass the "
                "pointer it returned)",
                alias);
    else if (it->second.bytes != bytes)
      log_error(call, "size %zu differs from the %zu bytes registered at mmap_ptr=%p", bytes, it->second.bytes, alias);
    else
      offset = it->first;
  }
  std::vector<uint64_t> all(boot.size());
  NVSHM_TRY(boot.allgather(&offset, all.data(), sizeof offset));
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (all[pe] == UINT64_MAX) return Status::invalid_value;
    if (all[pe] != offset) {
      log_error(call, "PEs unregistered different buffers: PE %d offset %" PRIu64 ", PE %d offset %" PRIu64, pe,
                all[pe], boot.rank(), offset);
      return Status::symmetry;
    }
  }
  NVSHM_TRY(boot.barrier());  // every PE has completed its operations on the buffer
  std::size_t mapped = 0;
  {
    std::lock_guard<std::mutex> lock(buffers_mutex_);
    mapped = buffers_.at(offset).mapped;
    buffers_.erase(offset);
  }
  Status st = Status::ok;
  for (int i = 0; i < node_pes_; ++i) {
    const Status s = backing_->unmap(slot(i) + capacity_ + offset, mapped);
    if (st == Status::ok) st = s;
  }
  buffer_offsets_.release(offset);
  return agree(boot, st);
}

}  // namespace nvshm
