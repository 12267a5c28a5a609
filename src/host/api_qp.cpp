// SPDX-License-Identifier: BSD-3-Clause
// Queue pairs (NVSHMEM 3.5): every PE is reached by peer loads and stores here, where NVIDIA documents that
// nvshmemx_qp_create succeeds with NVSHMEMX_QP_DEFAULT in every entry; the device QP calls forward to the
// plain ones (nvshmem_detail/device/qp_api.cuh).
#include <vector>

#include "common/log.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

extern "C" int nvshmemx_qp_create(int num_qps, nvshmemx_qp_handle_t **out_qp_array) {
  const char *call = "nvshmemx_qp_create";
  Runtime &rt = require_init(call);
  Status st = Status::ok;
  if (num_qps < 1 || !out_qp_array) {
    log_error(call, "num_qps=%d, out_qp_array=%p: at least one QP and a place for the array are needed", num_qps,
              static_cast<void *>(out_qp_array));
    st = Status::invalid_value;
  }
  // Collective: every PE must ask for the same number (NVSHMEM's contract); a mismatch fails everywhere.
  std::vector<int> counts(static_cast<std::size_t>(rt.boot->size()));
  if (rt.boot->allgather(&num_qps, counts.data(), sizeof num_qps) != Status::ok) return NVSHMEMX_ERROR_INTERNAL;
  for (std::size_t pe = 0; pe < counts.size() && st == Status::ok; ++pe)
    if (counts[pe] != num_qps) {
      log_error(call, "num_qps differs between PEs: %d here, %d on PE %zu (the call is collective)", num_qps,
                counts[pe], pe);
      st = Status::invalid_value;
    }
  if (agree(*rt.boot, st) != Status::ok) return NVSHMEMX_ERROR_INVALID_VALUE;
  std::unique_ptr<nvshmemx_qp_handle_t[]> qps(new nvshmemx_qp_handle_t[static_cast<std::size_t>(num_qps)]);
  for (int i = 0; i < num_qps; ++i) qps[i] = NVSHMEMX_QP_DEFAULT;
  NVSHM_INFO(call, "%d QPs: all NVSHMEMX_QP_DEFAULT (every PE is reached by loads and stores)", num_qps);
  *out_qp_array = qps.get();
  rt.qp_arrays.push_back(std::move(qps));  // one thread per PE calls it (collective): no lock
  return NVSHMEMX_SUCCESS;
}
