// SPDX-License-Identifier: BSD-3-Clause
// Misuse: dropping the team made from a unique id (it would be destroyed at once; [[nodiscard]]).
#include <nvshmem/nvshmem.hpp>

void misuse(nvshmem::TeamUniqueId id) {
#if defined(NVSHM_CASE_fail)
  nvshmem::UniqueTeam::init(id, 2, 0);
#else
  nvshmem::UniqueTeam team = nvshmem::UniqueTeam::init(id, 2, 0);
#endif
}
