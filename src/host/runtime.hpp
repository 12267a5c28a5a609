// SPDX-License-Identifier: BSD-3-Clause
// The process-global runtime state between nvshmem_init and nvshmem_finalize, and the named checks
// every entry point starts with. May use every layer below (bootstrap, heap, transport, cuda).
#pragma once
#include <cuda.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "common/env.hpp"
#include "cuda/gpu_sharing.hpp"
#include "heap/node.hpp"
#include "heap/symmetric_heap.hpp"
#include "nvshmem_detail/device_state.h"
#include "team/team_table.hpp"
#include "remote/peers.hpp"
#include "remote/proxy.hpp"
#include "transport/transport.hpp"

namespace nvshm {

struct Runtime {
  Env env;
  std::unique_ptr<Bootstrap> boot;
  NodeInfo node;           // the PEs of this host and network namespace (and clique: NVSHMEM_NUM_CLIQUES)
  NodeInfo mapped;         // the PEs whose heaps this process maps: `node`, or this PE alone (NVSHMEM_DISABLE_P2P)
  int device = -1;         // CUDA device ordinal, -1 for the host heap
  GpuSharing gpu_sharing;  // the PEs on this GPU and what they leave a collective launch (cuda/gpu_sharing.hpp)
  CUcontext context = nullptr;
  bool coll_pdl = false;     // on-stream collectives use programmatic dependent launch (coll_stream.cuh)
  bool tma_capable = false;  // the GPU has TMA (compute capability 9.0 or newer)
  int tma_policy = 0;        // NVSHMEM_TMA_POLICY as asked (nvshmemx_tma_policy_t)
  std::unique_ptr<SymmetricHeap> heap;
  std::unique_ptr<Transport> transport;  // mapped peers
  std::unique_ptr<Peers> peers;          // every peer: `transport` or the remote engine (remote/peers.hpp)
  std::unique_ptr<TeamTable> teams;
  // The host proxy (docs/proxy.md) while it runs: its channels (host view; cudaHostAlloc'd and mapped on a
  // GPU heap, calloc'd on a host heap) and the channels' counters (GPU memory on a GPU heap).
  nvshm_proxy_channel *proxy_channels = nullptr;
  nvshm_proxy_counters *proxy_counters = nullptr;
  std::unique_ptr<Proxy> proxy;
  // g_on_stream to a remote PE on a GPU heap (api_stream.cu): the word its kernel writes the value to
  // (mapped pinned host memory, allocated with the proxy: allocating it per call may wait for the device,
  // where kernels can be waiting for this thread) and the lock of its one user at a time.
  uint64_t *remote_g_word = nullptr;
  std::mutex remote_g_mutex;
  nvshm_device_state device_state{};
  // Local buffers registered with nvshmemx_buffer_register, by start address (api_buffer.cpp).
  struct UserBuffer {
    std::size_t bytes;
    bool pinned;  // page-locked by the registration (cuMemHostRegister), unpinned when unregistered
  };
  std::mutex buffers_mutex;
  std::map<const char *, UserBuffer> buffers;
  // This PE's host RMA region (api_region.cpp): handles are 1, 2, ... in order of opening, so a closed
  // region's handle never names a later one; `region` is 0 while none is open.
  // Arrays handed out by nvshmemx_qp_create (api_qp.cpp), freed at finalize.
  std::vector<std::unique_ptr<nvshmemx_qp_handle_t[]>> qp_arrays;
  std::mutex region_mutex;
  nvshmemx_region_handle_t region = 0, regions_opened = 0;
  uint32_t region_hints = 0;
  bool on_device() const { return heap->kind() == HeapKind::device; }
};

// Collective init/finalize (entry points in api_setup.cpp).
Status runtime_init(unsigned flags, const nvshmemx_init_attr_t *attr);
void runtime_finalize();
// Completes every operation of this PE: first the requests its kernels left in the proxy's channels
// (Proxy::settle: a kernel's nonblocking remote operations, then a host quiet, barrier or free), then
// every transfer to every PE (Peers::quiet). The host quiet of nvshmem_quiet, the barriers and free.
Status quiet_pe(Runtime &rt, const char *call);
// nullptr when not initialised.
extern Runtime *g_runtime;
inline Runtime *runtime() {
  return g_runtime;
}

// ---- named checks: each prints "<call>: <cause>" with the PE, then aborts ----
// The failure paths, out of line; the checks below are inline, so that a host call pays a compare each.
[[noreturn]] void fail_not_initialised(const char *call);
[[noreturn]] void fail_local_null(std::size_t bytes, const char *call, const char *arg_name);
[[noreturn]] void fail_status(Status st, const char *call);
// The runtime, or abort if the library is not initialised.
inline Runtime &require_init(const char *call) {
  Runtime *rt = runtime();
  if (!rt) fail_not_initialised(call);
  return *rt;
}
void require_pe(const Runtime &rt, int pe, const char *call);
// `pe`'s copy of symmetric [sym, sym+bytes) (mapped or remote), or abort naming the argument.
Target require_target(const Runtime &rt, const void *sym, std::size_t bytes, int pe, const char *call,
                      const char *arg_name);
// As require_target, for calls that need the PE's heap mapped (the stream interface): its address.
void *require_mapped(const Runtime &rt, const void *sym, std::size_t bytes, int pe, const char *call,
                     const char *arg_name);
// Abort naming the argument when the local buffer `ptr` of a transfer of `bytes` (> 0) is NULL.
inline void require_local(const void *ptr, std::size_t bytes, const char *call, const char *arg_name) {
  if (!ptr) fail_local_null(bytes, call, arg_name);
}
inline void require_ok(Status st, const char *call) {
  if (st != Status::ok) fail_status(st, call);
}
// The team, or abort naming the call when `team` is not a valid team of this PE.
const Team &require_team(const Runtime &rt, nvshmem_team_t team, const char *call);

// The nvshmemx_status code (NVSHMEMX_SUCCESS, NVSHMEMX_ERROR_*) of a Status.
int to_nvshmemx_status(Status st);

// Unregister every nvshmemx_buffer_register buffer (api_buffer.cpp; also at finalize).
void unregister_user_buffers(Runtime &rt);

// Writes the device state to every registered translation unit (device_state_registry.cpp).
Status publish_device_state(const nvshm_device_state &state, CUcontext ctx);
void withdraw_device_state();

}  // namespace nvshm
