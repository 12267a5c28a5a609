// SPDX-License-Identifier: BSD-3-Clause
// Host ordering and synchronisation: quiet, fence, and the team barrier / sync whose WORLD case is
// barrier_all / sync_all (docs/teams.md, "Host synchronisation").
#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/coll_host.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

namespace {
// barrier = quiet + sync. Returns the status; the C entry points decide between a code and abort.
Status team_barrier(nvshmem_team_t team, bool quiet_first, const char *call) {
  Runtime &rt = require_init(call);
  ContextGuard guard(rt.context);
  if (quiet_first) NVSHM_TRY(rt.peers->quiet());
  return rt.teams->sync(team, call);
}
}  // namespace

namespace nvshm {
Status proxy_collective(const nvshm_proxy_request &r) {
  if (r.aux != NVSHM_PROXY_COLL_BARRIER && r.aux != NVSHM_PROXY_COLL_SYNC) {
    log_error("proxy", "a device collective request of kind %u is not one of this library's", r.aux);
    return Status::invalid_value;
  }
  return team_barrier(r.pe, r.aux == NVSHM_PROXY_COLL_BARRIER,
                      r.aux == NVSHM_PROXY_COLL_BARRIER ? "nvshmem_barrier (device, through the proxy)"
                                                        : "nvshmem_team_sync (device, through the proxy)");
}
}  // namespace nvshm

extern "C" {

void nvshmem_quiet(void) {
  Runtime &rt = require_init("nvshmem_quiet");
  ContextGuard guard(rt.context);
  require_ok(rt.peers->quiet(), "nvshmem_quiet");
}

void nvshmem_fence(void) {
  Runtime &rt = require_init("nvshmem_fence");
  ContextGuard guard(rt.context);
  require_ok(rt.peers->fence(), "nvshmem_fence");
}

// Local completion of this PE's nonblocking host puts: their copies are complete, which is quiet here.
void nvshmemx_flush(void) {
  Runtime &rt = require_init("nvshmemx_flush");
  ContextGuard guard(rt.context);
  require_ok(rt.transport->quiet(), "nvshmemx_flush");
}

int nvshmem_barrier(nvshmem_team_t team) {
  return team_barrier(team, true, "nvshmem_barrier") == Status::ok ? 0 : 1;
}

int nvshmem_team_sync(nvshmem_team_t team) {
  return team_barrier(team, false, "nvshmem_team_sync") == Status::ok ? 0 : 1;
}

void nvshmem_barrier_all(void) {
  require_ok(team_barrier(NVSHMEM_TEAM_WORLD, true, "nvshmem_barrier_all"), "nvshmem_barrier_all");
}

void nvshmem_sync_all(void) {
  require_ok(team_barrier(NVSHMEM_TEAM_WORLD, false, "nvshmem_sync_all"), "nvshmem_sync_all");
}

}  // extern "C"
