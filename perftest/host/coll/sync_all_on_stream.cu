// SPDX-License-Identifier: BSD-3-Clause
/* sync_all_on_stream: latency of nvshmemx_*sync_all*_on_stream over NVSHMEM_TEAM_WORLD (perftest/common/coll.h). */
#include "coll.h"

int main(int argc, char **argv) {
  return perftest::run_coll_on_stream(argc, argv, "sync_all_on_stream", "on-stream sync_all latency (us) and bandwidth",
                                      perftest::Coll::sync_all);
}
