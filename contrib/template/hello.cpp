// SPDX-License-Identifier: BSD-3-Clause
// contrib/template: every PE writes its id into its slot of PE 0's symmetric array; PE 0 checks them.
#include <nvshmem.h>

#include <cstdio>

int main() {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *slots = static_cast<int *>(nvshmem_calloc(n, sizeof(int)));
  nvshmem_barrier_all();
  nvshmem_int_p(slots + me, me + 1, 0);
  nvshmem_barrier_all();
  bool ok = true;
  if (me == 0)
    for (int pe = 0; pe < n; ++pe) ok = ok && slots[pe] == pe + 1;
  if (me == 0) std::printf(ok ? "hello from %d PEs\n" : "wrong slots from %d PEs\n", n);
  nvshmem_free(slots);
  nvshmem_finalize();
  return ok ? 0 : 1;
}
