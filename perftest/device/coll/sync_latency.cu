// SPDX-License-Identifier: BSD-3-Clause
/* sync_latency: device team_sync (NVSHMEM_TEAM_WORLD) and sync_all latency (us) in thread, warp and block scope, one
 * kernel of -n calls per timed run (perftest/common/coll.cuh). */
#include "coll.cuh"

int main(int argc, char **argv) {
  return perftest::run_coll_device<perftest::Coll::sync, perftest::Coll::sync_all>(
      argc, argv, "sync_latency", "device team_sync (NVSHMEM_TEAM_WORLD) and sync_all latency (us)");
}
