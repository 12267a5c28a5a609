// SPDX-License-Identifier: BSD-3-Clause
/* lat: latency of host-initiated blocking operations from PE 0 to PE 1 (microseconds per operation).
 *
 * For each size PE 0 times -n operations of each kind, -r runs, and reports the medians:
 * put_quiet: nvshmem_putmem + nvshmem_quiet (the data is in PE 1's heap), get: nvshmem_getmem,
 * fadd: nvshmem_uint64_atomic_fetch_add on one word (the same 8-byte operation in every row). PE 1 only
 * waits in the barriers; between PEs on other nodes (or with NVSHMEM_DISABLE_P2P=1) these are the remote
 * engine's round trips (docs/remote.md). PE 1 verifies the last size's data. Runs on the CPU backend. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <vector>

#include "perftest.h"

namespace {
constexpr const char *kJob = "lat";
}  // namespace

int main(int argc, char **argv) {
  const perftest::Options opt = perftest::parse_options(
      argc, argv, kJob, "host putmem+quiet, getmem and fetch_add latency from PE 0 to PE 1 (us)", 0);
  perftest::init(kJob);
  perftest::require_pes(2);
  const int me = perftest::my_pe();

  char *source = static_cast<char *>(nvshmem_malloc(opt.max_size));
  char *dest = static_cast<char *>(nvshmem_malloc(opt.max_size));
  auto *word = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  if (!source || !dest || !word)
    perftest::fail("nvshmem_malloc of 2 x %zu bytes failed (raise NVSHMEM_SYMMETRIC_SIZE)", opt.max_size);
  const perftest::Payload payload(opt, source, me == 1 ? 0 : -1);
  std::vector<char> got(opt.max_size);
  uint64_t adds = 0;

  // Microseconds per call on PE 0.
  auto time_op = [&](auto &&op) { return perftest::pe0_seconds_per_call(opt, op) * 1e6; };

  perftest::Report report(kJob, {{"put_quiet", "us", true}, {"get", "us", true}, {"fadd", "us", true}});
  for (size_t size : perftest::sizes(opt)) {
    payload.poison(dest, size);
    const double put_us = time_op([&] {
      nvshmem_putmem(dest, source, size, 1);
      nvshmem_quiet();
    });
    const bool ok = me != 1 || payload.verify(dest, size);
    const double get_us = time_op([&] { nvshmem_getmem(got.data(), source, size, 1); });
    const double fadd_us = time_op([&] {
      if (nvshmem_uint64_atomic_fetch_add(word, 1, 1) != adds) perftest::fail("fetch_add returned a wrong value");
      ++adds;
    });
    report.add(size, {put_us, get_us, fadd_us}, ok);
  }
  // PE 1's word counts every fetch_add PE 0 made, and each returned the count before it.
  if (me == 0 && nvshmem_uint64_atomic_fetch(word, 1) != adds)
    perftest::fail("PE 1's counter is %llu after %llu fetch_adds",
                   static_cast<unsigned long long>(nvshmem_uint64_atomic_fetch(word, 1)),
                   static_cast<unsigned long long>(adds));
  nvshmem_free(word);
  nvshmem_free(dest);
  nvshmem_free(source);
  return perftest::finalize();
}
