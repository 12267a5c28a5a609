// SPDX-License-Identifier: BSD-3-Clause
// halo: 1-D heat diffusion split over the PEs, written with the C++ layer. Each PE owns `cells`
// cells plus one ghost cell at each end in a SymmetricBuffer<double>; every step it puts its edge
// cells into its neighbours' ghost cells, then a barrier, then the local update. The result is
// checked against the same computation done serially on every PE. Runs on the CPU backend (no GPU)
// and on GPU heaps alike (it reaches the heap only through RMA). Prints one verdict.
//   nvshmrun -n 4 ./cpp_halo [cells per PE] [steps]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nvshmem/nvshmem.hpp>
#include <vector>

namespace {

double initial(long global_index, long total) {
  return global_index == total / 2 ? 1000.0 : 0.0;  // a hot spot in the middle
}

// One explicit step of u_t = u_xx with fixed zero ends, over u[1..n] with ghosts u[0], u[n+1].
void step(std::vector<double> &u, std::size_t n) {
  std::vector<double> next(u);
  for (std::size_t i = 1; i <= n; ++i) next[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
  u.swap(next);
}

}  // namespace

int main(int argc, char **argv) {
  const std::size_t cells = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
  try {
    nvshmem::Runtime rt = nvshmem::Runtime::init();
    const int me = rt.my_pe(), n = rt.n_pes();
    const long total = static_cast<long>(cells) * n;

    // [ghost | cells | ghost] on every PE, zero-filled (the outer ghosts stay 0: fixed ends).
    auto field = nvshmem::SymmetricBuffer<double>::zeroed(rt, cells + 2);
    std::vector<double> u(cells + 2, 0.0);
    for (std::size_t i = 1; i <= cells; ++i) u[i] = initial(static_cast<long>(me * cells + i - 1), total);
    field.copy_from_host(u);
    rt.barrier_all();

    for (int s = 0; s < steps; ++s) {
      // My first cell is the left neighbour's right ghost; my last cell the right neighbour's left ghost.
      if (me > 0) field.put(me - 1, &u[1], 1, cells + 1);
      if (me < n - 1) field.put(me + 1, &u[cells], 1, 0);
      rt.barrier_all();  // ghosts complete everywhere
      field.copy_to_host(u.data(), 1, 0);
      field.copy_to_host(u.data() + cells + 1, 1, cells + 1);
      step(u, cells);
      rt.barrier_all();  // nobody overwrites a ghost before its owner read it
    }

    // Serial reference on every PE.
    std::vector<double> ref(total + 2, 0.0);
    for (long i = 1; i <= total; ++i) ref[i] = initial(i - 1, total);
    for (int s = 0; s < steps; ++s) step(ref, static_cast<std::size_t>(total));
    double worst = 0;
    for (std::size_t i = 1; i <= cells; ++i)
      worst = std::fmax(worst, std::fabs(u[i] - ref[static_cast<std::size_t>(me) * cells + i]));
    const bool ok = worst < 1e-9;
    std::printf("halo: PE %d of %d, %zu cells, %d steps: %s (max error %.3g)\n", me, n, cells, steps,
                ok ? "OK" : "WRONG", worst);
    return ok ? 0 : 1;
  } catch (const nvshmem::Error &e) {
    std::fprintf(stderr, "halo: %s\n", e.what());
    return 1;
  }
}
