// SPDX-License-Identifier: BSD-3-Clause
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
  // nvshmem_global_exit: ask whoever started the job to end every PE with `status` (best effort, not
  // collective; the caller exits right after). Methods without such a party do nothing.
  virtual void request_global_exit(int status) { (void)status; }

 protected:
  int rank_ = 0;
  int size_ = 1;
};

// Thread safety: a Bootstrap object is used by one thread at a time (the runtime serialises its calls);
// distinct objects may be used concurrently. Every call is collective over all its ranks, in the same order.
// Destroying a connected bootstrap tells the server this rank has finalized (BYE) and closes its socket.
//
// Picks and connects the bootstrap for nvshmemx_init_attr(flags, attr):
//  - NVSHMEMX_INIT_WITH_UNIQUEID: the unique-id TCP rendezvous with attr->args.uid_args;
//  - NVSHMEMX_INIT_WITH_MPI_COMM: the ranks of *attr->mpi_comm (MPI loaded at run time);
//  - otherwise NVSHMEM_BOOTSTRAP / NVSHMEM_BOOTSTRAP_PMI: nvshmrun's variables (NVSHMRUN_*), PMIx, PMI-1,
//    MPI_COMM_WORLD, or a 1-PE job (docs/bootstrap.md has the table).
// NVSHMEMX_INIT_WITH_SHMEM gives Status::not_supported with a message.
// Blocks until every rank has connected (bounded by NVSHMEM_BOOTSTRAP_TIMEOUT). Errors: invalid_value (bad
// attr, id or NVSHMRUN_* value), not_supported, timeout (naming the missing ranks), peer_failed, symmetry.
Status bootstrap_create(unsigned flags, const nvshmemx_init_attr_t *attr, const Env &env,
                        std::unique_ptr<Bootstrap> *out);

// nvshmemx_get_uniqueid: start a rendezvous server in this process (listening on the interface
// chosen by NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME / _SOCK_FAMILY) and describe it in *id, with a fresh
// random secret that clients must present.
Status uid_generate(const Env &env, nvshmemx_uniqueid_t *id);

// Wait (bounded) for rendezvous servers started by this process to finish; called at finalize so
// that no thread or socket outlives the runtime.
void uid_servers_reap();

// This PE's rank among the PEs of its node: NVSHMRUN_LOCAL_RANK (set by nvshmrun), else the variable of
// OpenMPI (OMPI_COMM_WORLD_LOCAL_RANK), hydra (MPI_LOCALRANKID), Slurm (SLURM_LOCALID) or PMIx
// (PMIX_LOCAL_RANK); -1 when none is a non-negative integer. The runtime picks its GPU as local rank mod the visible
// GPU count.
int launcher_local_rank();

// The variables nvshmrun sets in every PE's environment (see docs/bootstrap.md).
inline constexpr const char *kEnvLauncherRank = "NVSHMRUN_RANK";             // 0 .. size-1
inline constexpr const char *kEnvLauncherSize = "NVSHMRUN_SIZE";             // number of PEs
inline constexpr const char *kEnvLauncherLocalRank = "NVSHMRUN_LOCAL_RANK";  // rank on this node
inline constexpr const char *kEnvLauncherLocalSize = "NVSHMRUN_LOCAL_SIZE";  // PEs on this node
inline constexpr const char *kEnvLauncherUniqueId = "NVSHMRUN_UNIQUEID";     // 256 hex digits

}  // namespace nvshm
