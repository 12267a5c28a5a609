// SPDX-License-Identifier: BSD-3-Clause
// The CUDA driver API, reached through the runtime's entry-point query, never by linking
// libcuda.so: the host library must load on machines without a GPU driver (docs/architecture.md, decision 4).
// May use: common/. See src/cuda/README.md.
#pragma once
#include <cuda.h>

#include "common/status.hpp"

namespace nvshm {

#define NVSHM_DRIVER_FUNCTIONS(X)           \
  X(cuGetErrorString)                       \
  X(cuDeviceGet)                            \
  X(cuDeviceGetAttribute)                   \
  X(cuDevicePrimaryCtxRetain)               \
  X(cuDevicePrimaryCtxRelease)              \
  X(cuCtxGetCurrent)                        \
  X(cuCtxSetCurrent)                        \
  X(cuCtxGetDevice)                         \
  X(cuMemCreate)                            \
  X(cuMemRelease)                           \
  X(cuMemExportToShareableHandle)           \
  X(cuMemImportFromShareableHandle)         \
  X(cuMemAddressReserve)                    \
  X(cuMemAddressFree)                       \
  X(cuMemMap)                               \
  X(cuMemUnmap)                             \
  X(cuMemSetAccess)                         \
  X(cuMemGetAllocationGranularity)          \
  X(cuMemcpy)                               \
  X(cuMemcpyAsync)                          \
  X(cuMemcpyHtoD)                           \
  X(cuMemsetD8)                             \
  X(cuStreamCreate)                         \
  X(cuStreamDestroy)                        \
  X(cuStreamSynchronize)                    \
  X(cuStreamIsCapturing)                    \
  X(cuEventCreate)                          \
  X(cuEventDestroy)                         \
  X(cuEventRecord)                          \
  X(cuStreamWaitEvent)                      \
  X(cuModuleGetGlobal)                      \
  X(cuCtxSynchronize)                       \
  X(cuModuleGetLoadingMode)                 \
  X(cuPointerGetAttribute)                  \
  X(cuMemRetainAllocationHandle)            \
  X(cuMemGetAllocationPropertiesFromHandle) \
  X(cuMemGetAddressRange)                   \
  X(cuMemHostRegister)                      \
  X(cuMemHostUnregister)                    \
  X(cuLibraryGetGlobal)

struct Driver {
#define NVSHM_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  NVSHM_DRIVER_FUNCTIONS(NVSHM_DRIVER_MEMBER)
#undef NVSHM_DRIVER_MEMBER
};

// Number of GPUs the CUDA runtime sees; 0 without a driver or GPU (never fails).
int cuda_device_count();
// Resolve every driver function once; Status::no_gpu with a message if the driver is missing.
Status driver_load(const char *caller);
const Driver &driver();

// Check a driver call: on failure log "<what> failed: <CUDA error string>" under `where`.
Status cu_check(CUresult r, const char *where, const char *what);

}  // namespace nvshm

#define NVSHM_CU(where, call) NVSHM_TRY(::nvshm::cu_check(::nvshm::driver().call, where, #call))

namespace nvshm {
// Makes `ctx` current on this thread for the guard's life and restores the previous context after
// (host API calls may come from any thread).
// Inline when there is no context (a host heap: every host API call passes here).
class ContextGuard {
 public:
  explicit ContextGuard(CUcontext ctx) {
    if (ctx) enter(ctx);
  }
  ~ContextGuard() {
    if (switched_) leave();
  }
  ContextGuard(const ContextGuard &) = delete;
  ContextGuard &operator=(const ContextGuard &) = delete;

 private:
  void enter(CUcontext ctx);
  void leave();
  CUcontext previous_ = nullptr;
  bool switched_ = false;
};
}  // namespace nvshm
