// SPDX-License-Identifier: BSD-3-Clause
/* shmem_put_bw: bandwidth of device-initiated puts between two PEs.
 *
 * PE 0 runs a kernel of -c blocks of -t threads; each block puts its contiguous, 16-byte aligned
 * slice of the message to PE 1 with nvshmemx_putmem_nbi_block, -n times, then every thread calls
 * nvshmem_quiet. GB/s = size * iters / kernel time (CUDA events). --bidir: both PEs run the kernel
 * towards each other at once; the sum of the two is reported. PE 1 verifies the data. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

#include "perftest.h"

namespace {

constexpr const char *kJob = "shmem_put_bw";

__global__ void put_bw_kernel(char *dest, const char *source, size_t size, size_t slice, int iters, int peer) {
  const size_t begin = static_cast<size_t>(blockIdx.x) * slice;
  if (begin >= size) return;  // the whole block: messages smaller than the grid leave blocks idle
  const size_t bytes = size - begin < slice ? size - begin : slice;
  for (int i = 0; i < iters; ++i) nvshmemx_putmem_nbi_block(dest + begin, source + begin, bytes, peer);
  nvshmem_quiet();
}

}  // namespace

int main(int argc, char **argv) {
  const perftest::Options opt =
      perftest::parse_options(argc, argv, kJob, "device putmem_nbi_block bandwidth from PE 0 to PE 1 (GB/s)",
                              perftest::kGrid | perftest::kBidir);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();

  const int me = perftest::my_pe();
  const int peer = 1 - me;
  const bool sends = me == 0 || opt.bidir;
  const bool receives = me == 1 || opt.bidir;

  char *source = static_cast<char *>(nvshmem_malloc(opt.max_size));
  char *dest = static_cast<char *>(nvshmem_malloc(opt.max_size));
  if (!source || !dest)
    perftest::fail("nvshmem_malloc of 2 x %zu bytes failed (raise NVSHMEM_SYMMETRIC_SIZE)", opt.max_size);
  const perftest::Payload payload(opt, source, receives ? peer : -1);

  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  auto launch = [&](size_t size, int iters) {
    put_bw_kernel<<<opt.ctas, opt.threads, 0, stream>>>(dest, source, size, perftest::block_slice(size, opt.ctas),
                                                        iters, peer);
    PERFTEST_LAUNCH_CHECK();
  };

  perftest::Report report(kJob, {{"bw", "GB/s"}});
  for (size_t size : perftest::sizes(opt)) {
    payload.poison(dest, size);
    nvshmem_barrier_all();
    if (sends && opt.warmup > 0) {
      launch(size, opt.warmup);
      PERFTEST_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    std::vector<double> seconds;
    for (int run = 0; run < opt.runs; ++run) {
      nvshmem_barrier_all();
      if (!sends) continue;
      timer.start(stream);
      launch(size, opt.iters);
      seconds.push_back(timer.stop_seconds(stream));
    }
    nvshmem_barrier_all();  // the puts are complete (quiet in the kernel); the receiver may look
    const bool ok = !receives || payload.verify(dest, size);
    const double mine = sends ? perftest::gbps(static_cast<double>(size) * opt.iters, perftest::median(seconds)) : 0;
    report.add(size, {perftest::sum_over_pes(mine)}, ok);
  }

  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dest);
  nvshmem_free(source);
  return perftest::finalize();
}
