// SPDX-License-Identifier: BSD-3-Clause
// Misuse: a typed generic call with a type that has no typed C function (use putmem).
#include <nvshmem/nvshmem.hpp>

struct Pair {
  int a, b;
};
#if defined(NVSHM_CASE_fail)
void misuse(Pair *d, const Pair *s) {
  nvshmem::put(d, s, 1, 0);
}
#else
void misuse(int *d, const int *s) {
  nvshmem::put(d, s, 1, 0);
}
#endif
