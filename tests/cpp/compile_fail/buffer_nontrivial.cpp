// SPDX-License-Identifier: BSD-3-Clause
// Misuse: a symmetric buffer of a type that is not trivially copyable.
#include <nvshmem/nvshmem.hpp>

#include <vector>

#if defined(NVSHM_CASE_fail)
void misuse(const nvshmem::Runtime &rt) {
  auto b = nvshmem::SymmetricBuffer<std::vector<int>>::allocate(rt, 1);
}
#else
void misuse(const nvshmem::Runtime &rt) {
  auto b = nvshmem::SymmetricBuffer<int>::allocate(rt, 1);
}
#endif
