// SPDX-License-Identifier: BSD-3-Clause
// Issue 33: under mpirun (PMIx) every bootstrap round cost more than the one before (a PMIx key per
// round that is never removed). Runs ROUNDS allgathers on the bootstrap the environment selects and
// fails when the last tenth of the rounds took more than 3 times the first tenth (plus 1 s of
// slack for a loaded machine: before the fix the last tenth of 2000 rounds took 20.8 s). Usage: boot_rounds ROUNDS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.hpp"

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 2000;
  nvshm::Env env;
  std::unique_ptr<nvshm::Bootstrap> b;
  if (nvshm::env_load(&env) != nvshm::Status::ok || nvshm::bootstrap_create(0, nullptr, env, &b) != nvshm::Status::ok)
    return 1;
  using Clock = std::chrono::steady_clock;
  const int tenth = rounds / 10;
  double first = 0, last = 0;
  std::vector<long> in(8), out(8 * static_cast<std::size_t>(b->size()));
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    for (long &v : in) v = r * 1000 + b->rank();
    if (b->allgather(in.data(), out.data(), in.size() * sizeof(long)) != nvshm::Status::ok) return 1;
    for (int pe = 0; pe < b->size(); ++pe)
      if (out[static_cast<std::size_t>(pe) * in.size()] != r * 1000 + pe) return 1;
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (r < tenth) first += s;
    if (r >= rounds - tenth) last += s;
  }
  printf("PE %d (%s): first %d rounds %.3f s, last %d rounds %.3f s\n", b->rank(), b->name(), tenth, first, tenth,
         last);
  return last > 3 * first + 1.0 ? 3 : 0;
}
