// SPDX-License-Identifier: BSD-3-Clause
/* bw: bandwidth of host-initiated non-blocking puts between two PEs.
 *
 * PE 0 calls nvshmem_putmem_nbi of each size to PE 1 -n times, then nvshmem_quiet; the run is timed
 * on the steady clock, GB/s = size * iters / time. Beside it PE 0 times memcpy of the same size
 * between two private buffers of this process, and prints the ratio put/memcpy (the CPU backend's
 * target: at least 0.8 from 1 MiB up). --bidir: both PEs put at once; the sum is reported (and the
 * ratio is then against one memcpy). PE 1 verifies the data. Runs on the CPU backend (no GPU). */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstring>
#include <vector>

#include "perftest.h"

namespace {

constexpr const char *kJob = "bw";

/* Keeps the compiler from merging or dropping the repeated copies of the memcpy loop. */
inline void compiler_barrier() {
  asm volatile("" ::: "memory");
}

}  // namespace

int main(int argc, char **argv) {
  const perftest::Options opt = perftest::parse_options(
      argc, argv, kJob, "host putmem_nbi bandwidth from PE 0 to PE 1 (GB/s), beside memcpy", perftest::kBidir);
  perftest::init(kJob);
  perftest::require_pes(2);

  const int me = perftest::my_pe();
  const int peer = 1 - me;
  const bool sends = me == 0 || opt.bidir;
  const bool receives = me == 1 || opt.bidir;

  char *source = static_cast<char *>(nvshmem_malloc(opt.max_size));
  char *dest = static_cast<char *>(nvshmem_malloc(opt.max_size));
  if (!source || !dest)
    perftest::fail("nvshmem_malloc of 2 x %zu bytes failed (raise NVSHMEM_SYMMETRIC_SIZE)", opt.max_size);
  const perftest::Payload payload(opt, source, receives ? peer : -1);

  // memcpy reference: two private buffers, touched first so page faults stay out of the timing.
  std::vector<char> copy_from(me == 0 ? opt.max_size : 0, 1), copy_to(me == 0 ? opt.max_size : 0, 2);

  auto put_run = [&](size_t size, int iters) {
    for (int i = 0; i < iters; ++i) nvshmem_putmem_nbi(dest, source, size, peer);
    nvshmem_quiet();
  };
  auto memcpy_run = [&](size_t size, int iters) {
    for (int i = 0; i < iters; ++i) {
      memcpy(copy_to.data(), copy_from.data(), size);
      compiler_barrier();
    }
  };

  perftest::Report report(kJob, {{"bw", "GB/s"}, {"memcpy_bw", "GB/s"}, {"ratio", "x"}});
  for (size_t size : perftest::sizes(opt)) {
    const double bytes = static_cast<double>(size) * opt.iters;
    payload.poison(dest, size);
    nvshmem_barrier_all();
    if (sends) put_run(size, opt.warmup);
    std::vector<double> seconds;
    for (int run = 0; run < opt.runs; ++run) {
      nvshmem_barrier_all();
      if (sends) seconds.push_back(perftest::host_seconds([&] { put_run(size, opt.iters); }));
    }
    nvshmem_barrier_all();  // the puts are complete (quiet); the receiver may look
    const bool ok = !receives || payload.verify(dest, size);
    const double put_gbps = perftest::sum_over_pes(sends ? perftest::gbps(bytes, perftest::median(seconds)) : 0.0);

    double memcpy_gbps = 0;
    if (me == 0) {
      memcpy_run(size, opt.warmup);
      std::vector<double> copy_seconds;
      for (int run = 0; run < opt.runs; ++run)
        copy_seconds.push_back(perftest::host_seconds([&] { memcpy_run(size, opt.iters); }));
      memcpy_gbps = perftest::gbps(bytes, perftest::median(copy_seconds));
    }
    report.add(size, {put_gbps, memcpy_gbps, memcpy_gbps > 0 ? put_gbps / memcpy_gbps : 0.0}, ok);
  }

  nvshmem_free(dest);
  nvshmem_free(source);
  return perftest::finalize();
}
