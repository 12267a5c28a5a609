// SPDX-License-Identifier: BSD-3-Clause
// Helpers of the multi-PE host-interface tests: they run under nvshmrun on either heap kind, so
// they reach their own heap only through NVSHMEM calls (a self-put or self-get), never by
// dereferencing a symmetric pointer.
#pragma once
#include <gtest/gtest.h>
#include <nvshmem.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace pe_test {

inline std::vector<unsigned char> random_bytes(std::size_t n, int pe, int salt) {
  std::mt19937_64 rng(static_cast<uint64_t>(pe) * 1000003u + static_cast<uint64_t>(salt) * 7919u + 3);
  std::vector<unsigned char> v(n);
  for (auto &b : v) b = static_cast<unsigned char>(rng());
  return v;
}

inline void write_local(void *sym, const void *src, std::size_t n) {
  nvshmem_putmem(sym, src, n, nvshmem_my_pe());
}
inline std::vector<unsigned char> read_local(const void *sym, std::size_t n) {
  std::vector<unsigned char> v(n);
  nvshmem_getmem(v.data(), sym, n, nvshmem_my_pe());
  return v;
}
inline void poison_local(void *sym, std::size_t n) {
  std::vector<unsigned char> p(n, 0xA5);
  write_local(sym, p.data(), n);
}

// The job's topology as the test expects it: one host, or the fake hosts of tests/multipe/fake_hosts.sh,
// which sets PE_TEST_PES_PER_HOST (PEs in blocks of that many per host). NVSHMEM_DISABLE_P2P=1 (the
// forced-remote runs) maps no peer, so NVSHMEM_TEAM_SHARED is this PE alone and nvshmem_ptr is NULL for
// every other PE; otherwise a host's PEs are mapped.
inline bool p2p_disabled() {
  const char *v = getenv("NVSHMEM_DISABLE_P2P");
  return v && (v[0] == '1' || v[0] == 'y' || v[0] == 'Y' || v[0] == 't' || v[0] == 'T');
}
inline int pes_per_host() {
  const char *v = getenv("PE_TEST_PES_PER_HOST");
  return v ? atoi(v) : nvshmem_n_pes();
}
// NVSHMEMX_TEAM_NODE: this PE's host.
inline std::vector<int> node_pes() {
  const int k = pes_per_host(), first = nvshmem_my_pe() / k * k;
  std::vector<int> pes;
  for (int pe = first; pe < first + k && pe < nvshmem_n_pes(); ++pe) pes.push_back(pe);
  return pes;
}
// NVSHMEMX_TEAM_SAME_MYPE_NODE: the PE with this PE's host index on every host.
inline std::vector<int> same_index_pes() {
  const int k = pes_per_host();
  std::vector<int> pes;
  for (int pe = nvshmem_my_pe() % k; pe < nvshmem_n_pes(); pe += k) pes.push_back(pe);
  return pes;
}
inline std::vector<int> shared_pes() {
  return p2p_disabled() ? std::vector<int>{nvshmem_my_pe()} : node_pes();
}
inline bool peer_mapped(int pe) {
  for (int p : shared_pes())
    if (p == pe) return true;
  return false;
}

// main() for multi-PE gtest binaries: init, run, finalize.
inline int pe_test_main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  nvshmem_init();
  const int status = RUN_ALL_TESTS();
  nvshmem_finalize();
  return status;
}

}  // namespace pe_test
