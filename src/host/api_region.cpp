// SPDX-License-Identifier: BSD-3-Clause
// RMA regions of the host (NVSHMEM 3.8, "Regions"): the bookkeeping and errors NVIDIA documents. The
// transports here (peer loads and stores, CUDA copies, host memcpy) batch nothing, so BATCH_RMA is
// recorded and changes no transfer (docs/compatibility.md, "NVSHMEM 3.5 to 3.8").
#include <mutex>

#include "common/log.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

namespace {
constexpr uint32_t kKnownHints = NVSHMEMX_REGION_HINT_BATCH_RMA;

// INVALID_VALUE with a message naming the call and the unknown bits, unless `hints` holds only known ones.
bool hints_known(const char *call, uint32_t hints) {
  if ((hints & ~kKnownHints) == 0) return true;
  log_error(call, "hints 0x%x has bits no NVSHMEMX_REGION_HINT_* names (0x%x)", hints, hints & ~kKnownHints);
  return false;
}
}  // namespace

extern "C" {

int nvshmemx_region_start(nvshmemx_region_handle_t *handle, const nvshmemx_region_attrs_t *attrs) {
  const char *call = "nvshmemx_region_start";
  Runtime &rt = require_init(call);
  const uint32_t hints = attrs ? attrs->hints : static_cast<uint32_t>(NVSHMEMX_REGION_HINT_NONE);
  if (!handle) {
    log_error(call, "handle is NULL");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  if (!hints_known(call, hints)) return NVSHMEMX_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(rt.region_mutex);
  if (rt.region != 0) {
    log_error(call, "region %llu is still open on this PE (one host region at a time: nvshmemx_region_stop it first)",
              static_cast<unsigned long long>(rt.region));
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  rt.region = ++rt.regions_opened;
  rt.region_hints = hints;
  *handle = rt.region;
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_region_stop(nvshmemx_region_handle_t handle) {
  const char *call = "nvshmemx_region_stop";
  Runtime &rt = require_init(call);
  std::lock_guard<std::mutex> lock(rt.region_mutex);
  if (handle == 0 || handle != rt.region) {
    if (rt.region == 0)
      log_error(call, "handle %llu does not name the open region: no region is open on this PE",
                static_cast<unsigned long long>(handle));
    else
      log_error(call, "handle %llu does not name the open region, %llu", static_cast<unsigned long long>(handle),
                static_cast<unsigned long long>(rt.region));
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  rt.region = 0;
  rt.region_hints = 0;
  return NVSHMEMX_SUCCESS;
}

int nvshmemx_region_is_active(uint32_t hints, int *active) {
  const char *call = "nvshmemx_region_is_active";
  Runtime &rt = require_init(call);
  if (!active) {
    log_error(call, "active is NULL");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  if (!hints_known(call, hints)) return NVSHMEMX_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(rt.region_mutex);
  *active = rt.region != 0 && (rt.region_hints & hints) == hints;
  return NVSHMEMX_SUCCESS;
}

}  // extern "C"
