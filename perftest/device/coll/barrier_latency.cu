// SPDX-License-Identifier: BSD-3-Clause
/* barrier_latency: device barrier (NVSHMEM_TEAM_WORLD) and barrier_all latency (us) in thread, warp and block scope,
 * one kernel of -n calls per timed run (perftest/common/coll.cuh). */
#include "coll.cuh"

int main(int argc, char **argv) {
  return perftest::run_coll_device<perftest::Coll::barrier, perftest::Coll::barrier_all>(
      argc, argv, "barrier_latency", "device barrier (NVSHMEM_TEAM_WORLD) and barrier_all latency (us)");
}
