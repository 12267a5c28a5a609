// SPDX-License-Identifier: BSD-3-Clause
// The start of a probe that runs as 2 PEs under nvshmrun: initialise the library, check the PE count.
#ifndef NVSHM_PROBE_PES_CUH
#define NVSHM_PROBE_PES_CUH

#include <nvshmem.h>
#include <cstdio>
#include <cstdlib>

// Returns this PE's number; ends the job unless it has exactly 2 PEs.
inline int probe_start_two_pes() {
  nvshmem_init();
  const int me = nvshmem_my_pe();
  if (nvshmem_n_pes() != 2) {
    if (me == 0) printf("run with 2 PEs\n");
    nvshmem_finalize();
    exit(1);
  }
  return me;
}

#endif
