// SPDX-License-Identifier: BSD-3-Clause
/* The ping-pong latency tests' shared kernel and main: PE 0 sends, then waits for PE 1's answer;
 * PE 1 waits, then answers; -n round trips per kernel. Rounds carry their number (flags are never
 * reset: each launch continues the count), so no round can be mistaken for another. Latency = kernel
 * time / iterations / 2 (half a round trip, microseconds), measured on PE 0. A test supplies an
 * Exchange with `send(args, round)` and `wait(args, round)` (device, one thread). Public API only. */
#ifndef PERFTEST_PING_PONG_CUH
#define PERFTEST_PING_PONG_CUH

#include <nvshmem.h>
#include <nvshmemx.h>

#include <vector>

#include "perftest.h"

namespace perftest {

struct PingPongArgs {
  int *data;          // symmetric: receives the message (tests with data)
  const int *source;  // symmetric: the message
  size_t n;           // ints per message
  uint64_t *flag;     // symmetric signal word
  int *iflag;         // symmetric int word (tests that signal with int_p)
  int peer;
};

template <typename Exchange>
__global__ void ping_pong_kernel(PingPongArgs a, int iters, uint64_t base, int me) {
  for (int i = 0; i < iters; ++i) {
    const uint64_t round = base + static_cast<uint64_t>(i) + 1;
    if (me == 0) {
      Exchange::send(a, round);
      Exchange::wait(a, round);
    } else {
      Exchange::wait(a, round);
      Exchange::send(a, round);
    }
  }
}

/* The whole program of a ping-pong test. with_data: sweep message sizes (-b/-e/-f) and verify what
 * arrived; otherwise one 8-byte point. */
template <typename Exchange>
int run_ping_pong(int argc, char **argv, const char *job, const char *what, bool with_data) {
  const Options opt = parse_options(argc, argv, job, what, 0);
  init(job);
  require_pes(2);
  require_device_heap();
  const int me = my_pe(), peer = 1 - me;
  const size_t cap = opt.max_size < 8 ? 8 : opt.max_size;
  int *source = static_cast<int *>(nvshmem_malloc(cap));
  int *data = static_cast<int *>(nvshmem_malloc(cap));
  uint64_t *flag = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  if (!source || !data || !flag) fail("nvshmem_malloc failed");
  const Payload payload(opt, source, peer);
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GpuTimer timer;
  Report report(job, {{"latency", "us", true}});
  uint64_t base = 0;  // rounds launched so far, the same on both PEs
  const std::vector<size_t> points = with_data ? sizes(opt) : std::vector<size_t>{sizeof(uint64_t)};
  for (size_t size : points) {
    const size_t n = size / sizeof(int) ? size / sizeof(int) : 1;
    if (with_data) payload.poison(data, n * sizeof(int));
    barrier_all();
    const PingPongArgs args{data, source, n, flag, reinterpret_cast<int *>(flag + 1), peer};
    const double s = time_runs(opt, true, stream, timer, size, [&](size_t, int iters) {
      ping_pong_kernel<Exchange><<<1, 1, 0, stream>>>(args, iters, base, me);
      PERFTEST_LAUNCH_CHECK();
      base += static_cast<uint64_t>(iters);
    });
    const bool ok = !with_data || payload.verify(data, n * sizeof(int));
    report.add(with_data ? n * sizeof(int) : size, {sum_over_pes(me == 0 ? s : 0) / opt.iters / 2 * 1e6}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(flag);
  nvshmem_free(data);
  nvshmem_free(source);
  return finalize();
}

}  // namespace perftest

#endif /* PERFTEST_PING_PONG_CUH */
