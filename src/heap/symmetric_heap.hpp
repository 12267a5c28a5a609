// The symmetric heap: one layout on every PE (docs/architecture.md, decision 2). All node PEs' heaps are mapped
// into one virtual range, PE p's heap at base_of(p) = slot0 + (p - first node PE) * stride, so a
// symmetric address is translated to a peer's by base arithmetic, on host and device.
// May use: bootstrap/, cuda/, common/. See src/heap/README.md.
#pragma once
#include <cstddef>
#include <memory>

#include "bootstrap/bootstrap.hpp"
#include "heap/allocator.hpp"
#include "heap/backing.hpp"
#include "heap/node.hpp"

namespace nvshm {

class SymmetricHeap {
 public:
  // Collective. `user_bytes` is NVSHMEM_SYMMETRIC_SIZE; `reserved_bytes` more are kept for the
  // runtime's own symmetric objects. device_ordinal is ignored for HeapKind::host.
  static Status create(Bootstrap &boot, const NodeInfo &node, HeapKind kind, int device_ordinal, std::size_t user_bytes,
                       std::size_t reserved_bytes, int timeout_s, std::unique_ptr<SymmetricHeap> *out);
  ~SymmetricHeap();
  SymmetricHeap(const SymmetricHeap &) = delete;
  SymmetricHeap &operator=(const SymmetricHeap &) = delete;

  HeapKind kind() const { return kind_; }
  char *local() const { return local_; }
  std::size_t size() const { return capacity_; }
  std::size_t stride() const { return stride_; }
  // Where PE 0's heap would be mapped (may lie outside the mapping when PE 0 is on another node).
  char *world_base() const { return world_base_; }
  bool contains(const void *p, std::size_t bytes = 1) const;
  // `pe`'s address of symmetric `sym`, or nullptr if sym is not in the heap or pe is not mapped.
  void *translate(const void *sym, int pe) const;

  // Collective over all PEs (`call` names the API call for messages). Checks that every PE asked
  // for the same size and alignment; NULL on every PE when the heap is full.
  Status allocate(Bootstrap &boot, std::size_t bytes, std::size_t alignment, const char *call, void **out);
  Status release(Bootstrap &boot, void *ptr, const char *call);
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
};

// Collective agreement: every PE learns whether all PEs succeeded (first failure wins).
Status agree(Bootstrap &boot, Status mine);

}  // namespace nvshm
