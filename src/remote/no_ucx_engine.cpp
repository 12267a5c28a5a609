// SPDX-License-Identifier: BSD-3-Clause
// make_ucx_engine of a build configured without UCX's headers (libucx-dev): remote PEs are refused
// at init with the way to get them. A job whose PEs are all mapped never calls it.
#include "common/log.hpp"
#include "heap/symmetric_heap.hpp"
#include "remote/engine.hpp"

namespace nvshm {

Status make_ucx_engine(Bootstrap &boot, void *, std::size_t, Transport &, const RemoteOptions &,
                       std::unique_ptr<RemoteEngine> *) {
  log_error("remote engine (UCX)",
            "the job has PEs on other nodes (or NVSHMEM_DISABLE_P2P=1), but this build has no UCX engine: UCX's "
            "headers were not found when it was configured (install libucx-dev and build again)");
  return agree(boot, Status::not_supported);
}

}  // namespace nvshm
