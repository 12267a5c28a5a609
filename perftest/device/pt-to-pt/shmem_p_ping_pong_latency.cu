/* shmem_p_ping_pong_latency: int_p ping-pong between two PEs: p of the round number, int_wait_until (us)
 *
 * Both PEs run one thread: PE 0 sends, then waits for PE 1's answer; PE 1 waits, then answers; -n
 * round trips per kernel. Flags carry the round number (never reset: each launch continues the
 * count), so no round can be mistaken for another. Latency = kernel time / iterations / 2 (half a
 * round trip, microseconds), measured on PE 0. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <vector>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_p_ping_pong_latency";

__global__ void ping_pong(int *data, const int *source, size_t n, uint64_t *flag, int *iflag, int iters, uint64_t base,
                          int me, int peer) {
  (void)data;
  (void)source;
  (void)n;
  (void)iflag;
  for (int i = 0; i < iters; ++i) {
    const uint64_t v = base + static_cast<uint64_t>(i) + 1;
    if (me == 0) {
      nvshmem_int_p(iflag, static_cast<int>(v), peer);
      nvshmem_int_wait_until(iflag, NVSHMEM_CMP_EQ, static_cast<int>(v));
    } else {
      nvshmem_int_wait_until(iflag, NVSHMEM_CMP_EQ, static_cast<int>(v));
      nvshmem_int_p(iflag, static_cast<int>(v), peer);
    }
  }
}
}  // namespace

int main(int argc, char **argv) {
  perftest::Options opt = perftest::parse_options(
      argc, argv, kJob, "int_p ping-pong between two PEs: p of the round number, int_wait_until (us)", 0);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe(), peer = 1 - me;
  const size_t cap = opt.max_size < 8 ? 8 : opt.max_size;
  int *source = static_cast<int *>(nvshmem_malloc(cap));
  int *data = static_cast<int *>(nvshmem_malloc(cap));
  uint64_t *flag = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  if (!source || !data || !flag) perftest::fail("nvshmem_malloc failed");
  int *iflag = reinterpret_cast<int *>(flag + 1);
  const perftest::Payload payload(opt, source, peer);
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"latency", "us", true}});
  uint64_t base = 0;  // rounds launched so far, the same on both PEs
  std::vector<size_t> sizes = perftest::sizes(opt);
  if (!0) sizes = {sizeof(uint64_t)};
  for (size_t size : sizes) {
    const size_t n = size / sizeof(int) ? size / sizeof(int) : 1;
    if (0) payload.poison(data, n * sizeof(int));
    perftest::barrier_all();
    const double s = perftest::time_runs(opt, true, stream, timer, size, [&](size_t, int iters) {
      ping_pong<<<1, 1, 0, stream>>>(data, source, n, flag, iflag, iters, base, me, peer);
      PERFTEST_LAUNCH_CHECK();
      base += static_cast<uint64_t>(iters);
    });
    const bool ok = !0 || payload.verify(data, n * sizeof(int));
    report.add(0 ? n * sizeof(int) : size, {perftest::sum_over_pes(me == 0 ? s : 0) / opt.iters / 2 * 1e6}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(flag);
  nvshmem_free(data);
  nvshmem_free(source);
  return perftest::finalize();
}
