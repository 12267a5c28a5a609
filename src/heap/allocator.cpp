// SPDX-License-Identifier: BSD-3-Clause
#include "heap/allocator.hpp"

#include <algorithm>

namespace nvshm {

Allocator::Allocator(std::size_t capacity) : capacity_(capacity) {
  if (capacity) free_[0] = capacity;
}

bool Allocator::allocate(std::size_t size, std::size_t alignment, std::size_t *offset, std::size_t limit) {
  for (auto it = free_.begin(); it != free_.end() && it->first < limit; ++it) {
    const std::size_t start = it->first, length = it->second;
    const std::size_t aligned = (start + alignment - 1) & ~(alignment - 1);
    const std::size_t pad = aligned - start;
    if (aligned < start || pad > length || length - pad < size || aligned > limit || limit - aligned < size) continue;
    free_.erase(it);
    if (pad) free_[start] = pad;
    if (length - pad > size) free_[aligned + size] = length - pad - size;
    used_[aligned] = size;
    in_use_ += size;
    *offset = aligned;
    return true;
  }
  return false;
}

bool Allocator::allocate_at(std::size_t offset, std::size_t size) {
  if (size == 0 || !is_free(offset, size)) return false;
  const auto it = std::prev(free_.upper_bound(offset));  // the free range that holds the block
  const std::size_t start = it->first, length = it->second;
  free_.erase(it);
  if (offset > start) free_[start] = offset - start;
  if (offset - start + size < length) free_[offset + size] = length - (offset - start) - size;
  used_[offset] = size;
  in_use_ += size;
  return true;
}

bool Allocator::is_free(std::size_t offset, std::size_t size) const {
  auto it = free_.upper_bound(offset);
  if (it == free_.begin()) return false;
  --it;  // the free range that starts at or before offset
  return offset - it->first <= it->second && it->second - (offset - it->first) >= size;
}

std::size_t Allocator::block_size(std::size_t offset) const {
  auto it = used_.find(offset);
  return it == used_.end() ? 0 : it->second;
}

bool Allocator::release(std::size_t offset) {
  auto it = used_.find(offset);
  if (it == used_.end()) return false;
  std::size_t start = offset, length = it->second;
  in_use_ -= length;
  used_.erase(it);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + length) {
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = length;
  return true;
}

std::size_t Allocator::largest_free() const {
  std::size_t best = 0;
  for (const auto &range : free_) best = std::max(best, range.second);
  return best;
}

}  // namespace nvshm
