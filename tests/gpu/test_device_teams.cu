// SPDX-License-Identifier: BSD-3-Clause
// Device team queries read the team table the host keeps in GPU memory: team_my_pe, team_n_pes and
// translate_pe in a kernel agree with the host for every predefined team, strided and 2d splits and
// a team from nvshmemx_team_init, also after a destroy; under nvshmrun -n 2 (or more).
#include <vector>

#include "gpu_test.hpp"

namespace {

constexpr int kProbe = 4;  // PE indices probed past each team's size (translate must give -1)

// For each team t: my_pe, n_pes, then translate_pe(t, i, u) for every team u and i in [-1, n_pes + kProbe).
__global__ void team_kernel(const nvshmem_team_t *teams, int nteams, int npes, int *out) {
  for (int t = 0; t < nteams; ++t) {
    *out++ = nvshmem_team_my_pe(teams[t]);
    *out++ = nvshmem_team_n_pes(teams[t]);
    for (int u = 0; u < nteams; ++u)
      for (int i = -1; i < npes + kProbe; ++i) *out++ = nvshmem_team_translate_pe(teams[t], i, teams[u]);
  }
}

std::vector<int> host_answers(const std::vector<nvshmem_team_t> &teams) {
  std::vector<int> out;
  for (nvshmem_team_t t : teams) {
    out.push_back(nvshmem_team_my_pe(t));
    out.push_back(nvshmem_team_n_pes(t));
    for (nvshmem_team_t u : teams)
      for (int i = -1; i < nvshmem_n_pes() + kProbe; ++i) out.push_back(nvshmem_team_translate_pe(t, i, u));
  }
  return out;
}

void expect_device_matches_host(const std::vector<nvshmem_team_t> &teams) {
  const std::vector<int> want = host_answers(teams);
  nvshmem_team_t *d_teams = nullptr;
  int *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_teams, teams.size() * sizeof(nvshmem_team_t)));
  CUDA_CHECK(cudaMalloc(&d_out, want.size() * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_teams, teams.data(), teams.size() * sizeof(nvshmem_team_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_out, gpu_test::kPoison, want.size() * sizeof(int)));
  team_kernel<<<1, 1>>>(d_teams, static_cast<int>(teams.size()), nvshmem_n_pes(), d_out);
  LAUNCH_CHECK();
  std::vector<int> got(want.size());
  CUDA_CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (std::size_t k = 0; k < want.size(); ++k) ASSERT_EQ(got[k], want[k]) << "answer " << k;
  CUDA_CHECK(cudaFree(d_teams));
  CUDA_CHECK(cudaFree(d_out));
}

TEST(DeviceTeams, MatchHostForEveryTeam) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  std::vector<nvshmem_team_t> teams{NVSHMEM_TEAM_WORLD,
                                    NVSHMEM_TEAM_SHARED,
                                    NVSHMEMX_TEAM_NODE,
                                    NVSHMEMX_TEAM_SAME_MYPE_NODE,
                                    NVSHMEM_TEAM_INVALID,
                                    4,
                                    5};
  nvshmem_team_t odd = NVSHMEM_TEAM_INVALID, x = NVSHMEM_TEAM_INVALID, y = NVSHMEM_TEAM_INVALID;
  ASSERT_EQ(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, n > 1 ? 1 : 0, 2, n > 1 ? n / 2 : 1, nullptr, 0, &odd), 0);
  ASSERT_EQ(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 2, nullptr, 0, &x, nullptr, 0, &y), 0);
  // A team of arbitrary PEs: the world in reverse order.
  nvshmemx_team_uniqueid_t *id = static_cast<nvshmemx_team_uniqueid_t *>(nvshmem_malloc(sizeof *id));
  if (me == 0) {
    nvshmemx_team_uniqueid_t made = 0;
    ASSERT_EQ(nvshmemx_team_get_uniqueid(&made), 0);
    for (int pe = 0; pe < n; ++pe) nvshmem_uint64_p(id, made, pe);
  }
  nvshmem_barrier_all();
  nvshmem_team_config_t config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  CUDA_CHECK(cudaMemcpy(&config.uniqueid, id, sizeof config.uniqueid, cudaMemcpyDeviceToHost));
  nvshmem_team_t reversed = NVSHMEM_TEAM_INVALID;
  ASSERT_EQ(nvshmemx_team_init(&reversed, &config, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, n, n - 1 - me), 0);
  teams.insert(teams.end(), {odd, x, y, reversed});
  expect_device_matches_host(teams);
  // After a destroy the device sees the slot empty.
  const nvshmem_team_t gone = x;
  nvshmem_team_destroy(x);
  teams.push_back(gone);
  expect_device_matches_host(teams);
  nvshmem_team_destroy(y);
  nvshmem_team_destroy(odd);
  nvshmem_team_destroy(reversed);
  nvshmem_barrier_all();
  nvshmem_free(id);
}

}  // namespace
