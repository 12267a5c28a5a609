/* shmem_get_latency: latency of one thread's device getmem (blocking) by PE 0 from PE 1.
 *
 * One thread of PE 0 calls nvshmem_getmem then nvshmem_quiet, -n times; latency = kernel time /
 * iterations (microseconds). The receiving side verifies the data. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_get_latency";

__global__ void get_kernel(char *dest, const char *source, size_t size, int iters, int peer) {
  for (int i = 0; i < iters; ++i) {
    nvshmem_getmem(dest, source, size, peer);
    nvshmem_quiet();
  }
}
}  // namespace

int main(int argc, char **argv) {
  perftest::Options opt = perftest::parse_options(argc, argv, kJob, "device getmem latency, one thread (us)", 0);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe();
  char *source = static_cast<char *>(nvshmem_malloc(opt.max_size));
  char *dest = static_cast<char *>(nvshmem_malloc(opt.max_size));
  if (!source || !dest) perftest::fail("nvshmem_malloc of 2 x %zu bytes failed", opt.max_size);
  // put: PE 1 receives PE 0's data; get: PE 0 receives PE 1's data (into its symmetric dest).
  const int receiver = 0;
  const perftest::Payload payload(opt, source, me == receiver ? 1 - me : -1);
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"latency", "us", true}});
  for (size_t size : perftest::sizes(opt)) {
    if (me == receiver) payload.poison(dest, size);
    const double s = perftest::time_runs(opt, me == 0, stream, timer, size, [&](size_t bytes, int iters) {
      get_kernel<<<1, 1, 0, stream>>>(dest, source, bytes, iters, 1);
      PERFTEST_LAUNCH_CHECK();
    });
    const bool ok = me != receiver || payload.verify(dest, size);
    report.add(size, {perftest::sum_over_pes(s) / opt.iters * 1e6}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dest);
  nvshmem_free(source);
  return perftest::finalize();
}
