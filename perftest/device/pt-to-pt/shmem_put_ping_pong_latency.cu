// SPDX-License-Identifier: BSD-3-Clause
/* shmem_put_ping_pong_latency: put ping-pong: int_put_nbi, fence, signal_op SET, uint64_wait_until (us)
 * The round structure, timing and output are in perftest/common/ping_pong.cuh. */
#include "ping_pong.cuh"

namespace {
struct Exchange {
  __device__ static void send(const perftest::PingPongArgs &a, uint64_t round) {
    nvshmem_int_put_nbi(a.data, a.source, a.n, a.peer);
    nvshmem_fence();
    nvshmemx_signal_op(a.flag, round, NVSHMEM_SIGNAL_SET, a.peer);
  }
  __device__ static void wait(const perftest::PingPongArgs &a, uint64_t round) {
    nvshmem_uint64_wait_until(a.flag, NVSHMEM_CMP_GE, round);
  }
};
}  // namespace

int main(int argc, char **argv) {
  return perftest::run_ping_pong<Exchange>(argc, argv, "shmem_put_ping_pong_latency",
                                           "put ping-pong: int_put_nbi, fence, signal_op SET, uint64_wait_until (us)",
                                           true);
}
