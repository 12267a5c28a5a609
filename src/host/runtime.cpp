// SPDX-License-Identifier: BSD-3-Clause
#include "host/runtime.hpp"

#include <cuda_runtime_api.h>
#include <strings.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/coll_host.hpp"
#include "host/stream_host.hpp"
#include "host/version_check.hpp"
#include "transport/cuda_kernels.hpp"
#include "nvshmem_host.h"

namespace nvshm {
Runtime *g_runtime = nullptr;

namespace {
constexpr const char *kInit = "nvshmem_init";
// Headroom beyond NVSHMEM_SYMMETRIC_SIZE and the team workspace (TeamTable::workspace_bytes, the
// runtime's only symmetric object), so that the allocator's rounding of the workspace never takes
// bytes from the size the user asked for.
constexpr std::size_t kHeapHeadroomBytes = 1 << 20;

// LL words per member and half of each team: enough for the largest LL collective, on a stream
// (NVSHMEM_REDUCE_LL_MAX, NVSHMEM_COLL_LL_MAX) or in the device API; none on the CPU backend.
std::size_t ll_slot_words(const Runtime &rt, HeapKind kind) {
  if (kind != HeapKind::device) return 0;
  const std::size_t bytes =
      std::max({std::size_t{NVSHM_TEAM_LL_DEVICE_BYTES}, rt.env.reduce_ll_max, rt.env.coll_ll_max});
  return (bytes + 3) / 4;
}

Status choose_heap_kind(const Runtime &rt, HeapKind *kind) {
  const std::string &want = rt.env.heap_kind;
  const bool have_gpu = cuda_device_count() > 0;
  if (want.empty()) {
    *kind = have_gpu ? HeapKind::device : HeapKind::host;
  } else if (!strcasecmp(want.c_str(), "DEVICE") || !strcasecmp(want.c_str(), "VIDMEM")) {
    if (!have_gpu) {
      log_error(kInit, "NVSHMEM_HEAP_KIND=%s asks for the heap in GPU memory, but no GPU is visible", want.c_str());
      return Status::no_gpu;
    }
    *kind = HeapKind::device;
  } else {  // SYSMEM or HOST (the table's check)
    *kind = HeapKind::host;
  }
  return Status::ok;
}

Status select_gpu(Runtime &rt, const nvshmemx_init_attr_t *attr) {
  NVSHM_TRY(driver_load(kInit));
  const int count = cuda_device_count();
  CUcontext current = nullptr;
  driver().cuCtxGetCurrent(&current);
  int device = -1;
  if (attr && attr->args.cuda_device_id >= 0) {
    device = attr->args.cuda_device_id;
  } else if (current) {
    CUdevice d;
    NVSHM_CU(kInit, cuCtxGetDevice(&d));
    device = static_cast<int>(d);
  } else {
    device = rt.node.host_index % count;
  }
  if (device >= count) {
    log_error(kInit, "CUDA device %d requested, but only %d are visible", device, count);
    return Status::invalid_value;
  }
  if (cudaSetDevice(device) != cudaSuccess) {
    log_error(kInit, "cudaSetDevice(%d) failed: %s", device, cudaGetErrorString(cudaGetLastError()));
    return Status::no_gpu;
  }
  NVSHM_CU(kInit, cuCtxGetCurrent(&rt.context));
  rt.device = device;
  int cc_major = 0;
  if (cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    log_error(kInit, "cudaDeviceGetAttribute(compute capability, %d) failed: %s", device,
              cudaGetErrorString(cudaGetLastError()));
    return Status::no_gpu;
  }
  rt.coll_pdl = rt.env.coll_pdl && cc_major >= 9;
  rt.tma_capable = cc_major >= 9;
  NVSHM_INFO(kInit, "using CUDA device %d of %d", device, count);
  return Status::ok;
}

// What this PE reports about its GPU for the sharing rule (cuda/gpu_sharing.hpp). Where CUDA cannot say
// (a warning), the PE reports no GPU and counts as alone on it, rather than leave the others waiting in
// the exchange.
void describe_gpu(int device, PeGpu *out) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    NVSHM_WARN(kInit, "cudaGetDeviceProperties(%d) failed: %s; this PE counts as alone on its GPU", device,
               cudaGetErrorString(cudaGetLastError()));
    return;
  }
  static_assert(sizeof prop.uuid == sizeof out->uuid, "a CUDA UUID is 16 bytes");
  std::memcpy(out->uuid, &prop.uuid, sizeof out->uuid);
  out->mps = prop.mpsEnabled ? 1 : 0;
  out->thread_percent = parse_thread_percent(getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"));
}

void log_gpu_sharing(const GpuSharing &s) {
  if (s.pes == 1) return;
  if (s.grid_share > 1) {
    NVSHM_INFO(kInit,
               "%d PEs share this GPU under MPS (%s MPG): a collective launch's largest grid is 1/%d of the "
               "GPU's (NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1 gives each PE the whole grid)",
               s.pes, s.full ? "full" : "limited", s.grid_share);
  } else {
    NVSHM_INFO(kInit, "%d PEs share this GPU%s (%s MPG)", s.pes, s.mps ? " under MPS" : ", their contexts taking turns",
               s.full ? "full" : "limited");
  }
}

// NVSHMEM_TMA_POLICY (NVSHMEM 3.7): DISABLE, ENABLE or FORCE (any case), parsed before anything is set up.
Status parse_tma_policy(const std::string &policy, int *out) {
  if (policy.empty() || !strcasecmp(policy.c_str(), "DISABLE")) {
    *out = NVSHMEMX_TMA_DISABLE;
  } else if (!strcasecmp(policy.c_str(), "ENABLE")) {
    *out = NVSHMEMX_TMA_ENABLE;
  } else if (!strcasecmp(policy.c_str(), "FORCE")) {
    *out = NVSHMEMX_TMA_FORCE;
  } else {
    log_error(kInit, "NVSHMEM_TMA_POLICY=%s is not DISABLE, ENABLE or FORCE", policy.c_str());
    return Status::invalid_value;
  }
  return Status::ok;
}

// The device's TMA policy: the asked one where TMA is available (the heap in GPU memory of compute
// capability 9.0 or newer: cp.async.bulk), else DISABLE; ENABLE says why at INFO, FORCE fails init with
// the reason, as NVSHMEM documents where TMA is unavailable (docs/tma.md).
Status tma_policy_of(const Runtime &rt, int *policy) {
  const int asked = *policy;
  if (asked == NVSHMEMX_TMA_DISABLE) return Status::ok;
  const char *name = asked == NVSHMEMX_TMA_FORCE ? "FORCE" : "ENABLE";
  const char *missing = !rt.on_device()   ? "the symmetric heap is in host memory"
                        : !rt.tma_capable ? "the GPU is older than compute capability 9.0"
                                          : nullptr;
  if (!missing) {
    NVSHM_INFO(kInit,
               "NVSHMEM_TMA_POLICY=%s: block-scope puts and gets of 16-byte aligned addresses and sizes use TMA "
               "(cp.async.bulk) in blocks that lent shared memory (nvshmemx_give_smem), in code compiled with "
               "NVSHM_TMA_DATA_PATH (docs/tma.md)",
               name);
    return Status::ok;
  }
  *policy = NVSHMEMX_TMA_DISABLE;
  if (asked == NVSHMEMX_TMA_ENABLE) {
    NVSHM_INFO(kInit,
               "NVSHMEM_TMA_POLICY=ENABLE: no TMA here (%s): puts and gets use loads and stores (the same "
               "semantics)",
               missing);
    return Status::ok;
  }
  log_error(kInit, "NVSHMEM_TMA_POLICY=FORCE: TMA is unavailable (%s); use ENABLE or DISABLE", missing);
  return Status::not_supported;
}

// A GPU heap's transport, and every kernel the stream calls and collectives launch loaded (stream_host.hpp).
Status make_device_transport(Runtime &rt) {
  NVSHM_TRY(make_cuda_transport(&rt.transport));
  cudaError_t err = load_stream_kernels();
  if (err == cudaSuccess) err = load_coll_stream_kernels();
  if (err == cudaSuccess) return Status::ok;
  log_error(kInit, "loading the kernels of the stream calls and collectives failed: %s", cudaGetErrorString(err));
  return Status::internal;
}

// Starts the host proxy (docs/proxy.md) when this PE has remote peers and a GPU heap (or NVSHMEM_REMOTE_PROXY=host):
// NVSHM_PROXY_CHANNELS zeroed channels in pinned host memory mapped to the device, their counters
// in GPU memory, and the device state's view of both.
Status start_proxy(Runtime &rt) {
  RemoteEngine *engine = rt.peers->remote();
  const bool wanted = rt.on_device() || !strcasecmp(rt.env.remote_proxy.c_str(), "host");
  if (!engine || !wanted || rt.mapped.pes.size() == static_cast<std::size_t>(rt.boot->size())) return Status::ok;
  const std::size_t bytes = NVSHM_PROXY_CHANNELS * sizeof(nvshm_proxy_channel);
  const std::size_t counter_bytes = NVSHM_PROXY_CHANNELS * sizeof(nvshm_proxy_counters);
  nvshm_proxy_channel *device_view = nullptr;
  if (rt.on_device()) {
    void *host = nullptr, *dev = nullptr;
    if (cudaHostAlloc(&host, bytes, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
      log_error(kInit, "cudaHostAlloc of the proxy's channels (%zu bytes) failed: %s", bytes,
                cudaGetErrorString(cudaGetLastError()));
      return Status::out_of_memory;
    }
    rt.proxy_channels = static_cast<nvshm_proxy_channel *>(host);
    memset(host, 0, bytes);
    if (cudaHostGetDevicePointer(&dev, host, 0) != cudaSuccess ||
        cudaMalloc(reinterpret_cast<void **>(&rt.proxy_counters), counter_bytes) != cudaSuccess ||
        cudaMemset(rt.proxy_counters, 0, counter_bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
      log_error(kInit, "mapping the proxy's channels to the device or allocating their counters failed: %s",
                cudaGetErrorString(cudaGetLastError()));
      return Status::out_of_memory;
    }
    device_view = static_cast<nvshm_proxy_channel *>(dev);
    if (const cudaError_t err = alloc_result_word(&rt.remote_g_word); err != cudaSuccess) {
      log_error(kInit, "cudaHostAlloc of the stream g's result word failed: %s", cudaGetErrorString(err));
      return Status::out_of_memory;
    }
  } else {  // no device code reaches these: the proxy runs for tests of its start and stop
    rt.proxy_channels = static_cast<nvshm_proxy_channel *>(calloc(1, bytes));
    rt.proxy_counters = static_cast<nvshm_proxy_counters *>(calloc(1, counter_bytes));
    if (!rt.proxy_channels || !rt.proxy_counters) {
      log_error(kInit, "no memory for the proxy's channels (%zu bytes)", bytes);
      return Status::out_of_memory;
    }
  }
  for (unsigned c = 0; c < NVSHM_PROXY_CHANNELS; ++c)
    rt.proxy_channels[c].timeout_ns = static_cast<uint64_t>(rt.env.bootstrap_timeout) * 1000000000ull;
  rt.proxy = std::make_unique<Proxy>(*engine, rt.proxy_channels, static_cast<int>(NVSHM_PROXY_CHANNELS),
                                     rt.boot->size(), static_cast<int>(rt.env.proxy_request_batch_max),
                                     rt.on_device() ? rt.context : nullptr, nvshmem_global_exit, proxy_collective);
  if (rt.on_device()) {
    rt.device_state.proxy_channels = device_view;
    rt.device_state.proxy_counters = rt.proxy_counters;
  }
  NVSHM_INFO(kInit, "host proxy started: %u channels of %u requests (%zu bytes of %s memory)%s", NVSHM_PROXY_CHANNELS,
             NVSHM_PROXY_ENTRIES, bytes, rt.on_device() ? "mapped pinned host" : "host",
             rt.on_device() ? "; collective launches leave one SM's worth of blocks free for the kernel that applies "
                              "remote PEs' atomics to this GPU"
                            : "");
  return Status::ok;
}

// Stops the proxy after it executed every request written so far, and frees its channels (also those of
// a start that failed halfway). Stopped before rt.proxy is cleared: a device collective still running on a
// team thread settles through quiet_pe, which reads rt.proxy.
void stop_proxy(Runtime &rt) {
  if (rt.proxy) rt.proxy->stop();
  rt.proxy.reset();
  rt.device_state.proxy_channels = nullptr;
  rt.device_state.proxy_counters = nullptr;
  if (rt.on_device()) {
    if (rt.proxy_channels) cudaFreeHost(rt.proxy_channels);
    if (rt.proxy_counters) cudaFree(rt.proxy_counters);
    free_result_word(rt.remote_g_word);
    rt.remote_g_word = nullptr;
  } else {
    free(rt.proxy_channels);
    free(rt.proxy_counters);
  }
  rt.proxy_channels = nullptr;
  rt.proxy_counters = nullptr;
}

Status init_device_state(Runtime &rt) {
  nvshm_device_state &s = rt.device_state;
  s.version = NVSHM_DEVICE_STATE_VERSION;
  s.initialized = 1;
  s.my_pe = rt.boot->rank();
  s.n_pes = rt.boot->size();
  s.node_my_pe = rt.mapped.my_index;
  s.node_n_pes = static_cast<int>(rt.mapped.pes.size());
  s.node_pe_start = rt.mapped.pes.front();
  s.heap_on_device = rt.on_device();
  s.tma_policy = rt.tma_policy;
  NVSHM_TRY(tma_policy_of(rt, &s.tma_policy));
  s.heap_base_code = reinterpret_cast<uintptr_t>(rt.heap->world_base()) ^ NVSHM_HEAP_BASE_MASK;
  s.heap_stride = rt.heap->stride();
  s.heap_size = rt.heap->span();
  s.my_heap = rt.heap->local();
  if (getrandom(&s.launch_salt, sizeof(s.launch_salt), 0) != static_cast<ssize_t>(sizeof(s.launch_salt))) {
    log_error(kInit, "getrandom failed: %s; cannot key the device's per-launch records", strerror(errno));
    return Status::internal;
  }
  s.launch_salt |= 0x8000000080000000ull;
  NVSHM_TRY(TeamTable::create(*rt.boot, rt.node, rt.mapped, *rt.heap, *rt.peers, static_cast<int>(rt.env.max_teams),
                              rt.env.reduce_scratch_size, ll_slot_words(rt, rt.heap->kind()),
                              static_cast<int>(rt.env.bootstrap_timeout), &rt.teams));
  s.teams = rt.teams->device_table();
  s.max_teams = rt.teams->max_teams();
  for (int team = 0; team < NVSHM_PREDEFINED_TEAMS; ++team) s.predefined_teams[team] = rt.teams->device_entry(team);
  NVSHM_TRY(start_proxy(rt));
  if (rt.on_device()) NVSHM_TRY(publish_device_state(s, rt.context));
  return Status::ok;
}

// NVSHMEM_REMOTE_TRANSPORT for a PE that has remote peers: ucx (NVIDIA's InfiniBand names are taken
// as ucx, which drives InfiniBand itself), or a message naming why the job cannot run.
Status check_remote_transport(const Runtime &rt) {
  const std::string &want = rt.env.remote_transport;
  const std::string why = rt.node.n_nodes > 1 ? "the job spans " + std::to_string(rt.node.n_nodes) + " nodes"
                                              : std::string("NVSHMEM_DISABLE_P2P=1 maps no peer");
  if (rt.env.ib_enable_ibgda)
    NVSHM_WARN(kInit,
               "NVSHMEM_IB_ENABLE_IBGDA=1: not in this version; device-initiated operations on remote PEs go "
               "through the host proxy");
  if (!strcasecmp(want.c_str(), "ucx")) return Status::ok;
  if (!strcasecmp(want.c_str(), "ibrc") || !strcasecmp(want.c_str(), "ibdevx") || !strcasecmp(want.c_str(), "ibgda")) {
    NVSHM_WARN(kInit, "NVSHMEM_REMOTE_TRANSPORT=%s is served by UCX here (UCX drives InfiniBand itself)", want.c_str());
    return Status::ok;
  }
  log_error(kInit, "%s, but NVSHMEM_REMOTE_TRANSPORT=none: other PEs cannot be reached; unset it (ucx)", why.c_str());
  return Status::not_supported;
}

RemoteOptions remote_options(const Runtime &rt, HeapKind kind) {
  RemoteOptions o;
  o.timeout_s = static_cast<int>(rt.env.bootstrap_timeout);
  // Debian's UCX cannot register GPU memory: the GPU heap takes the staged path (docs/remote.md).
  const std::string &path = rt.env.remote_heap_path;  // auto or staged (the environment table checks it)
  o.staged = kind == HeapKind::device || !strcasecmp(path.c_str(), "staged");
  o.context = kind == HeapKind::device ? rt.context : nullptr;
  o.hca_list = rt.env.hca_list;
  o.hca_pe_mapping = rt.env.hca_pe_mapping;
  o.nic_pe_mapping = rt.env.enable_nic_pe_mapping;
  o.local_rank = rt.node.host_index;
  o.ib_gid_index = rt.env.ib_gid_index;
  o.ib_sl = rt.env.ib_sl;
  o.ib_traffic_class = rt.env.ib_traffic_class;
  o.cpu_affinity = rt.env.cpu_affinity;
  const std::string &mode = rt.env.remote_progress;
  if (!strcasecmp(mode.c_str(), "spin")) {
    o.spin_progress = true;
  } else if (!strcasecmp(mode.c_str(), "auto")) {
    // A spinning thread per PE needs cores to spare: other PEs of the host (of every clique, also under
    // NVSHMEM_DISABLE_P2P; PEs of other fake hosts on this machine are not seen), their calling threads and
    // the application's.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    o.spin_progress = static_cast<unsigned>(rt.node.host_pes) * 4 <= cores;
  }
  return o;
}

Status init_steps(Runtime &rt, unsigned flags, const nvshmemx_init_attr_t *attr) {
  NVSHM_TRY(env_load(&rt.env));  // sets the log level (NVSHMEM_DEBUG, maybe from a configuration file)
  NVSHM_TRY(check_header_versions(kInit));
  NVSHM_TRY(parse_tma_policy(rt.env.tma_policy, &rt.tma_policy));
  NVSHM_TRY(bootstrap_create(flags, attr, rt.env, &rt.boot));
  log_set_pe(rt.boot->rank());
  if (rt.boot->rank() == 0 && rt.env.info) env_print(rt.env, stdout);
  if (rt.boot->rank() == 0 && (rt.env.version || log_enabled(LogLevel::version)))
    fprintf(stderr, "nvshmem version %s (NVSHMEM API level %d.%d.%d), %d PEs\n", NVSHM_RELEASE_STRING,
            NVSHMEM_VENDOR_MAJOR_VERSION, NVSHMEM_VENDOR_MINOR_VERSION, NVSHMEM_VENDOR_PATCH_VERSION, rt.boot->size());
  NVSHM_TRY(node_discover(*rt.boot, static_cast<int>(rt.env.num_cliques), &rt.node));
  rt.mapped = rt.env.disable_p2p ? node_self(rt.node) : rt.node;
  const bool my_remote = rt.mapped.pes.size() < static_cast<std::size_t>(rt.boot->size());
  NVSHM_TRY(agree(*rt.boot, my_remote ? check_remote_transport(rt) : Status::ok));
  HeapKind kind = HeapKind::host;
  Status st = choose_heap_kind(rt, &kind);
  if (st == Status::ok && kind == HeapKind::device) st = select_gpu(rt, attr);
  NVSHM_TRY(agree(*rt.boot, st));
  struct Choice {
    int32_t kind;
    int32_t remote;  // this PE has remote peers
    PeGpu gpu;
  };
  std::vector<Choice> choices(rt.boot->size());
  Choice mine{static_cast<int32_t>(kind), my_remote, {}};
  if (kind == HeapKind::device) describe_gpu(rt.device, &mine.gpu);
  NVSHM_TRY(rt.boot->allgather(&mine, choices.data(), sizeof mine));
  std::vector<PeGpu> gpus(choices.size());
  std::transform(choices.begin(), choices.end(), gpus.begin(), [](const Choice &c) { return c.gpu; });
  rt.gpu_sharing = gpu_sharing_of(gpus, rt.boot->rank(), rt.env.ignore_mps_thread_percentage);
  log_gpu_sharing(rt.gpu_sharing);
  bool any_remote = false;
  for (int pe = 0; pe < rt.boot->size(); ++pe) {
    any_remote = any_remote || choices[pe].remote;
    if (choices[pe].kind != mine.kind) {
      log_error(kInit,
                "PEs disagree on the heap kind (PE %d: %s, PE %d: %s): some see a GPU and some do not; "
                "set NVSHMEM_HEAP_KIND",
                pe, choices[pe].kind ? "host" : "device", rt.boot->rank(), mine.kind ? "host" : "device");
      return Status::symmetry;
    }
  }
  {
    ContextGuard guard(rt.context);
    const std::size_t reserved =
        kHeapHeadroomBytes + TeamTable::workspace_bytes(static_cast<int>(rt.env.max_teams), rt.env.reduce_scratch_size,
                                                        rt.boot->size(), ll_slot_words(rt, kind));
    // Registered symmetric buffers need CUDA VMM: the host heap's slots hold the heap only.
    const std::size_t slot_bytes = kind == HeapKind::device ? rt.env.max_memory_per_gpu : 0;
    NVSHM_TRY(SymmetricHeap::create(*rt.boot, rt.mapped, kind, rt.device, rt.env.symmetric_size, reserved, slot_bytes,
                                    rt.env.cumem_granularity, static_cast<int>(rt.env.bootstrap_timeout), &rt.heap));
    if (kind == HeapKind::device)
      NVSHM_TRY(agree(*rt.boot, make_device_transport(rt)));
    else
      rt.transport = make_host_transport();
    std::unique_ptr<RemoteEngine> engine;
    if (any_remote)
      NVSHM_TRY(make_ucx_engine(*rt.boot, rt.heap->local(), rt.heap->span(), *rt.transport, remote_options(rt, kind),
                                &engine));
    rt.peers = std::make_unique<Peers>(*rt.heap, *rt.transport, std::move(engine));
    NVSHM_TRY(agree(*rt.boot, init_device_state(rt)));
  }
  NVSHM_TRY(rt.boot->barrier());
  NVSHM_INFO(kInit, "PE %d of %d ready: heap of %zu bytes in %s memory, bootstrap '%s', %zu PEs mapped, %s",
             rt.boot->rank(), rt.boot->size(), rt.heap->size(), kind == HeapKind::device ? "GPU" : "host shared",
             rt.boot->name(), rt.mapped.pes.size(), rt.peers->remote() ? "remote engine UCX" : "no remote engine");
  return Status::ok;
}
}  // namespace

Status quiet_pe(Runtime &rt, const char *call) {
  if (rt.proxy) NVSHM_TRY(rt.proxy->settle(call));
  return rt.peers->quiet();
}

Status runtime_init(unsigned flags, const nvshmemx_init_attr_t *attr) {
  if (g_runtime) return Status::ok;
  auto rt = std::make_unique<Runtime>();
  Status st = init_steps(*rt, flags, attr);
  if (st != Status::ok) {
    withdraw_device_state();
    if (rt->heap) {
      ContextGuard guard(rt->context);
      stop_proxy(*rt);
    }
    rt.reset();  // closes the bootstrap connection first, so a server in this process can end at once
    uid_servers_reap();
    log_set_pe(-1);
    return st;
  }
  g_runtime = rt.release();
  return Status::ok;
}

void runtime_finalize() {
  Runtime *rt = g_runtime;
  if (!rt) return;
  {
    ContextGuard guard(rt->context);
    if (rt->on_device()) driver().cuCtxSynchronize();
    stop_proxy(*rt);  // after the kernels: it executes what they left in its channels, then the quiet covers it
    require_ok(rt->peers->quiet(), "nvshmem_finalize");
    unregister_user_buffers(*rt);
    if (rt->peers->remote()) rt->peers->remote()->prepare_finalize();
    require_ok(rt->boot->barrier(), "nvshmem_finalize");
    withdraw_device_state();
    rt->teams.reset();
    rt->peers.reset();
    rt->transport.reset();
    rt->heap.reset();
  }
  rt->boot.reset();
  uid_servers_reap();
  delete rt;
  g_runtime = nullptr;
  log_set_pe(-1);
}

void fail_not_initialised(const char *call) {
  fatal(call,
        "the library is not initialised (call nvshmem_init first; after nvshmem_finalize no call but "
        "nvshmem_init is allowed)");
}

void require_pe(const Runtime &rt, int pe, const char *call) {
  if (pe < 0 || pe >= rt.boot->size()) fatal(call, "PE %d is out of range (the job has %d PEs)", pe, rt.boot->size());
}

Target require_target(const Runtime &rt, const void *sym, std::size_t bytes, int pe, const char *call,
                      const char *arg_name) {
  require_pe(rt, pe, call);
  if (!rt.heap->contains(sym, bytes ? bytes : 1))
    fatal(call, "%s=%p (%zu bytes) is not inside the symmetric heap [%p, %p)", arg_name, sym, bytes,
          static_cast<void *>(rt.heap->local()), static_cast<void *>(rt.heap->local() + rt.heap->size()));
  return rt.peers->target(sym, pe);
}

void *require_mapped(const Runtime &rt, const void *sym, std::size_t bytes, int pe, const char *call,
                     const char *arg_name) {
  const Target t = require_target(rt, sym, bytes, pe, call, arg_name);
  if (!t.mapped)
    fatal(call, "PE %d is remote (another node, or NVSHMEM_DISABLE_P2P=1): this call does not reach remote PEs yet",
          pe);
  return t.mapped;
}

void fail_local_null(std::size_t bytes, const char *call, const char *arg_name) {
  fatal(call, "%s is NULL (a transfer of %zu bytes needs a local buffer)", arg_name, bytes);
}

const Team &require_team(const Runtime &rt, nvshmem_team_t team, const char *call) {
  const Team *t = rt.teams->find(team);
  if (!t) fatal(call, "team %d is not a valid team of this PE", team);
  return *t;
}

int to_nvshmemx_status(Status st) {
  switch (st) {
    case Status::ok:
      return NVSHMEMX_SUCCESS;
    case Status::invalid_value:
      return NVSHMEMX_ERROR_INVALID_VALUE;
    case Status::out_of_memory:
      return NVSHMEMX_ERROR_OUT_OF_MEMORY;
    case Status::not_supported:
      return NVSHMEMX_ERROR_NOT_SUPPORTED;
    case Status::symmetry:
      return NVSHMEMX_ERROR_SYMMETRY;
    case Status::no_gpu:
      return NVSHMEMX_ERROR_GPU_NOT_SELECTED;
    default:
      return NVSHMEMX_ERROR_INTERNAL;
  }
}

void fail_status(Status st, const char *call) {
  fatal(call, "failed (%s); see the message above", status_name(st));
}

}  // namespace nvshm
