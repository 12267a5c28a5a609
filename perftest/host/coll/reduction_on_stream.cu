// SPDX-License-Identifier: BSD-3-Clause
/* reduction_on_stream: latency of nvshmemx_*reduction*_on_stream over NVSHMEM_TEAM_WORLD (perftest/common/coll.h). */
#include "coll.h"

int main(int argc, char **argv) {
  return perftest::run_coll_on_stream(argc, argv, "reduction_on_stream",
                                      "on-stream reduction latency (us) and bandwidth", perftest::Coll::reduction);
}
