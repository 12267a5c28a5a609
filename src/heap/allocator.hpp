// SPDX-License-Identifier: BSD-3-Clause
// Deterministic allocator over the offsets [0, capacity) of the symmetric heap: the same sequence of
// calls gives the same offsets on every PE (docs/architecture.md, decision 2). First fit over a sorted free
// list, neighbours merged on free. Not thread safe (heap calls are collective, one thread per PE).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>

namespace nvshm {

class Allocator {
 public:
  explicit Allocator(std::size_t capacity = 0);

  // Offset of a new block of `size` bytes aligned to `alignment` (a power of two) that ends at or
  // below `limit`, or false if no free range fits. size must be > 0.
  bool allocate(std::size_t size, std::size_t alignment, std::size_t *offset, std::size_t limit = SIZE_MAX);
  // No block overlaps [offset, offset + size).
  bool is_free(std::size_t offset, std::size_t size) const;
  // The block [offset, offset + size) if it lies in one free range, else false (nothing changes).
  bool allocate_at(std::size_t offset, std::size_t size);
  // Size of the block at `offset`, or 0 if no block starts there.
  std::size_t block_size(std::size_t offset) const;
  // Release the block at `offset`; false if no block starts there.
  bool release(std::size_t offset);

  std::size_t capacity() const { return capacity_; }
  std::size_t bytes_in_use() const { return in_use_; }
  std::size_t largest_free() const;

 private:
  std::size_t capacity_;
  std::size_t in_use_ = 0;
  std::map<std::size_t, std::size_t> free_;  // offset -> size
  std::map<std::size_t, std::size_t> used_;  // offset -> size
};

}  // namespace nvshm
