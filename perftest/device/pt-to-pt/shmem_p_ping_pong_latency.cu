// SPDX-License-Identifier: BSD-3-Clause
/* shmem_p_ping_pong_latency: int_p ping-pong between two PEs: p of the round number, int_wait_until (us)
 * The round structure, timing and output are in perftest/common/ping_pong.cuh. */
#include "ping_pong.cuh"

namespace {
struct Exchange {
  __device__ static void send(const perftest::PingPongArgs &a, uint64_t round) {
    nvshmem_int_p(a.iflag, static_cast<int>(round), a.peer);
  }
  __device__ static void wait(const perftest::PingPongArgs &a, uint64_t round) {
    nvshmem_int_wait_until(a.iflag, NVSHMEM_CMP_EQ, static_cast<int>(round));
  }
};
}  // namespace

int main(int argc, char **argv) {
  return perftest::run_ping_pong<Exchange>(
      argc, argv, "shmem_p_ping_pong_latency",
      "int_p ping-pong between two PEs: p of the round number, int_wait_until (us)", false);
}
