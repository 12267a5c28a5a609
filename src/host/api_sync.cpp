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
// barrier (quiet_first: quiet, then sync) and team_sync of the host API.
Status host_team_barrier(nvshmem_team_t team, bool quiet_first, const char *call) {
  Runtime &rt = require_init(call);
  ContextGuard guard(rt.context);
  if (quiet_first) NVSHM_TRY(quiet_pe(rt, call));
  return rt.teams->sync(team, call);
}
}  // namespace

extern "C" {

void nvshmem_quiet(void) {
  Runtime &rt = require_init("nvshmem_quiet");
  ContextGuard guard(rt.context);
  require_ok(quiet_pe(rt, "nvshmem_quiet"), "nvshmem_quiet");
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
  return host_team_barrier(team, true, "nvshmem_barrier") == Status::ok ? 0 : 1;
}

int nvshmem_team_sync(nvshmem_team_t team) {
  return host_team_barrier(team, false, "nvshmem_team_sync") == Status::ok ? 0 : 1;
}

void nvshmem_barrier_all(void) {
  require_ok(host_team_barrier(NVSHMEM_TEAM_WORLD, true, "nvshmem_barrier_all"), "nvshmem_barrier_all");
}

void nvshmem_sync_all(void) {
  require_ok(host_team_barrier(NVSHMEM_TEAM_WORLD, false, "nvshmem_sync_all"), "nvshmem_sync_all");
}

}  // extern "C"
