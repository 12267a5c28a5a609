// SPDX-License-Identifier: BSD-3-Clause
// User buffers (NVSHMEM docs: "Memory Management Routines", buffer registration).
//
// Local buffers (nvshmemx_buffer_register): our transports are CUDA copies, peer loads/stores and
// host memcpy, which accept any local buffer, so a registration is never required for RMA. It
// records the validated range and, on a GPU heap, page-locks pageable host memory
// (cuMemHostRegister, portable and device-mapped) so copies from and to it run asynchronously and
// kernels can address it. Memory CUDA already knows (device, managed, pinned) is recorded only.
// When the job has remote PEs the remote engine maps it too (UCX: ucp_mem_map, docs/remote.md), so
// that operations to remote PEs with their local side in it pass the registration.
//
// Symmetric buffers (nvshmemx_buffer_register_symmetric): the application's cuMemCreate
// allocation is mapped into every node PE's slot of the symmetric address range
// (SymmetricHeap::register_buffer), so host and device translate its alias like heap memory.
#include <cstdint>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

namespace {
// Page-lock [p, p+bytes) unless CUDA already knows the memory; false (after a warning) when it
// cannot, which leaves the buffer usable as pageable memory.
bool pin_if_pageable(const Runtime &rt, void *p, std::size_t bytes, const char *call) {
  if (!rt.on_device()) return false;
  CUmemorytype type;
  if (driver().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(p)) ==
      CUDA_SUCCESS)
    return false;
  const CUresult r = driver().cuMemHostRegister(p, bytes, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
  if (r != CUDA_SUCCESS) {
    const char *why = nullptr;
    if (driver().cuGetErrorString(r, &why) != CUDA_SUCCESS || !why) why = "unknown error";
    NVSHM_WARN(call, "could not page-lock [%p, +%zu) (%s): the buffer stays pageable (copies through it are staged)", p,
               bytes, why);
    return false;
  }
  return true;
}

void unpin(Runtime &rt, Runtime::UserBuffer &b, const char *start, const char *call) {
  if (RemoteEngine *remote = rt.peers->remote()) remote->unregister_local(const_cast<char *>(start));
  if (b.pinned) (void)cu_check(driver().cuMemHostUnregister(const_cast<char *>(start)), call, "cuMemHostUnregister");
  b.pinned = false;
}

// Complete this PE's RMA, which may still read or write a buffer about to be unregistered.
Status complete_operations(Runtime &rt, const char *call) {
  NVSHM_TRY(quiet_pe(rt, call));
  if (rt.on_device()) NVSHM_CU(call, cuCtxSynchronize());
  return Status::ok;
}
}  // namespace

namespace nvshm {
void unregister_user_buffers(Runtime &rt) {
  std::lock_guard<std::mutex> lock(rt.buffers_mutex);
  for (auto &b : rt.buffers) unpin(rt, b.second, b.first, "nvshmemx_buffer_unregister_all");
  rt.buffers.clear();
}
}  // namespace nvshm

