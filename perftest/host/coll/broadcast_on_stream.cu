// SPDX-License-Identifier: BSD-3-Clause
/* broadcast_on_stream: latency of nvshmemx_*broadcast*_on_stream over NVSHMEM_TEAM_WORLD (perftest/common/coll.h). */
#include "coll.h"

int main(int argc, char **argv) {
  return perftest::run_coll_on_stream(argc, argv, "broadcast_on_stream",
                                      "on-stream broadcast latency (us) and bandwidth", perftest::Coll::broadcast);
}
