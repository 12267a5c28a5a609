// SPDX-License-Identifier: BSD-3-Clause
/* shmem_flush_bench: what local completion (nvshmemx_flush_block, NVSHMEM 3.7) costs against remote
 * completion (nvshmem_quiet). PE 0 runs -c blocks of -t threads; each iteration, each block puts its
 * 16-byte aligned slice of the message to PE 1 with nvshmemx_putmem_nbi_block, then completes it: with
 * nvshmemx_flush_block (the source may be reused) in the first kernel, with nvshmem_quiet and a block
 * barrier (the data is at PE 1) in the second. Reported: microseconds per iteration of each, and the
 * flush kernel's GB/s. PE 1 verifies the data after each kernel's runs. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {

constexpr const char *kJob = "shmem_flush_bench";

template <bool kFlush>
__global__ void put_then_complete(char *dest, const char *source, size_t size, size_t slice, int iters, int peer) {
  const size_t begin = static_cast<size_t>(blockIdx.x) * slice;
  if (begin >= size) return;  // the whole block: messages smaller than the grid leave blocks idle
  const size_t bytes = size - begin < slice ? size - begin : slice;
  for (int i = 0; i < iters; ++i) {
    nvshmemx_putmem_nbi_block(dest + begin, source + begin, bytes, peer);
    if (kFlush) {
      nvshmemx_flush_block();
    } else {
      nvshmem_quiet();
      __syncthreads();
    }
  }
  nvshmem_quiet();
}

}  // namespace

int main(int argc, char **argv) {
  const perftest::Options opt = perftest::parse_options(
      argc, argv, kJob, "device put_nbi_block then flush_block, against then quiet, PE 0 to PE 1 (us)",
      perftest::kGrid);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe(), peer = 1 - me;
  char *source = static_cast<char *>(nvshmem_malloc(opt.max_size));
  char *dest = static_cast<char *>(nvshmem_malloc(opt.max_size));
  if (!source || !dest)
    perftest::fail("nvshmem_malloc of 2 x %zu bytes failed (raise NVSHMEM_SYMMETRIC_SIZE)", opt.max_size);
  const perftest::Payload payload(opt, source, me == 1 ? 0 : -1);
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"flush", "us", true}, {"quiet", "us", true}, {"flush_bw", "GB/s"}});
  for (size_t size : perftest::sizes(opt)) {
    const size_t slice = perftest::block_slice(size, opt.ctas);
    bool ok = true;
    double seconds[2] = {0, 0};
    for (int quiet = 0; quiet < 2; ++quiet) {
      payload.poison(dest, size);
      seconds[quiet] = perftest::time_runs(opt, me == 0, stream, timer, size, [&](size_t bytes, int iters) {
        if (quiet)
          put_then_complete<false><<<opt.ctas, opt.threads, 0, stream>>>(dest, source, bytes, slice, iters, peer);
        else
          put_then_complete<true><<<opt.ctas, opt.threads, 0, stream>>>(dest, source, bytes, slice, iters, peer);
        PERFTEST_LAUNCH_CHECK();
      });
      ok = (me != 1 || payload.verify(dest, size)) && ok;
    }
    const double us_flush = me == 0 ? seconds[0] / opt.iters * 1e6 : 0;
    const double us_quiet = me == 0 ? seconds[1] / opt.iters * 1e6 : 0;
    const double bw = me == 0 ? perftest::gbps(static_cast<double>(size) * opt.iters, seconds[0]) : 0;
    report.add(size, {perftest::sum_over_pes(us_flush), perftest::sum_over_pes(us_quiet), perftest::sum_over_pes(bw)},
               ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dest);
  nvshmem_free(source);
  return perftest::finalize();
}
