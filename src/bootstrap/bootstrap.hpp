// The bootstrap layer: who the PEs are, and small-blob allgather/barrier among them.
// May use: common/. Used by: heap/, host/. See src/bootstrap/README.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/env.hpp"
#include "common/status.hpp"
#include "nvshmem_detail/types.h"

namespace nvshm {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual const char *name() const = 0;  // "launcher", "uid", "single", ...
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Every rank contributes `bytes` bytes from `in`; `out` receives size()*bytes bytes in rank order.
  // All ranks must call with the same `bytes` (a mismatch is reported as Status::symmetry).
  // Fails with Status::timeout after the bootstrap timeout, naming the ranks that did not arrive.
  virtual Status allgather(const void *in, void *out, std::size_t bytes) = 0;
  virtual Status barrier() = 0;

 protected:
  int rank_ = 0;
  int size_ = 1;
};

// Picks and connects the bootstrap for nvshmemx_init_attr(flags, attr):
//  - NVSHMEMX_INIT_WITH_UNIQUEID: the unique-id TCP rendezvous with attr->args.uid_args;
//  - otherwise, launcher environment variables (NVSHMRUN_*) set by nvshmrun;
//  - otherwise a 1-PE job.
// Unsupported flags (MPI communicator, SHMEM) give Status::not_supported with a message.
Status bootstrap_create(unsigned flags, const nvshmemx_init_attr_t *attr, const Env &env,
                        std::unique_ptr<Bootstrap> *out);

// nvshmemx_get_uniqueid: start a rendezvous server in this process (listening on the interface
// chosen by NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME / _SOCK_FAMILY) and describe it in *id, with a fresh
// random secret that clients must present.
Status uid_generate(const Env &env, nvshmemx_uniqueid_t *id);

// Wait (bounded) for rendezvous servers started by this process to finish; called at finalize so
// that no thread or socket outlives the runtime.
void uid_servers_reap();

}  // namespace nvshm
