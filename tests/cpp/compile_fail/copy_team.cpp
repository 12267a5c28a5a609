// SPDX-License-Identifier: BSD-3-Clause
// Misuse: copying an owned team (each copy would destroy it); the twin moves it.
#include <nvshmem/nvshmem.hpp>

#include <utility>

void misuse(nvshmem::UniqueTeam &team) {
#if defined(NVSHM_CASE_fail)
  nvshmem::UniqueTeam other = team;
#else
  nvshmem::UniqueTeam other = std::move(team);
#endif
}
