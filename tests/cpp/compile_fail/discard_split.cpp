// SPDX-License-Identifier: BSD-3-Clause
// Misuse: dropping the result of a split (the team would be destroyed at once; [[nodiscard]]).
#include <nvshmem/nvshmem.hpp>

void misuse() {
#if defined(NVSHM_CASE_fail)
  nvshmem::Team::world().split_strided(0, 2, 2);
#else
  nvshmem::UniqueTeam evens = nvshmem::Team::world().split_strided(0, 2, 2);
#endif
}
