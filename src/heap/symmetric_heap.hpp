// SPDX-License-Identifier: BSD-3-Clause
// The symmetric heap: one layout on every PE (docs/architecture.md, decision 2). All node PEs' heaps are mapped
// into one virtual range, PE p's heap at base_of(p) = slot0 + (p - first node PE) * stride, so a
// symmetric address is translated to a peer's by base arithmetic, on host and device.
// Each slot is [heap (size()) | region for registered application buffers]; a buffer registered
// with nvshmemx_buffer_register_symmetric is mapped at the same offset of that region in every
// slot, so the same arithmetic translates it.
// May use: bootstrap/, cuda/, common/. See src/heap/README.md.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "heap/allocator.hpp"
#include "heap/backing.hpp"
#include "heap/node.hpp"

namespace nvshm {

class SymmetricHeap {
 public:
  // Collective. `user_bytes` is NVSHMEM_SYMMETRIC_SIZE; `reserved_bytes` more are kept for the
  // runtime's own symmetric objects; each PE's slot spans at least `slot_bytes` (the rest after the
  // heap holds registered buffers). A GPU heap is made of allocations of `part_bytes` (0: one
  // allocation; NVSHMEM_CUMEM_GRANULARITY). device_ordinal and part_bytes are ignored for HeapKind::host.
  static Status create(Bootstrap &boot, const NodeInfo &node, HeapKind kind, int device_ordinal, std::size_t user_bytes,
                       std::size_t reserved_bytes, std::size_t slot_bytes, std::size_t part_bytes, int timeout_s,
                       std::unique_ptr<SymmetricHeap> *out);
  ~SymmetricHeap();
  SymmetricHeap(const SymmetricHeap &) = delete;
  SymmetricHeap &operator=(const SymmetricHeap &) = delete;

  HeapKind kind() const { return kind_; }
  char *local() const { return local_; }
  std::size_t size() const { return capacity_; }
  std::size_t stride() const { return stride_; }
  // Bytes of this PE's slot that symmetric addresses may use: the heap and the registered buffers.
  std::size_t span() const { return stride_; }
  // Where PE 0's heap would be mapped (may lie outside the mapping when PE 0 is on another node).
  char *world_base() const { return world_base_; }
  // [p, p+bytes) lies in the heap or in one registered symmetric buffer.
  bool contains(const void *p, std::size_t bytes = 1) const;
  // [p, p+bytes) overlaps the address range of this node's slots (heaps and registered buffers).
  bool overlaps_slots(const void *p, std::size_t bytes) const {
    const char *c = static_cast<const char *>(p);
    return c < slot(node_pes_) && slot(0) < c + bytes;
  }
  // `pe`'s address of symmetric `sym`, or nullptr if sym is not in the heap or pe is not mapped.
  void *translate(const void *sym, int pe) const;

  // Collective over all PEs (`call` names the API call for messages). Checks that every PE asked
  // for the same size and alignment (also for 0 bytes, which gives NULL everywhere); NULL on every PE
  // when the heap is full. Powers of two below sizeof(void*) are rounded up to it.
  Status allocate(Bootstrap &boot, std::size_t bytes, std::size_t alignment, const char *call, void **out);
  Status release(Bootstrap &boot, void *ptr, const char *call);
  // A range of this PE's heap that the runtime uses for some PEs only (a team's buffers: its members
  // take the same range; docs/teams.md), not collective. Taken when no symmetric allocation or other
  // taken range overlaps it: the same answer on every PE for the allocations, which every PE makes
  // alike. From then on allocations end below the lowest range any PE has taken (allocate exchanges
  // each PE's), so they stay symmetric. give_back_range takes the start of a taken range.
  bool take_range(std::size_t offset, std::size_t bytes);
  void give_back_range(std::size_t offset);
  // Collective nvshmemx_buffer_register_symmetric: map every node PE's allocation mapped at `buf`
  // (`bytes` bytes, the same on every PE) at one offset of the registered-buffer region; *alias is
  // this PE's symmetric address of it. NULL on every PE when any PE fails.
  // `preferred` (may be NULL): this PE's symmetric address in that region where the caller would like it
  // (nvshmemx_buffer_register_symmetric_at_preferred_address); used when every PE names the same offset,
  // aligned to the granularity and free, else the buffer goes where it would without it.
  Status register_buffer(Bootstrap &boot, void *buf, std::size_t bytes, const void *preferred, const char *call,
                         void **alias);
  // Collective nvshmemx_buffer_unregister_symmetric of the alias returned above. The caller has
  // completed this PE's operations on it.
  Status unregister_buffer(Bootstrap &boot, void *alias, std::size_t bytes, const char *call);

  // Zero `bytes` bytes of this PE's heap at `at` (GPU or host memory).
  Status zero(void *at, std::size_t bytes) { return backing_->zero(at, bytes); }

 private:
  SymmetricHeap() = default;
  HeapKind kind_ = HeapKind::host;
  std::unique_ptr<HeapBacking> backing_;
  Allocator allocator_;
  std::size_t user_bytes_ = 0;
  std::size_t capacity_ = 0;
  std::size_t stride_ = 0;
  char *local_ = nullptr;
  char *world_base_ = nullptr;
  int first_node_pe_ = 0;
  int node_pes_ = 1;
  NodeInfo node_;
  int timeout_s_ = 0;
  std::map<std::size_t, std::size_t> taken_;  // take_range: offset -> bytes
  // The registered-buffer region: offsets after the heap in each slot.
  Allocator buffer_offsets_;
  struct Buffer {
    const char *user;    // the application's mapping
    std::size_t bytes;   // registered size
    std::size_t mapped;  // bytes mapped in each slot (the whole allocation)
  };
  mutable std::mutex buffers_mutex_;  // contains() runs on any thread
  std::map<std::size_t, Buffer> buffers_;
  char *slot(int node_index) const {
    return local_ + (node_index - node_.my_index) * static_cast<std::ptrdiff_t>(stride_);
  }
  // Map every node PE's fd (closed here) at `offset` of its slot's buffer region; *done: slots
  // mapped (0..*done-1) when it fails.
  // The registration of [buf, buf+bytes) does not overlap the symmetric range or another one.
  Status check_new_buffer(const void *buf, std::size_t bytes, const char *call) const;
  Status map_buffer_everywhere(int my_fd, const std::vector<int> &fds, std::size_t offset, std::size_t mapped,
                               int *done);
};

// Collective agreement: every PE learns whether all PEs succeeded (first failure wins).
Status agree(Bootstrap &boot, Status mine);

}  // namespace nvshm
