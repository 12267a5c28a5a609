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

// Loads (load_kernels in transport/cuda_kernels.hpp) the kernels that carry stream calls to remote PEs on a
// GPU heap (put, get, p, signals, quiet through the proxy), each of which waits for the proxy: the first
// launch of one behind another that is running must not wait for it. Called when the proxy starts.
cudaError_t load_remote_stream_kernels();
// The same for the stream collectives' kernels (coll_stream.cu, coll_stream_reduce_*.cu): on a team with
// remote members each waits for the proxy's host collective.
cudaError_t load_coll_stream_kernels();

}  // namespace nvshm
