// SPDX-License-Identifier: BSD-3-Clause
#include "remote/bounce_pool.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/log.hpp"
#include "cuda/driver.hpp"

namespace nvshm {
namespace {
constexpr const char *kWhere = "remote engine";
constexpr std::size_t kPage = 4096;
}  // namespace

BouncePool::BouncePool(std::size_t block_bytes, std::size_t count, CUcontext context)
    : block_bytes_((block_bytes + kPage - 1) / kPage * kPage), context_(context) {
  ContextGuard guard(context_);
  bool warned = false;
  for (std::size_t i = 0; i < count; ++i) {
    char *p = static_cast<char *>(std::aligned_alloc(kPage, block_bytes_));
    if (!p) break;  // a smaller pool: take() hands out temporary blocks beyond it
    bool pinned = false;
    if (context_) {
      const CUresult r = driver().cuMemHostRegister(p, block_bytes_, CU_MEMHOSTREGISTER_PORTABLE);
      pinned = r == CUDA_SUCCESS;
      if (!pinned && !std::exchange(warned, true)) {
        const char *why = nullptr;
        if (driver().cuGetErrorString(r, &why) != CUDA_SUCCESS || !why) why = "unknown error";
        NVSHM_WARN(kWhere, "page-locking the staged path's bounce buffers failed (%s): they stay pageable", why);
      }
    }
    pooled_.push_back(p);
    pinned_.push_back(pinned);
  }
  idle_ = pooled_;
}

BouncePool::~BouncePool() {
  ContextGuard guard(context_);
  for (std::size_t i = 0; i < pooled_.size(); ++i) {
    if (pinned_[i])
      (void)cu_check(driver().cuMemHostUnregister(pooled_[i]), kWhere, "cuMemHostUnregister of a bounce buffer");
    std::free(pooled_[i]);
  }
}

bool BouncePool::pooled(const char *p) const {
  return std::find(pooled_.begin(), pooled_.end(), p) != pooled_.end();
}

Status BouncePool::take(const char *op, Block *out) {
  out->reset();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      out->pool_ = this;
      out->data_ = idle_.back();
      idle_.pop_back();
      return Status::ok;
    }
    ++temporaries_;
  }
  char *p = static_cast<char *>(std::aligned_alloc(kPage, block_bytes_));
  if (!p) {
    log_error(op, "no memory for a %zu-byte bounce buffer of the staged path", block_bytes_);
    return Status::out_of_memory;
  }
  out->pool_ = this;
  out->data_ = p;
  return Status::ok;
}

void BouncePool::give(char *p) {
  if (!pooled(p)) {
    std::free(p);
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(p);
}

std::size_t BouncePool::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

std::size_t BouncePool::temporaries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return temporaries_;
}

void BouncePool::Block::reset() {
  if (data_) pool_->give(std::exchange(data_, nullptr));
  pool_ = nullptr;
}

}  // namespace nvshm
