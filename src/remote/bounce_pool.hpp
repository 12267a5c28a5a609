// SPDX-License-Identifier: BSD-3-Clause
// Host bounce buffers of the staged path (docs/remote.md, "GPU heap"): a fixed set of blocks made when
// the engine opens, page-locked there with a CUDA context (a GPU heap: cuMemHostRegister, portable), so
// that the copies between a block and GPU memory are DMA instead of the driver's staging through
// pageable memory. When every pooled block is in use, take() hands out a temporary pageable block,
// freed on return: nothing is allocated page-locked, registered or unregistered on the threads that
// move data (the proxy, the progress thread inside a UCX callback). Thread-safe.
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
  // `count` blocks of `block_bytes` (rounded up to whole pages); context: the heap's, whose blocks are
  // page-locked (a block that cannot be stays pageable, after one warning), or nullptr.
  BouncePool(std::size_t block_bytes, std::size_t count, CUcontext context);
  // Frees every pooled block, also those leaked (Block::leak): call it when nothing can access them.
  ~BouncePool();
  BouncePool(const BouncePool &) = delete;
  BouncePool &operator=(const BouncePool &) = delete;

  // One block, returned to its pool (a temporary one freed) when the handle goes or is reset.
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
    // Gives the block up without returning it: for a buffer UCX may still read after a wait gave up on
    // its request. A pooled block is freed by the pool's destructor, a temporary one never.
    void leak() {
      pool_ = nullptr;
      data_ = nullptr;
    }

   private:
    friend class BouncePool;
    BouncePool *pool_ = nullptr;
    char *data_ = nullptr;
  };

  // An idle pooled block, or else a temporary pageable one; out_of_memory (logged, naming `op`) when
  // none can be made.
  Status take(const char *op, Block *out);
  std::size_t block_bytes() const { return block_bytes_; }
  // Pooled blocks idle now, and temporary blocks handed out so far (tests).
  std::size_t idle() const;
  std::size_t temporaries() const;

 private:
  void give(char *p);
  bool pooled(const char *p) const;

  const std::size_t block_bytes_;
  const CUcontext context_;
  std::vector<char *> pooled_;  // every block of the pool, fixed at construction
  std::vector<bool> pinned_;    // pooled_[i] was page-locked
  mutable std::mutex mutex_;
  std::vector<char *> idle_;
  std::size_t temporaries_ = 0;
};

}  // namespace nvshm
