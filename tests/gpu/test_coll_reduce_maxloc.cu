// SPDX-License-Identifier: BSD-3-Clause
// The maxloc reduction (coll_reduce_test.cuh has the helpers).
#include "coll_reduce_test.cuh"

// nvshmemx_double2_maxloc_reduce_block: values with many ties (.x in 0..7) at random locations
// (.y in 0..255); the host reference keeps the largest .x and, of equal .x, the smallest .y. Sizes as
// the other pairs: one element, a tail, the two-shot path, several hundred KiB.
namespace {
using namespace coll_test;

__global__ void maxloc_kernel(nvshmem_team_t team, double2 *d, const double2 *s, size_t n) {
  nvshmemx_double2_maxloc_reduce_block(team, d, s, n);
}

std::vector<double2> maxloc_input(int member, size_t n) {
  const std::vector<unsigned char> bits = gpu_test::random_bytes(2 * n, member, 91);
  std::vector<double2> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = make_double2(bits[2 * k] % 8, bits[2 * k + 1]);
  return v;
}

TEST(CollReduce, double2_maxloc_block) {
  for (nvshmem_team_t team : teams()) {
    // maxloc on a team with remote members ends the kernel with a message (docs/proxy.md): not run there, on any PE.
    if (on_any_pe(has_remote_member(team))) continue;
    for (size_t n :
         {size_t{1}, size_t{301}, (size_t{64} << 10) / sizeof(double2) + 5, (size_t{1} << 20) / sizeof(double2) + 7}) {
      const int size = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
      const std::vector<double2> mine = maxloc_input(me, n);
      std::vector<unsigned char> bytes(n * sizeof(double2));
      memcpy(bytes.data(), mine.data(), bytes.size());
      prepare(bytes, bytes.size());
      std::vector<double2> expected = maxloc_input(0, n);
      for (int i = 1; i < size; ++i) {
        const std::vector<double2> in = maxloc_input(i, n);
        for (size_t k = 0; k < n; ++k)
          if (in[k].x > expected[k].x || (in[k].x == expected[k].x && in[k].y < expected[k].y)) expected[k] = in[k];
      }
      maxloc_kernel<<<1, 256>>>(team, reinterpret_cast<double2 *>(buffers().dest),
                                reinterpret_cast<const double2 *>(buffers().source), n);
      LAUNCH_CHECK();
      check(describe("double2_maxloc_reduce_block", team, kBlock, n), expected,
            [](double2 a, double2 b) { return a.x == b.x && a.y == b.y; });
    }
  }
}
}  // namespace
