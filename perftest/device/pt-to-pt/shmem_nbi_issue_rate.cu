// SPDX-License-Identifier: BSD-3-Clause
/* shmem_nbi_issue_rate: how many nonblocking puts per second the device issues. PE 0's -c x -t threads
 * each issue -n nvshmem_putmem_nbi of one message size to PE 1, then quiet (perftest/common/nbi_rate.cuh);
 * Mops/s over the grid and the payload's GB/s, per size. Sweep small sizes: -b 8 -e 4k. */
#include "nbi_rate.cuh"

int main(int argc, char **argv) {
  return perftest::run_nbi_rate(argc, argv, "shmem_nbi_issue_rate",
                                "device putmem_nbi issue rate, every thread of the grid, PE 0 to PE 1 (Mops/s)",
                                {{"nbi", false, 0}});
}
