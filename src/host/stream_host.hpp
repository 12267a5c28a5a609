// SPDX-License-Identifier: BSD-3-Clause
// The stream-ordered calls on a host heap (docs/remote.md, "Stream calls on a host heap"): each runs on
// the host, through Peers (mapped and remote PEs alike), in its stream's order. Shared by api_stream.cu
// (RMA, signals, waits, quiet) and coll_stream.cu (collectives).
#pragma once
#include <cuda_runtime.h>

#include <functional>

#include "common/status.hpp"

namespace nvshm {

// Runs `op` on the host in `stream`'s order: with a CUDA device as a host function
// (cudaLaunchHostFunc) that aborts naming `call` when `op` fails; without one the only stream is the
// null one and nothing else can be queued on it, so `op` runs at once (and a failure aborts the same
// way). Not capturable in a CUDA graph (the closure is freed once run): capturing aborts naming `call`.
void on_host_in_stream_order(const char *call, cudaStream_t stream, std::function<Status()> op);

// Load (load_kernels in transport/cuda_kernels.hpp) every kernel of the stream calls (api_stream.cu) and of
// the stream collectives (coll_stream.cu, coll_stream_reduce_*.cu). Many wait: for a word another PE or a
// host thread writes, for the proxy, for the other members. The first launch of one behind such a kernel
// must not wait for it (a stream collective behind another, then a host barrier, could wait for ever; a
// remote put-with-signal behind a remote put hung on an H200). Called at init on a GPU heap.
cudaError_t load_stream_kernels();
cudaError_t load_coll_stream_kernels();

}  // namespace nvshm
