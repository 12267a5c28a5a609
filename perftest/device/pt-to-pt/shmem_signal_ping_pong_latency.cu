// SPDX-License-Identifier: BSD-3-Clause
/* shmem_signal_ping_pong_latency: signal ping-pong: signal_op SET, signal_wait_until (us)
 * The round structure, timing and output are in perftest/common/ping_pong.cuh. */
#include "ping_pong.cuh"

namespace {
struct Exchange {
  __device__ static void send(const perftest::PingPongArgs &a, uint64_t round) {
    nvshmemx_signal_op(a.flag, round, NVSHMEM_SIGNAL_SET, a.peer);
  }
  __device__ static void wait(const perftest::PingPongArgs &a, uint64_t round) {
    nvshmem_signal_wait_until(a.flag, NVSHMEM_CMP_GE, round);
  }
};
}  // namespace

int main(int argc, char **argv) {
  return perftest::run_ping_pong<Exchange>(argc, argv, "shmem_signal_ping_pong_latency",
                                           "signal ping-pong: signal_op SET, signal_wait_until (us)", false);
}
