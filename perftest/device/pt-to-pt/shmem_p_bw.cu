/* shmem_p_bw: device int_p bandwidth from PE 0 to PE 1, every thread one element at a time (GB/s)
 *
 * PE 0 runs -c blocks of -t threads over size/4 ints (grid-stride), -n times, then quiet.
 * GB/s = size * iters / kernel time (CUDA events). The receiving side verifies the data. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_p_bw";

__global__ void bw_kernel(int *dest, const int *source, size_t n, int iters, int peer, int *sink) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int i = 0; i < iters; ++i)
    for (size_t j = first; j < n; j += stride) nvshmem_int_p(dest + j, source[j], peer);
  nvshmem_quiet();
  (void)sink;
}
}  // namespace

int main(int argc, char **argv) {
  perftest::Options opt = perftest::parse_options(
      argc, argv, kJob, "device int_p bandwidth from PE 0 to PE 1, every thread one element at a time (GB/s)",
      perftest::kGrid);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe();
  int *source = static_cast<int *>(nvshmem_malloc(opt.max_size));
  int *dest = static_cast<int *>(nvshmem_malloc(opt.max_size));
  int *sink = nullptr;
  if (!source || !dest) perftest::fail("nvshmem_malloc of 2 x %zu bytes failed", opt.max_size);
  PERFTEST_CUDA_CHECK(cudaMalloc(&sink, sizeof(int)));
  const int receiver = 1;
  const perftest::Payload payload(opt, source, me == receiver ? 1 - me : -1);
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"bw", "GB/s"}});
  for (size_t size : perftest::sizes(opt)) {
    const size_t n = size / sizeof(int) ? size / sizeof(int) : 1;
    if (me == receiver) payload.poison(dest, n * sizeof(int));
    const double s = perftest::time_runs(opt, me == 0, stream, timer, size, [&](size_t, int iters) {
      bw_kernel<<<opt.ctas, opt.threads, 0, stream>>>(dest, source, n, iters, 1, sink);
      PERFTEST_LAUNCH_CHECK();
    });
    const bool ok = me != receiver || payload.verify(dest, n * sizeof(int));
    const double mine = me == 0 ? perftest::gbps(static_cast<double>(n * sizeof(int)) * opt.iters, s) : 0;
    report.add(n * sizeof(int), {perftest::sum_over_pes(mine)}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  PERFTEST_CUDA_CHECK(cudaFree(sink));
  nvshmem_free(dest);
  nvshmem_free(source);
  return perftest::finalize();
}
