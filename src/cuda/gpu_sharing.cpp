// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/gpu_sharing.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace nvshm {

GpuSharing gpu_sharing_of(const std::vector<PeGpu> &all, int me, bool ignore_percentage) {
  static constexpr uint8_t kNoGpu[16] = {};
  GpuSharing s;
  const PeGpu &mine = all[me];
  if (std::memcmp(mine.uuid, kNoGpu, sizeof kNoGpu) == 0) return s;
  s.pes = 0;
  bool all_provisioned = true;
  int32_t permille = 0;
  for (const PeGpu &pe : all) {
    if (std::memcmp(pe.uuid, mine.uuid, sizeof mine.uuid) != 0) continue;
    ++s.pes;
    all_provisioned = all_provisioned && pe.thread_permille > 0;
    permille += pe.thread_permille;
  }
  if (s.pes == 1) return s;
  s.mps = mine.mps != 0;
  s.full = s.mps && (ignore_percentage || (all_provisioned && permille <= 1000));
  s.grid_share = s.mps && !ignore_percentage ? s.pes : 1;
  return s;
}

int32_t parse_thread_permille(const char *value) {
  if (!value || !*value) return 0;
  char *end = nullptr;
  const double percent = std::strtod(value, &end);
  if (*end != '\0' || !(percent > 0.0) || percent > 100.0) return 0;
  return static_cast<int32_t>(std::lround(percent * 10.0));
}

}  // namespace nvshm
