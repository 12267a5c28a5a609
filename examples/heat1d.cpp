// SPDX-License-Identifier: BSD-3-Clause
// heat1d: an explicit 1-D heat equation split across PEs with halo exchange through the NVSHMEM
// host interface, checked against the same computation done serially. Runs on either heap kind
// (host shared memory without a GPU, GPU memory with one).
//   nvshmrun -n 4 ./heat1d [cells_per_pe] [steps]
#include <nvshmem.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
// One explicit step on u[1..n] with u[0], u[n+1] as boundary values.
void step(const std::vector<double> &u, std::vector<double> &next, double alpha) {
  for (std::size_t i = 1; i + 1 < u.size(); ++i) next[i] = u[i] + alpha * (u[i - 1] - 2 * u[i] + u[i + 1]);
}
double initial(long global_cell) {
  return std::sin(0.01 * global_cell) + (global_cell % 17) * 0.05;
}
}  // namespace

int main(int argc, char **argv) {
  const long cells = argc > 1 ? atol(argv[1]) : 1000;
  const int steps = argc > 2 ? atoi(argv[2]) : 200;
  const double alpha = 0.25;
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();

  // Symmetric: halo[0] receives the left neighbour's last cell, halo[1] the right one's first, per
  // step parity (so a fast PE cannot overwrite a halo its neighbour has not read yet).
  double *halo = static_cast<double *>(nvshmem_calloc(4, sizeof(double)));
  double *result = static_cast<double *>(nvshmem_malloc(cells * sizeof(double)));
  std::vector<double> u(cells + 2, 0.0), next(cells + 2, 0.0);
  for (long i = 0; i < cells; ++i) u[i + 1] = initial(me * cells + i);

  for (int s = 0; s < steps; ++s) {
    double *slot = halo + 2 * (s % 2);
    if (me > 0) nvshmem_double_p(slot + 1, u[1], me - 1);          // my first cell -> left's right halo
    if (me < n - 1) nvshmem_double_p(slot + 0, u[cells], me + 1);  // my last cell -> right's left halo
    nvshmem_barrier_all();
    u[0] = me > 0 ? nvshmem_double_g(slot + 0, me) : 0.0;  // fixed zero boundary at both ends
    u[cells + 1] = me < n - 1 ? nvshmem_double_g(slot + 1, me) : 0.0;
    step(u, next, alpha);
    for (long i = 1; i <= cells; ++i) u[i] = next[i];
  }
  nvshmem_double_put(result, u.data() + 1, cells, me);
  nvshmem_barrier_all();

  int status = 0;
  if (me == 0) {
    std::vector<double> all(cells * n), serial(cells * n + 2, 0.0), serial_next(cells * n + 2, 0.0);
    for (int pe = 0; pe < n; ++pe) nvshmem_double_get(all.data() + pe * cells, result, cells, pe);
    for (long i = 0; i < cells * n; ++i) serial[i + 1] = initial(i);
    for (int s = 0; s < steps; ++s) {
      step(serial, serial_next, alpha);
      for (long i = 1; i <= cells * n; ++i) serial[i] = serial_next[i];
    }
    double worst = 0;
    for (long i = 0; i < cells * n; ++i) worst = std::fmax(worst, std::fabs(all[i] - serial[i + 1]));
    status = worst > 1e-12;
    printf("heat1d: %s: %d PEs x %ld cells, %d steps, max difference from the serial solution %.3g\n",
           status ? "FAILED" : "OK", n, cells, steps, worst);
  }
  nvshmem_free(result);
  nvshmem_free(halo);
  nvshmem_finalize();
  return status;
}
