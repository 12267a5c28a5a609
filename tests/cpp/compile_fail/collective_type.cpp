// SPDX-License-Identifier: BSD-3-Clause
// Misuse: a typed collective with a type outside NVSHM_FOR_EACH_COLL_TYPE (use broadcastmem).
#include <nvshmem/nvshmem.hpp>

struct Pair {
  int a, b;
};
#if defined(NVSHM_CASE_fail)
void misuse(Pair *d, const Pair *s) {
  nvshmem::broadcast(nvshmem::Team::world(), d, s, 1, 0);
}
#else
void misuse(int *d, const int *s) {
  nvshmem::broadcast(nvshmem::Team::world(), d, s, 1, 0);
}
#endif
