// SPDX-License-Identifier: BSD-3-Clause
/* barrier_all_on_stream: latency of nvshmemx_*barrier_all*_on_stream over NVSHMEM_TEAM_WORLD
 * (perftest/common/coll.h). */
#include "coll.h"

int main(int argc, char **argv) {
  return perftest::run_coll_on_stream(argc, argv, "barrier_all_on_stream",
                                      "on-stream barrier_all latency (us) and bandwidth", perftest::Coll::barrier_all);
}