extern "C" {

int nvshmemx_buffer_register(void *addr, size_t length) {
  const char *call = "nvshmemx_buffer_register";
  Runtime &rt = require_init(call);
  const char *start = static_cast<const char *>(addr);
  if (!addr || length == 0 || reinterpret_cast<uintptr_t>(addr) > UINTPTR_MAX - length) {
    log_error(call,
              "addr=%p length=%zu: a buffer needs a non-NULL address and 1 or more bytes inside the address space",
              addr, length);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  const char *end = start + length;
  if (rt.heap->overlaps_slots(addr, length)) {
    log_error(call, "[%p, %p) overlaps the symmetric heap or a symmetric buffer, which need no registration", addr,
              static_cast<const void *>(end));
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  ContextGuard guard(rt.context);
  std::lock_guard<std::mutex> lock(rt.buffers_mutex);
  auto next = rt.buffers.upper_bound(start);
  auto overlapping = rt.buffers.end();
  if (next != rt.buffers.end() && next->first < end) overlapping = next;
  if (next != rt.buffers.begin() && std::prev(next)->first + std::prev(next)->second.bytes > start)
    overlapping = std::prev(next);
  if (overlapping != rt.buffers.end()) {
    log_error(call, "[%p, %p) overlaps the registered buffer [%p, %p); unregister that one first", addr,
              static_cast<const void *>(end), static_cast<const void *>(overlapping->first),
              static_cast<const void *>(overlapping->first + overlapping->second.bytes));
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  if (RemoteEngine *remote = rt.peers->remote()) {
    const Status st = remote->register_local(addr, length, call);
    if (st != Status::ok) return to_nvshmemx_status(st);
  }
  rt.buffers[start] = Runtime::UserBuffer{length, pin_if_pageable(rt, addr, length, call)};
  NVSHM_INFO(call, "registered [%p, %p)%s", addr, static_cast<const void *>(end),
             rt.buffers[start].pinned ? " (page-locked)" : "");
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_buffer_unregister(void *addr) {
  const char *call = "nvshmemx_buffer_unregister";
  Runtime &rt = require_init(call);
  ContextGuard guard(rt.context);
  std::lock_guard<std::mutex> lock(rt.buffers_mutex);
  auto it = rt.buffers.find(static_cast<const char *>(addr));
  if (it == rt.buffers.end()) {
    log_error(call, "addr=%p is not the start of a buffer registered with nvshmemx_buffer_register", addr);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  const Status st = complete_operations(rt, call);
  if (st != Status::ok) return to_nvshmemx_status(st);
  unpin(rt, it->second, it->first, call);
  rt.buffers.erase(it);
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_buffer_unregister_all(void) {
  const char *call = "nvshmemx_buffer_unregister_all";
  Runtime &rt = require_init(call);
  ContextGuard guard(rt.context);
  const Status st = complete_operations(rt, call);
  if (st != Status::ok) return to_nvshmemx_status(st);
  unregister_user_buffers(rt);
  return NVSHMEMX_SUCCESS;
}

namespace {
void *register_symmetric(const char *call, void *buf_ptr, size_t size, const void *preferred, int flags) {
  Runtime &rt = require_init(call);
  Status st = Status::ok;
  if (flags != 0) {
    log_error(call, "flags=%d: no flags are defined; pass 0", flags);
    st = Status::invalid_value;
  } else if (!buf_ptr || size == 0) {
    log_error(call, "buf_ptr=%p size=%zu: a buffer needs a non-NULL address and 1 or more bytes", buf_ptr, size);
    st = Status::invalid_value;
  }
  if (agree(*rt.boot, st) != Status::ok) return nullptr;
  ContextGuard guard(rt.context);
  void *alias = nullptr;
  if (rt.heap->register_buffer(*rt.boot, buf_ptr, size, preferred, call, &alias) != Status::ok) return nullptr;
  NVSHM_INFO(call, "%zu bytes at %p are symmetric at %p", size, buf_ptr, alias);
  return alias;
}
}  // namespace

void *nvshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags) {
  return register_symmetric("nvshmemx_buffer_register_symmetric", buf_ptr, size, nullptr, flags);
}

void *nvshmemx_buffer_register_symmetric_at_preferred_address(void *buf_ptr, size_t size, void *preferred_addr,
                                                              int flags) {
  return register_symmetric("nvshmemx_buffer_register_symmetric_at_preferred_address", buf_ptr, size, preferred_addr,
                            flags);
}

int nvshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size) {
  const char *call = "nvshmemx_buffer_unregister_symmetric";
  Runtime &rt = require_init(call);
  ContextGuard guard(rt.context);
  const Status st = agree(*rt.boot, complete_operations(rt, call));
  if (st != Status::ok) return to_nvshmemx_status(st);
  return to_nvshmemx_status(rt.heap->unregister_buffer(*rt.boot, mmap_ptr, size, call));
}

}  // extern "C"
