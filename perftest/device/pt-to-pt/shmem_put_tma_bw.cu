// SPDX-License-Identifier: BSD-3-Clause
/* shmem_put_tma_bw: block-scope put bandwidth with the TMA data path offered (NVSHMEM 3.7). Each block
 * lends NVSHMEM the shared memory nvshmemx_ask_smem(NVSHMEMX_SMEM_RECOMMENDED) asks for
 * (nvshmemx_give_smem, released before the block ends), then puts its 16-byte aligned slice of the
 * message -n times with nvshmemx_putmem_nbi_block and quiets. The kernel starts with
 * nvshmemx_collective_launch_attr (NVSHMEM 3.8), -c blocks of -t threads. Whether the puts use TMA
 * or loads and stores is NVSHMEM_TMA_POLICY's choice, so the same program measures both paths. With 2
 * PEs PE 0 puts to PE 1 (which verifies); with 1 PE the PE puts to itself. GB/s = size x iterations /
 * kernel time (CUDA events). */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <cstdlib>

#include "perftest.h"

namespace {

constexpr const char *kJob = "shmem_put_tma_bw";

__global__ void put_tma_bw_kernel(char *dest, const char *source, size_t size, size_t slice, int iters, int peer,
                                  size_t smem_bytes) {
  extern __shared__ __align__(16) unsigned char smem[];
  if (smem_bytes) {
    if (threadIdx.x == 0) nvshmemx_give_smem(smem, smem_bytes);
    __syncthreads();
  }
  const size_t begin = static_cast<size_t>(blockIdx.x) * slice;
  if (begin < size) {  // messages smaller than the grid leave blocks idle
    const size_t bytes = size - begin < slice ? size - begin : slice;
    for (int i = 0; i < iters; ++i) nvshmemx_putmem_nbi_block(dest + begin, source + begin, bytes, peer);
  }
  nvshmem_quiet();
  if (smem_bytes) {
    __syncthreads();
    if (threadIdx.x == 0) nvshmemx_release_smem();
  }
}

}  // namespace

int main(int argc, char **argv) {
  const perftest::Options opt = perftest::parse_options(
      argc, argv, kJob, "device putmem_nbi_block bandwidth with TMA offered, PE 0 to PE 1 or to itself (GB/s)",
      perftest::kGrid);
  perftest::init(kJob);
  if (perftest::n_pes() > 2) perftest::fail("needs 1 PE (puts to itself) or 2 (PE 0 to PE 1)");
  perftest::require_device_heap();
  const int me = perftest::my_pe(), receiver = perftest::n_pes() - 1;  // PE 1, or PE 0 itself
  const bool sends = me == 0, receives = me == receiver;
  char *source = static_cast<char *>(nvshmem_malloc(opt.max_size));
  char *dest = static_cast<char *>(nvshmem_malloc(opt.max_size));
  if (!source || !dest)
    perftest::fail("nvshmem_malloc of 2 x %zu bytes failed (raise NVSHMEM_SYMMETRIC_SIZE)", opt.max_size);
  const perftest::Payload payload(opt, source, receives ? 0 : -1);

  const int asked = nvshmemx_ask_smem(NVSHMEMX_SMEM_RECOMMENDED);
  const size_t smem_bytes = asked > 0 ? static_cast<size_t>(asked) : 0;
  if (smem_bytes > 48 * 1024)
    PERFTEST_CUDA_CHECK(cudaFuncSetAttribute(put_tma_bw_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(smem_bytes)));
  if (me == 0) {
    const char *policy = getenv("NVSHMEM_TMA_POLICY");
    printf("%s: NVSHMEM_TMA_POLICY=%s, %zu bytes of shared memory lent per block, %s\n", kJob,
           policy ? policy : "(unset: DISABLE)", smem_bytes,
           perftest::n_pes() == 1 ? "PE 0 to itself" : "PE 0 to PE 1");
  }

  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"bw", "GB/s"}});
  for (size_t size : perftest::sizes(opt)) {
    size_t slice = perftest::block_slice(size, opt.ctas);
    payload.poison(dest, size);
    const double seconds = perftest::time_runs(opt, sends, stream, timer, size, [&](size_t bytes, int iters) {
      nvshmemx_collective_launch_attr_t attr{};
      attr.cuda_config.gridDim = dim3(static_cast<unsigned>(opt.ctas));
      attr.cuda_config.blockDim = dim3(static_cast<unsigned>(opt.threads));
      attr.cuda_config.dynamicSmemBytes = smem_bytes;
      attr.cuda_config.stream = stream;
      size_t smem = smem_bytes;
      void *args[] = {&dest, &source, &bytes, &slice, &iters, const_cast<int *>(&receiver), &smem};
      const int rc = nvshmemx_collective_launch_attr(&attr, reinterpret_cast<const void *>(put_tma_bw_kernel), args);
      if (rc != 0) perftest::fail("nvshmemx_collective_launch_attr returned %d", rc);
    });
    const bool ok = !receives || payload.verify(dest, size);
    const double mine = sends ? perftest::gbps(static_cast<double>(size) * opt.iters, seconds) : 0;
    report.add(size, {perftest::sum_over_pes(mine)}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dest);
  nvshmem_free(source);
  return perftest::finalize();
}
