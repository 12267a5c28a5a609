// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/gpu_sharing.hpp"

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
  double percent = 0;
  for (const PeGpu &pe : all) {
    if (std::memcmp(pe.uuid, mine.uuid, sizeof mine.uuid) != 0) continue;
    ++s.pes;
    s.mps = s.mps || pe.mps != 0;  // every PE of the GPU comes to the same answer
    all_provisioned = all_provisioned && pe.thread_percent > 0;
    percent += pe.thread_percent;
  }
  if (s.pes == 1) {
    s.mps = false;
    return s;
  }
  s.full = s.mps && (ignore_percentage || (all_provisioned && percent <= 100.0));
  s.grid_share = s.mps && !ignore_percentage ? s.pes : 1;
  return s;
}

double parse_thread_percent(const char *value) {
  if (!value || !*value) return 0;
  char *end = nullptr;
  const double percent = std::strtod(value, &end);
  if (*end != '\0' || !(percent > 0.0) || percent > 100.0) return 0;
  return percent;
}

}  // namespace nvshm
