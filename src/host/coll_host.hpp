// SPDX-License-Identifier: BSD-3-Clause
// The host collectives (api_coll.cpp, docs/collectives.md "Host path") with the caller's name in their
// messages: the blocking C entry points and, on a host heap, the stream-ordered forms (coll_stream.cu,
// run on the host in stream order: docs/remote.md) share them. Each checks its arguments (a message
// naming `call`, then invalid_value), synchronises the team, moves the data through Peers (mapped and
// remote PEs alike) and synchronises again; `bytes` counts per member (broadcast: in all).
#pragma once
#include <cstddef>

#include "common/status.hpp"
#include "nvshmem_detail/proxy_ring.h"
#include "nvshmem_detail/type_lists.h"
#include "nvshmem_detail/types.h"

namespace nvshm {

Status host_broadcast(nvshmem_team_t team, void *dest, const void *source, std::size_t bytes, int root,
                      const char *call);
Status host_fcollect(nvshmem_team_t team, void *dest, const void *source, std::size_t bytes, const char *call);
Status host_alltoall(nvshmem_team_t team, void *dest, const void *source, std::size_t bytes, const char *call);

// reduce (scatter = false: every member reduces all of `source`) or reducescatter (member i reduces
// block i) of one (op, type) pair of the API: host_<NAME>_<OP>_reduce, e.g. host_int_sum_reduce;
// `nreduce` counts result elements.
#define NVSHM_DECLARE_HOST_REDUCE(OP, NAME, T)                                                                         \
  Status host_##NAME##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, std::size_t nreduce, bool scatter, \
                                     const char *call);
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_DECLARE_HOST_REDUCE)
#undef NVSHM_DECLARE_HOST_REDUCE

// A device collective on a team with remote members, handed to this PE's proxy (NVSHM_PROXY_COLLECTIVE,
// docs/proxy.md "Collectives on teams with remote members"): runs the host collective the request names on the proxy's
// thread.
Status proxy_collective(const nvshm_proxy_request &r);

}  // namespace nvshm
