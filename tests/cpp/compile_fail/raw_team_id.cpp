// SPDX-License-Identifier: BSD-3-Clause
// Misuse: a raw integer where a team unique id is expected (easily confused with the PE count or
// index); the twin names the id type.
#include <nvshmem/nvshmem.hpp>

#include <cstdint>

void misuse(std::uint64_t raw) {
#if defined(NVSHM_CASE_fail)
  nvshmem::UniqueTeam team = nvshmem::UniqueTeam::init(raw, 2, 0);
#else
  nvshmem::UniqueTeam team = nvshmem::UniqueTeam::init(nvshmem::TeamUniqueId(raw), 2, 0);
#endif
}
