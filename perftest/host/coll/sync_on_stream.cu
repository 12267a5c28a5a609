// SPDX-License-Identifier: BSD-3-Clause
/* sync_on_stream: latency of nvshmemx_*sync*_on_stream over NVSHMEM_TEAM_WORLD (perftest/common/coll.h). */
#include "coll.h"

int main(int argc, char **argv) {
  return perftest::run_coll_on_stream(argc, argv, "sync_on_stream", "on-stream sync latency (us) and bandwidth",
                                      perftest::Coll::sync);
}
