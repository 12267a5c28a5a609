// SPDX-License-Identifier: BSD-3-Clause
/* alltoall_on_stream: latency of nvshmemx_*alltoall*_on_stream over NVSHMEM_TEAM_WORLD (perftest/common/coll.h). */
#include "coll.h"

int main(int argc, char **argv) {
  return perftest::run_coll_on_stream(argc, argv, "alltoall_on_stream", "on-stream alltoall latency (us) and bandwidth",
                                      perftest::Coll::alltoall);
}
