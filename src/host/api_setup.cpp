// SPDX-License-Identifier: BSD-3-Clause
// Library setup, exit and query routines (NVSHMEM docs: "Library Setup, Exit, and Query Routines"),
// the unique-id helpers and driver-API module registration.
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

namespace {
// Driver-API modules and libraries (cubin, PTX, NVRTC): write the runtime's device state into the
// unit's state variable (publish) or clear it, found by `get_global` (cuModuleGetGlobal or
// cuLibraryGetGlobal) in the runtime's context.
template <typename Handle>
int set_unit_state(const char *call, const char *unit,
                   CUresult (*get_global)(CUdeviceptr *, size_t *, Handle, const char *), Handle handle, bool publish) {
  Runtime &rt = require_init(call);
  if (publish && !rt.on_device()) {
    log_error(call, "the symmetric heap is in host memory: kernels cannot use the device interface");
    return NVSHMEMX_ERROR_NOT_SUPPORTED;
  }
  if (!handle) {
    log_error(call, "the %s is NULL", unit);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  ContextGuard guard(rt.context);
  CUdeviceptr address = 0;
  size_t bytes = 0;
  if (get_global(&address, &bytes, handle, NVSHM_DEVICE_STATE_SYMBOL) != CUDA_SUCCESS) {
    log_error(call, "the %s has no '%s' symbol: it was not compiled with nvshmem.h", unit, NVSHM_DEVICE_STATE_SYMBOL);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  if (bytes != sizeof rt.device_state) {
    log_error(call, "the %s's device state has %zu bytes, this library's %zu: rebuild it with these headers", unit,
              bytes, sizeof rt.device_state);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  const nvshm_device_state cleared{};
  return to_nvshmemx_status(
      cu_check(driver().cuMemcpyHtoD(address, publish ? &rt.device_state : &cleared, bytes), call, "cuMemcpyHtoD"));
}
}  // namespace

extern "C" {

void nvshmem_init(void) {
  require_ok(runtime_init(0, nullptr), "nvshmem_init");
}

int nvshmem_init_thread(int requested, int *provided) {
  (void)requested;
  require_ok(runtime_init(0, nullptr), "nvshmem_init_thread");
  if (provided) *provided = NVSHMEM_THREAD_MULTIPLE;
  return 0;
}

void nvshmem_query_thread(int *provided) {
  if (provided) *provided = NVSHMEM_THREAD_MULTIPLE;
}

int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
  if ((flags & NVSHMEMX_INIT_WITH_UNIQUEID) && !attr) {
    log_error("nvshmemx_init_attr", "NVSHMEMX_INIT_WITH_UNIQUEID needs attr (see nvshmemx_set_attr_uniqueid_args)");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  return to_nvshmemx_status(runtime_init(flags, attr));
}

int nvshmemx_hostlib_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
  return nvshmemx_init_attr(flags, attr);
}

void nvshmemx_hostlib_finalize(void) {
  runtime_finalize();
}

int nvshmemx_init_status(void) {
  const Runtime *rt = runtime();
  if (!rt) return NVSHMEM_STATUS_NOT_INITIALIZED;
  if (rt->gpu_sharing.pes == 1) return NVSHMEM_STATUS_IS_INITIALIZED;
  return rt->gpu_sharing.full ? NVSHMEM_STATUS_FULL_MPG : NVSHMEM_STATUS_LIMITED_MPG;
}

NVSHM_API int nvshm_collective_grid_share(void) {
  const Runtime *rt = runtime();
  return rt ? rt->gpu_sharing.grid_share : 1;
}

// Where the job has PEs on other nodes and the heap is on the GPU, this PE's engine applies their atomics to
// its GPU with a one-thread kernel (docs/remote.md, "Atomics on a GPU heap"), which must find room beside the
// PE's co-resident grids: they leave one SM's worth of blocks free.
NVSHM_API int nvshm_collective_reserved_sms(void) {
  const Runtime *rt = runtime();
  return rt && rt->proxy && rt->on_device() ? 1 : 0;
}

void nvshmem_finalize(void) {
  runtime_finalize();
}

void nvshmem_global_exit(int status) {
  fprintf(stderr, "nvshmem_global_exit(%d) called by PE %d: ending the job\n", status, log_pe());
  fflush(nullptr);
  // Under nvshmrun the launcher then stops every PE with this status (also 0); elsewhere the other
  // PEs learn of it when their next bootstrap call fails.
  if (Runtime *rt = runtime()) rt->boot->request_global_exit(status);
  _exit(status);
}

int nvshmem_my_pe(void) {
  return require_init("nvshmem_my_pe").boot->rank();
}
int nvshmem_n_pes(void) {
  return require_init("nvshmem_n_pes").boot->size();
}

void nvshmem_info_get_version(int *major, int *minor) {
  *major = NVSHMEM_MAJOR_VERSION;
  *minor = NVSHMEM_MINOR_VERSION;
}

void nvshmem_info_get_name(char *name) {
  snprintf(name, NVSHMEM_MAX_NAME_LEN, "%s", NVSHMEM_VENDOR_STRING);
}

int nvshmemx_ask_smem(nvshmemx_smem_amount_t flag) {
  if (flag != NVSHMEMX_SMEM_RECOMMENDED && flag != NVSHMEMX_SMEM_MINIMUM && flag != NVSHMEMX_SMEM_BARRIERS_ONLY)
    log_error("nvshmemx_ask_smem", "flag %d is not an nvshmemx_smem_amount_t (RECOMMENDED, MINIMUM, BARRIERS_ONLY)",
              static_cast<int>(flag));
  return NVSHM_TMA_SMEM_BYTES(flag);
}

void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch) {
  *major = NVSHMEM_VENDOR_MAJOR_VERSION;
  *minor = NVSHMEM_VENDOR_MINOR_VERSION;
  *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}

int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *uniqueid) {
  if (!uniqueid) {
    log_error("nvshmemx_get_uniqueid", "uniqueid is NULL");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  Env env;
  Status st = env_load(&env);
  if (st == Status::ok) st = uid_generate(env, uniqueid);
  return to_nvshmemx_status(st);
}

int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks, const nvshmemx_uniqueid_t *uniqueid,
                                    nvshmemx_init_attr_t *attr) {
  if (!attr || !uniqueid || nranks <= 0 || myrank < 0 || myrank >= nranks) {
    log_error("nvshmemx_set_attr_uniqueid_args", "invalid arguments (rank %d of %d, id %p, attr %p)", myrank, nranks,
              static_cast<const void *>(uniqueid), static_cast<void *>(attr));
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  attr->args.uid_args.id = const_cast<nvshmemx_uniqueid_t *>(uniqueid);
  attr->args.uid_args.myrank = myrank;
  attr->args.uid_args.nranks = nranks;
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_set_attr_mpi_comm_args(void *mpi_comm, nvshmemx_init_attr_t *attr) {
  if (!attr || !mpi_comm) {
    log_error("nvshmemx_set_attr_mpi_comm_args", "invalid arguments (mpi_comm %p, attr %p)", mpi_comm,
              static_cast<void *>(attr));
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  attr->mpi_comm = mpi_comm;
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_cumodule_init(CUmodule module) {
  return set_unit_state("nvshmemx_cumodule_init", "module", driver().cuModuleGetGlobal, module, true);
}
int nvshmemx_cumodule_finalize(CUmodule module) {
  return set_unit_state("nvshmemx_cumodule_finalize", "module", driver().cuModuleGetGlobal, module, false);
}
int nvshmemx_culibrary_init(CUlibrary library) {
  return set_unit_state("nvshmemx_culibrary_init", "library", driver().cuLibraryGetGlobal, library, true);
}
int nvshmemx_culibrary_finalize(CUlibrary library) {
  return set_unit_state("nvshmemx_culibrary_finalize", "library", driver().cuLibraryGetGlobal, library, false);
}

}  // extern "C"
