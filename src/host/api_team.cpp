// SPDX-License-Identifier: BSD-3-Clause
// Team management entry points (NVSHMEM docs: "Team Management"); the table is src/team.
#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

extern "C" {

int nvshmem_team_my_pe(nvshmem_team_t team) {
  const Team *t = require_init("nvshmem_team_my_pe").teams->find(team);
  return t ? t->my_index : -1;
}

int nvshmem_team_n_pes(nvshmem_team_t team) {
  const Team *t = require_init("nvshmem_team_n_pes").teams->find(team);
  return t ? t->size : -1;
}

int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team) {
  return require_init("nvshmem_team_translate_pe").teams->translate(src_team, src_pe, dest_team);
}

int nvshmem_team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                               const nvshmem_team_config_t *config, long config_mask, nvshmem_team_t *new_team) {
  constexpr const char *kCall = "nvshmem_team_split_strided";
  Runtime &rt = require_init(kCall);
  if (!new_team) fatal(kCall, "new_team is NULL");
  ContextGuard guard(rt.context);
  return rt.teams->split_strided(parent_team, start, stride, size, config, config_mask, new_team, kCall) == Status::ok
             ? 0
             : 1;
}

int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange, const nvshmem_team_config_t *xaxis_config,
                          long xaxis_mask, nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                          long yaxis_mask, nvshmem_team_t *yaxis_team) {
  constexpr const char *kCall = "nvshmem_team_split_2d";
  Runtime &rt = require_init(kCall);
  if (!xaxis_team || !yaxis_team) fatal(kCall, "xaxis_team or yaxis_team is NULL");
  ContextGuard guard(rt.context);
  return rt.teams->split_2d(parent_team, xrange, xaxis_config, xaxis_mask, xaxis_team, yaxis_config, yaxis_mask,
                            yaxis_team, kCall) == Status::ok
             ? 0
             : 1;
}

void nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config) {
  constexpr const char *kCall = "nvshmem_team_get_config";
  const Team &t = require_team(require_init(kCall), team, kCall);
  if (!config) fatal(kCall, "config is NULL");
  *config = t.config;
}

void nvshmem_team_destroy(nvshmem_team_t team) {
  constexpr const char *kCall = "nvshmem_team_destroy";
  Runtime &rt = require_init(kCall);
  ContextGuard guard(rt.context);
  (void)rt.teams->destroy(team, kCall);  // failures are reported there; the call has no status
}

int nvshmemx_team_get_uniqueid(nvshmemx_team_uniqueid_t *uniqueid) {
  constexpr const char *kCall = "nvshmemx_team_get_uniqueid";
  Runtime &rt = require_init(kCall);
  ContextGuard guard(rt.context);
  return rt.teams->make_uniqueid(uniqueid, kCall) == Status::ok ? NVSHMEMX_SUCCESS : NVSHMEMX_ERROR_INVALID_VALUE;
}

int nvshmemx_team_init(nvshmem_team_t *team, nvshmem_team_config_t *config, long config_mask, int npes,
                       int pe_idx_in_team) {
  constexpr const char *kCall = "nvshmemx_team_init";
  Runtime &rt = require_init(kCall);
  if (!team) fatal(kCall, "team is NULL");
  ContextGuard guard(rt.context);
  return rt.teams->init_from_uniqueid(config, config_mask, npes, pe_idx_in_team, team, kCall) == Status::ok ? 0 : 1;
}

}  // extern "C"
