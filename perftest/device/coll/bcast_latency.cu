// SPDX-License-Identifier: BSD-3-Clause
/* bcast_latency: device broadcast latency (us) and bandwidth over NVSHMEM_TEAM_WORLD, root 0 in thread, warp and block
 * scope, one kernel of -n calls per timed run (perftest/common/coll.cuh). */
#include "coll.cuh"

int main(int argc, char **argv) {
  return perftest::run_coll_device<perftest::Coll::broadcast>(
      argc, argv, "bcast_latency", "device broadcast latency (us) and bandwidth over NVSHMEM_TEAM_WORLD, root 0");
}
