// SPDX-License-Identifier: BSD-3-Clause
/* shmem_region_nbi_rate: the nonblocking-put issue rate inside RMA regions (NVSHMEM 3.8) against the
 * same puts outside: PE 0's -c x -t threads issue -n nvshmem_putmem_nbi each to PE 1, per block inside
 * nvshmemx_region_start_block(NVSHMEMX_REGION_HINT_BATCH_RMA) / _stop_block, then without a region
 * (perftest/common/nbi_rate.cuh). Columns region_* and plain_*: Mops/s over the grid and GB/s. */
#include "nbi_rate.cuh"

int main(int argc, char **argv) {
  return perftest::run_nbi_rate(
      argc, argv, "shmem_region_nbi_rate",
      "device putmem_nbi issue rate inside BATCH_RMA regions and outside, PE 0 to PE 1 (Mops/s)",
      {{"region", true, NVSHMEMX_REGION_HINT_BATCH_RMA}, {"plain", false, 0}});
}
