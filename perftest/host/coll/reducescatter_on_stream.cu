// SPDX-License-Identifier: BSD-3-Clause
/* reducescatter_on_stream: latency of nvshmemx_*reducescatter*_on_stream over NVSHMEM_TEAM_WORLD
 * (perftest/common/coll.h). */
#include "coll.h"

int main(int argc, char **argv) {
  return perftest::run_coll_on_stream(argc, argv, "reducescatter_on_stream",
                                      "on-stream reducescatter latency (us) and bandwidth",
                                      perftest::Coll::reducescatter);
}
