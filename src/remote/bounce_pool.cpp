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

BouncePool::BouncePool(std::size_t block_bytes, std::size_t keep, CUcontext context)
    : block_bytes_((block_bytes + kPage - 1) / kPage * kPage), keep_(keep), context_(context) {}

BouncePool::~BouncePool() {
  for (char *p : idle_) destroy(p, std::find(pinned_.begin(), pinned_.end(), p) != pinned_.end());
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
  }
  char *p = static_cast<char *>(std::aligned_alloc(kPage, block_bytes_));
  if (!p) {
    log_error(op, "no memory for a %zu-byte bounce buffer of the staged path", block_bytes_);
    return Status::out_of_memory;
  }
  bool pinned = false;
  if (context_) {
    ContextGuard guard(context_);
    const CUresult r = driver().cuMemHostRegister(p, block_bytes_, CU_MEMHOSTREGISTER_PORTABLE);
    pinned = r == CUDA_SUCCESS;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!pinned && !std::exchange(warned_, true)) {
      const char *why = nullptr;
      if (driver().cuGetErrorString(r, &why) != CUDA_SUCCESS || !why) why = "unknown error";
      NVSHM_WARN(kWhere, "page-locking a bounce buffer of the staged path failed (%s): it stays pageable", why);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (pinned) pinned_.push_back(p);
  ++made_;
  out->pool_ = this;
  out->data_ = p;
  return Status::ok;
}

void BouncePool::give(char *p) {
  bool pinned = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.size() < keep_) {
      idle_.push_back(p);
      return;
    }
    const auto it = std::find(pinned_.begin(), pinned_.end(), p);
    pinned = it != pinned_.end();
    if (pinned) pinned_.erase(it);
  }
  destroy(p, pinned);
}

void BouncePool::destroy(char *p, bool pinned) {
  if (pinned) {
    ContextGuard guard(context_);
    (void)cu_check(driver().cuMemHostUnregister(p), kWhere, "cuMemHostUnregister of a bounce buffer");
  }
  std::free(p);
}

std::size_t BouncePool::made() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return made_;
}

std::size_t BouncePool::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

void BouncePool::Block::reset() {
  if (data_) pool_->give(std::exchange(data_, nullptr));
  pool_ = nullptr;
}

}  // namespace nvshm
