// SPDX-License-Identifier: BSD-3-Clause
// Memory management routines (NVSHMEM docs: "Memory Management Routines"). All collective.
#include <limits>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

namespace {
// nvshmem_malloc and nvshmem_calloc align every block to 256 bytes, as cudaMalloc does: a block
// then starts on a 128-byte cache line, so a warp's coalesced access to it touches as few lines (and
// NVLink writes) as it can; a block of at least 2 MiB (the GPU heap's page) starts on a 2 MiB
// boundary: the grid's slices of a large buffer then lie alike in every page (docs/architecture.md,
// decision 2; 1 MiB block puts 16% faster, docs/history/benchmarks.md, session 42).
constexpr std::size_t kMallocAlignment = 256, kLargeBlock = std::size_t{2} << 20;
std::size_t malloc_alignment(std::size_t bytes) {
  return bytes >= kLargeBlock ? kLargeBlock : kMallocAlignment;
}

void *allocate(const char *call, std::size_t bytes, std::size_t alignment, bool zero) {
  Runtime &rt = require_init(call);
  void *ptr = nullptr;
  ContextGuard guard(rt.context);
  // Also for 0 bytes (NULL on every PE): the cross-PE check must see every PE's request.
  Status st = rt.heap->allocate(*rt.boot, bytes, alignment, call, &ptr);
  if (st != Status::ok || !ptr) return nullptr;
  if (zero) {
    // Zero our copy, then wait for every PE, so no peer's put lands before the zeroing.
    require_ok(rt.heap->zero(ptr, bytes), call);
    require_ok(rt.boot->barrier(), call);
  }
  return ptr;
}
}  // namespace

extern "C" {

void *nvshmem_malloc(size_t size) {
  return allocate("nvshmem_malloc", size, malloc_alignment(size), false);
}

void *nvshmem_calloc(size_t count, size_t size) {
  if (size && count > std::numeric_limits<size_t>::max() / size) {
    log_error("nvshmem_calloc", "count %zu times size %zu overflows size_t", count, size);
    return nullptr;
  }
  return allocate("nvshmem_calloc", count * size, malloc_alignment(count * size), true);
}

void *nvshmem_align(size_t alignment, size_t size) {
  return allocate("nvshmem_align", size, alignment, false);
}

void nvshmem_free(void *ptr) {
  const char *call = "nvshmem_free";
  Runtime &rt = require_init(call);
  if (!ptr) return;
  ContextGuard guard(rt.context);
  require_ok(quiet_pe(rt, call), call);
  (void)rt.heap->release(*rt.boot, ptr, call);
}

void *nvshmem_ptr(const void *dest, int pe) {
  Runtime &rt = require_init("nvshmem_ptr");
  if (pe < 0 || pe >= rt.boot->size()) return nullptr;
  return rt.heap->translate(dest, pe);
}

void *nvshmemx_mc_ptr(nvshmem_team_t team, const void *ptr) {
  const char *call = "nvshmemx_mc_ptr";
  Runtime &rt = require_init(call);
  NVSHM_INFO(call, "no multicast address for %p in team %d: %s", ptr, team,
             rt.env.disable_nvls ? "NVLink multicast is disabled by NVSHMEM_DISABLE_NVLS"
                                 : "this version does not use NVLink multicast (NVLS); nvshmem_ptr gives each PE's "
                                   "address");
  return nullptr;
}

}  // extern "C"
