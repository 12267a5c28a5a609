// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/driver.hpp"

#include <cuda_runtime_api.h>

#include <mutex>

#include "common/log.hpp"

namespace nvshm {
namespace {
Driver g_driver;
Status g_load_status = Status::internal;
std::once_flag g_once;
}  // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

Status driver_load(const char *caller) {
  std::call_once(g_once, [] {
    g_load_status = Status::ok;
#define NVSHM_DRIVER_RESOLVE(name)                                                                       \
  {                                                                                                      \
    void *fn = nullptr;                                                                                  \
    cudaDriverEntryPointQueryResult found;                                                               \
    if (cudaGetDriverEntryPointByVersion(#name, &fn, 12000, cudaEnableDefault, &found) != cudaSuccess || \
        found != cudaDriverEntryPointSuccess || !fn) {                                                   \
      (void)cudaGetLastError();                                                                          \
      g_load_status = Status::no_gpu;                                                                    \
    } else {                                                                                             \
      g_driver.name = reinterpret_cast<decltype(g_driver.name)>(fn);                                     \
    }                                                                                                    \
  }
    NVSHM_DRIVER_FUNCTIONS(NVSHM_DRIVER_RESOLVE)
#undef NVSHM_DRIVER_RESOLVE
  });
  if (g_load_status != Status::ok)
    log_error(caller,
              "the CUDA driver could not be loaded (no GPU driver on this machine?); "
              "GPU features are unavailable");
  return g_load_status;
}

const Driver &driver() {
  return g_driver;
}

Status cu_check(CUresult r, const char *where, const char *what) {
  if (r == CUDA_SUCCESS) return Status::ok;
  const char *msg = nullptr;
  if (!g_driver.cuGetErrorString || g_driver.cuGetErrorString(r, &msg) != CUDA_SUCCESS || !msg) msg = "unknown error";
  log_error(where, "%s failed: %s (CUresult %d)", what, msg, static_cast<int>(r));
  return r == CUDA_ERROR_OUT_OF_MEMORY ? Status::out_of_memory : Status::internal;
}

}  // namespace nvshm

namespace nvshm {
void ContextGuard::enter(CUcontext ctx) {
  if (driver().cuCtxGetCurrent(&previous_) != CUDA_SUCCESS || previous_ == ctx) return;
  switched_ = driver().cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
}
void ContextGuard::leave() {
  driver().cuCtxSetCurrent(previous_);
}
}  // namespace nvshm
