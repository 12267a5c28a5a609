// SPDX-License-Identifier: BSD-3-Clause
/* alltoall_latency: device alltoall latency (us) and bandwidth over NVSHMEM_TEAM_WORLD in thread, warp and block scope,
 * one kernel of -n calls per timed run (perftest/common/coll.cuh). */
#include "coll.cuh"

int main(int argc, char **argv) {
  return perftest::run_coll_device<perftest::Coll::alltoall>(
      argc, argv, "alltoall_latency", "device alltoall latency (us) and bandwidth over NVSHMEM_TEAM_WORLD");
}
