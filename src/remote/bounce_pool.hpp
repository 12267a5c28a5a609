// SPDX-License-Identifier: BSD-3-Clause
// Host bounce buffers of the staged path (docs/remote.md, "GPU heap"): blocks of one size, made on
// demand and reused. With a CUDA context (a GPU heap) every block is page-locked (cuMemHostRegister,
// portable), so that the copies between it and GPU memory are DMA instead of the driver's staging
// through pageable memory. At most `keep` idle blocks stay; a block returned beyond them (after a
// burst of replies in flight) is freed. Thread-safe: application threads, the proxy and the progress
// thread take and return blocks.
// May use: what remote/ uses. See src/remote/README.md.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "common/status.hpp"

namespace nvshm {

class BouncePool {
 public:
  // block_bytes: a multiple of the page size; context: the heap's (blocks page-locked), or nullptr.
  BouncePool(std::size_t block_bytes, std::size_t keep, CUcontext context);
  ~BouncePool();
  BouncePool(const BouncePool &) = delete;
  BouncePool &operator=(const BouncePool &) = delete;

  // One block, returned to its pool when the handle goes (or is reset).
  class Block {
   public:
    Block() = default;
    Block(Block &&o) noexcept : pool_(std::exchange(o.pool_, nullptr)), data_(std::exchange(o.data_, nullptr)) {}
    Block &operator=(Block &&o) noexcept {
      reset();
      pool_ = std::exchange(o.pool_, nullptr);
      data_ = std::exchange(o.data_, nullptr);
      return *this;
    }
    ~Block() { reset(); }
    char *data() const { return data_; }
    void reset();

   private:
    friend class BouncePool;
    BouncePool *pool_ = nullptr;
    char *data_ = nullptr;
  };

  // An idle block, or a new one; out_of_memory (logged, naming `op`) when none can be made. A block
  // that cannot be page-locked is used as pageable memory (one warning per pool).
  Status take(const char *op, Block *out);
  std::size_t block_bytes() const { return block_bytes_; }
  // Blocks made so far, and those idle now (tests).
  std::size_t made() const;
  std::size_t idle() const;

 private:
  void give(char *p);
  void destroy(char *p, bool pinned);

  const std::size_t block_bytes_, keep_;
  const CUcontext context_;
  mutable std::mutex mutex_;
  std::vector<char *> idle_;
  std::vector<char *> pinned_;  // blocks page-locked by this pool (unregistered when freed)
  std::size_t made_ = 0;
  bool warned_ = false;
};

}  // namespace nvshm
