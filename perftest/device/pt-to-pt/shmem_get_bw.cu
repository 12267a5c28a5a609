// SPDX-License-Identifier: BSD-3-Clause
/* shmem_get_bw: bandwidth of device-initiated gets, PE 0 reading PE 1.
 *
 * PE 0 runs -c blocks of -t threads; each block gets its 16-byte aligned slice of the message from
 * PE 1 with nvshmemx_getmem_nbi_block, -n times, then quiet. GB/s = size * iters / kernel time.
 * --bidir: both PEs read from each other; the sum is reported. The reader verifies the data. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_get_bw";

__global__ void get_bw_kernel(char *dest, const char *source, size_t size, size_t slice, int iters, int peer) {
  const size_t begin = static_cast<size_t>(blockIdx.x) * slice;
  if (begin >= size) return;
  const size_t bytes = size - begin < slice ? size - begin : slice;
  for (int i = 0; i < iters; ++i) nvshmemx_getmem_nbi_block(dest + begin, source + begin, bytes, peer);
  nvshmem_quiet();
}
size_t slice_of(size_t size, int ctas) {
  const size_t slice = (size + static_cast<size_t>(ctas) - 1) / static_cast<size_t>(ctas);
  return (slice + 15) / 16 * 16;
}
}  // namespace

int main(int argc, char **argv) {
  perftest::Options opt = perftest::parse_options(argc, argv, kJob, "device getmem_nbi_block bandwidth (GB/s)",
                                                  perftest::kGrid | perftest::kBidir);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe(), peer = 1 - me;
  const bool reads = me == 0 || opt.bidir;
  char *source = static_cast<char *>(nvshmem_malloc(opt.max_size));
  char *dest = static_cast<char *>(nvshmem_malloc(opt.max_size));
  if (!source || !dest) perftest::fail("nvshmem_malloc of 2 x %zu bytes failed", opt.max_size);
  const perftest::Payload payload(opt, source, reads ? peer : -1);
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"bw", "GB/s"}});
  for (size_t size : perftest::sizes(opt)) {
    if (reads) payload.poison(dest, size);
    const double s = perftest::time_runs(opt, reads, stream, timer, size, [&](size_t bytes, int iters) {
      get_bw_kernel<<<opt.ctas, opt.threads, 0, stream>>>(dest, source, bytes, slice_of(bytes, opt.ctas), iters, peer);
      PERFTEST_LAUNCH_CHECK();
    });
    const bool ok = !reads || payload.verify(dest, size);
    const double mine = reads ? perftest::gbps(static_cast<double>(size) * opt.iters, s) : 0;
    report.add(size, {perftest::sum_over_pes(mine)}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dest);
  nvshmem_free(source);
  return perftest::finalize();
}
