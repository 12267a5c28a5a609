// SPDX-License-Identifier: BSD-3-Clause
// Probe: what does one host nvshmem_sync_all, nvshmem_barrier_all and 1-element nvshmem_int_sum_reduce,
// and a 1 MiB nvshmem_broadcastmem from PE 0 and 1 MiB nvshmem_int_sum_reduce over NVSHMEM_TEAM_WORLD
// cost per call? Every PE times 15 batches of 200 calls (20 of the 1 MiB ones) after a warm-up; PE 0
// prints the median batch's time per call and the best batch's. Results are checked on every PE. Runs as
// n PEs under nvshmrun on the CPU backend (no GPU): forced remote, or across fake hosts (docs/teams.md,
// docs/collectives-host.md).
// With the argument `sweep` it times instead nvshmem_broadcastmem and nvshmem_fcollectmem (that many bytes
// from each PE) from 16 KiB to 1 MiB, 10 calls a batch: run with NVSHMEM_HOST_COLL_RELAY_MIN=0 and =1t, it
// shows where moving data through node leaders starts to pay.
#include <nvshmem.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr int kBatches = 15;
constexpr std::size_t kBroadcastBytes = 1 << 20;

// Microseconds per call: {median batch, best batch}.
std::pair<double, double> time_calls(const std::function<void()> &call, int batch = 200) {
  for (int i = 0; i < 20; ++i) call();
  std::vector<double> us;
  for (int b = 0; b < kBatches; ++b) {
    nvshmem_barrier_all();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) call();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / batch);
  }
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front()};
}

// The sweep: us per call (median batch) of broadcastmem from PE 0 and fcollectmem, checked on every PE.
bool sweep(int me, int n) {
  constexpr std::size_t kMax = 1 << 20;
  auto *from = static_cast<unsigned char *>(nvshmem_malloc(kMax));
  auto *to = static_cast<unsigned char *>(nvshmem_malloc(kMax * n));
  if (!from || !to) {
    fprintf(stderr, "PE %d: nvshmem_malloc failed\n", me);
    return false;
  }
  for (std::size_t i = 0; i < kMax; ++i) from[i] = static_cast<unsigned char>(i * 31 + 7 + me);
  bool right = true;
  if (me == 0) printf("%d PEs, us per call (median of %d batches)\nbytes broadcastmem fcollectmem\n", n, kBatches);
  for (std::size_t bytes = 16 << 10; bytes <= kMax; bytes *= 2) {
    const auto broadcast = time_calls([&] { nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, to, from, bytes, 0); }, 10);
    for (std::size_t i = 0; i < bytes && right; ++i) right = to[i] == static_cast<unsigned char>(i * 31 + 7);
    const auto fcollect = time_calls([&] { nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, to, from, bytes); }, 10);
    for (int pe = 0; pe < n && right; ++pe)
      for (std::size_t i = 0; i < bytes && right; ++i)
        right = to[pe * bytes + i] == static_cast<unsigned char>(i * 31 + 7 + pe);
    if (!right) fprintf(stderr, "PE %d: wrong data at %zu bytes\n", me, bytes);
    if (me == 0) printf("%zu %.1f %.1f\n", bytes, broadcast.first, fcollect.first);
  }
  nvshmem_free(to);
  nvshmem_free(from);
  return right;
}

}  // namespace

int main(int argc, char **argv) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  if (argc > 1 && std::string(argv[1]) == "sweep") {
    const bool right = sweep(me, n);
    nvshmem_finalize();
    return right ? 0 : 1;
  }
  int *src = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  int *dst = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  auto *from = static_cast<unsigned char *>(nvshmem_malloc(kBroadcastBytes));
  auto *to = static_cast<unsigned char *>(nvshmem_malloc(kBroadcastBytes));
  if (!src || !dst || !from || !to) {
    fprintf(stderr, "PE %d: nvshmem_malloc failed\n", me);
    return 1;
  }
  *src = 1 + me;
  *dst = -12345;  // poison: the reduction writes it
  bool right = true;
  const auto sync = time_calls([] { nvshmem_sync_all(); });
  const auto barrier = time_calls([] { nvshmem_barrier_all(); });
  const auto reduce = time_calls([&] {
    *dst = -12345;
    nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, dst, src, 1);
    right = right && *dst == n * (n + 1) / 2;
  });
  if (!right) fprintf(stderr, "PE %d: int_sum_reduce gave %d, not %d\n", me, *dst, n * (n + 1) / 2);
  for (std::size_t i = 0; i < kBroadcastBytes; ++i) from[i] = static_cast<unsigned char>(i * 31 + 7 + me);
  const auto broadcast = time_calls(
      [&] {
        to[0] = to[kBroadcastBytes - 1] = 0xEE;  // poison the ends: the broadcast writes them
        nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, to, from, kBroadcastBytes, 0);
      },
      20);
  for (std::size_t i = 0; i < kBroadcastBytes; ++i)
    if (to[i] != static_cast<unsigned char>(i * 31 + 7)) {
      fprintf(stderr, "PE %d: broadcast byte %zu is %u, not PE 0's\n", me, i, to[i]);
      right = false;
      break;
    }
  auto *ints_in = reinterpret_cast<int *>(from), *ints_out = reinterpret_cast<int *>(to);
  const std::size_t n_ints = kBroadcastBytes / sizeof(int);
  for (std::size_t i = 0; i < n_ints; ++i) ints_in[i] = static_cast<int>(i % 1000) + me;
  const auto big_reduce =
      time_calls([&] { nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, ints_out, ints_in, n_ints); }, 20);
  for (std::size_t i = 0; i < n_ints && right; ++i)
    if (ints_out[i] != n * static_cast<int>(i % 1000) + n * (n - 1) / 2) {
      fprintf(stderr, "PE %d: int_sum_reduce element %zu is %d\n", me, i, ints_out[i]);
      right = false;
    }
  if (me == 0)
    printf(
        "%d PEs, us per call (median of %d batches / best batch): sync_all %.2f / %.2f, barrier_all %.2f / "
        "%.2f, int_sum_reduce(1) %.2f / %.2f, broadcastmem(1 MiB) %.1f / %.1f, int_sum_reduce(1 MiB) %.1f / "
        "%.1f\n",
        n, kBatches, sync.first, sync.second, barrier.first, barrier.second, reduce.first, reduce.second,
        broadcast.first, broadcast.second, big_reduce.first, big_reduce.second);
  nvshmem_free(to);
  nvshmem_free(from);
  nvshmem_free(dst);
  nvshmem_free(src);
  nvshmem_finalize();
  return right ? 0 : 1;
}
