// SPDX-License-Identifier: BSD-3-Clause
// nvshmem::Runtime (the process-global runtime, reference counted) and nvshmem::ModuleRegistration
// (a driver-API module's access to the device state). docs/cpp.md gives the lifetime rules.
// Host code only.
#pragma once

#include <cuda.h>
#include <nvshmem_host.h>

#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "nvshmem/error.hpp"
#include "nvshmem/init.hpp"

namespace nvshmem {

class Runtime;
class ModuleRegistration;
class Team;
template <class T>
class SymmetricBuffer;

namespace detail {

/// The live runtime. Created by Runtime::init, shared by every Runtime handle, SymmetricBuffer and
/// ModuleRegistration; its destructor (the last owner's release) calls nvshmem_finalize, which is
/// collective: every PE must release its last owner at the same point of its program.
class RuntimeState {
 public:
  explicit RuntimeState(const InitMethod &method) : method_(method) {}
  ~RuntimeState();
  RuntimeState(const RuntimeState &) = delete;
  RuntimeState &operator=(const RuntimeState &) = delete;
  const InitMethod &method() const noexcept { return method_; }

 private:
  InitMethod method_;
};

/// The process-wide registry of the live state. The recursive mutex serialises init against the
/// finalize of the last release (which may run inside init when a temporary handle is dropped);
/// `exists` stays true from the state's creation to the end of its finalize, so that an init racing
/// with another thread's last release waits for that finalize instead of seeing a half-closed runtime.
struct Registry {
  std::recursive_mutex mutex;
  std::condition_variable_any finalized;
  std::weak_ptr<RuntimeState> live;
  bool exists = false;
};
inline Registry &registry() {
  static Registry r;
  return r;
}

inline RuntimeState::~RuntimeState() {
  Registry &reg = registry();
  std::lock_guard<std::recursive_mutex> lock(reg.mutex);
  ::nvshmem_finalize();
  reg.exists = false;
  reg.finalized.notify_all();
}

}  // namespace detail

/// Versions: of the library this process runs (asked at run time) and of the headers it was
/// compiled with. A plain value, filled by Runtime::version.
struct Version {
  int library_major = 0, library_minor = 0, library_patch = 0;  ///< nvshmemx_vendor_get_version_info
  std::string library_name;                                     ///< nvshmem_info_get_name
  int spec_major = 0, spec_minor = 0;                           ///< nvshmem_info_get_version (OpenSHMEM)
  int header_spec_major = NVSHMEM_MAJOR_VERSION;                ///< NVSHMEM_MAJOR_VERSION of the headers
  int header_spec_minor = NVSHMEM_MINOR_VERSION;                ///< NVSHMEM_MINOR_VERSION of the headers
#if defined(NVSHMEM_VENDOR_MAJOR_VERSION)
  int header_major = NVSHMEM_VENDOR_MAJOR_VERSION;  ///< vendor version of the headers
  int header_minor = NVSHMEM_VENDOR_MINOR_VERSION;
  int header_patch = NVSHMEM_VENDOR_PATCH_VERSION;
#else
  int header_major = -1;  ///< -1: these headers carry no vendor version
  int header_minor = -1;
  int header_patch = -1;
#endif
};

/// A handle on the process-global NVSHMEM runtime.
///
/// Lifetime: Runtime::init initialises the runtime (nvshmemx_init_attr) unless it is live already;
/// copies are cheap handles on the same state. The runtime is finalized (nvshmem_finalize, collective)
/// when the last owner is gone: the last Runtime handle, SymmetricBuffer or ModuleRegistration, in any
/// order. After that, init may be called again. A moved-from handle is empty (valid() is false);
/// every member but valid() and the destructor throws Error(NVSHMEMX_ERROR_INVALID_VALUE) on an
/// empty handle.
///
/// Thread safety: init and the release of the last owner are serialised by a process-wide lock;
/// copying and destroying handles is thread safe (std::shared_ptr); the forwarding members are as
/// thread safe as their C calls (RMA and quiet from any thread; barriers one thread per PE).
///
/// Errors: besides the empty-handle error, the forwarding members whose C call returns no status keep
/// the C API's behaviour on failure (message, abort); init and register_module throw Error.
class Runtime {
 public:
  /// Initialise the runtime with `method`, or join the live one. Collective on first init: every PE
  /// of the job calls it (one thread per PE). If a runtime started by Runtime::init is live and was
  /// started with the same method and device (InitMethod::same), returns a handle on it (no
  /// communication). Throws Error:
  ///  - NVSHMEMX_ERROR_INVALID_VALUE when a runtime is live with a different method or device (the
  ///    message names both), or when the runtime was initialised through the C API (nvshmem_init),
  ///    which the C++ layer does not adopt;
  ///  - the library's status when nvshmemx_init_attr / nvshmemx_get_uniqueid /
  ///    nvshmemx_set_attr_uniqueid_args fail (for example NVSHMEMX_ERROR_NOT_SUPPORTED for an MPI
  ///    communicator where the library has no MPI bootstrap).
  [[nodiscard]] static Runtime init(const InitMethod &method = InitMethod::from_environment()) {
    detail::Registry &reg = detail::registry();
    std::unique_lock<std::recursive_mutex> lock(reg.mutex);
    for (;;) {
      if (std::shared_ptr<detail::RuntimeState> live = reg.live.lock()) {
        if (live->method().same(method)) return Runtime(std::move(live));
        const std::string what = "a runtime initialised with " + live->method().describe() + " is live; asked for " +
                                 method.describe() +
                                 " (release every Runtime, SymmetricBuffer and ModuleRegistration first)";
        lock.unlock();  // `live` may be the last owner: its release finalizes under the lock
        live.reset();
        throw Error(NVSHMEMX_ERROR_INVALID_VALUE, "Runtime::init", what);
      }
      if (!reg.exists) break;
      reg.finalized.wait(lock);  // another thread's last release is finalizing
    }
    if (::nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED)
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, "Runtime::init",
                  "the runtime was initialised through the C API (nvshmem_init); the C++ layer does not adopt it");

    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    attr.args.cuda_device_id = method.device();
    unsigned flags = 0;
    UniqueId single_id;
    switch (method.kind()) {
      case InitMethod::Kind::environment:
        break;
      case InitMethod::Kind::unique_id:
        detail::check(::nvshmemx_set_attr_uniqueid_args(method.rank(), method.nranks(), &method.id().raw(), &attr),
                      "nvshmemx_set_attr_uniqueid_args", "bad unique-id arguments: " + method.describe());
        flags = NVSHMEMX_INIT_WITH_UNIQUEID;
        break;
      case InitMethod::Kind::single_pe:
        single_id = UniqueId::generate();
        detail::check(::nvshmemx_set_attr_uniqueid_args(0, 1, &single_id.raw(), &attr),
                      "nvshmemx_set_attr_uniqueid_args", "single_pe");
        flags = NVSHMEMX_INIT_WITH_UNIQUEID;
        break;
      case InitMethod::Kind::mpi_comm:
        if (!method.comm())
          throw Error(NVSHMEMX_ERROR_INVALID_VALUE, "Runtime::init", "InitMethod::mpi_comm with a null communicator");
        attr.mpi_comm = method.comm();
        flags = NVSHMEMX_INIT_WITH_MPI_COMM;
        break;
    }
    detail::check(::nvshmemx_init_attr(flags, &attr), "nvshmemx_init_attr",
                  "initialisation with " + method.describe() + " failed");
    auto state = std::make_shared<detail::RuntimeState>(method);
    reg.live = state;
    reg.exists = true;
    return Runtime(std::move(state));
  }

  /// True when a runtime started by Runtime::init is live in this process. Thread safe.
  static bool is_live() {
    std::lock_guard<std::recursive_mutex> lock(detail::registry().mutex);
    return !detail::registry().live.expired();
  }

  /// False only for a moved-from handle.
  bool valid() const noexcept { return static_cast<bool>(state_); }
  /// The method the live runtime was initialised with.
  const InitMethod &method() const { return state().method(); }

  /// This PE's id in NVSHMEM_TEAM_WORLD (nvshmem_my_pe), 0 .. n_pes()-1. Local; any thread.
  int my_pe() const {
    state();
    return ::nvshmem_my_pe();
  }
  /// Number of PEs of the job (nvshmem_n_pes). Local; any thread.
  int n_pes() const {
    state();
    return ::nvshmem_n_pes();
  }
  /// This PE's index in `team` (nvshmem_team_my_pe): NVSHMEM_TEAM_WORLD, NVSHMEM_TEAM_SHARED,
  /// NVSHMEMX_TEAM_NODE; -1 when this PE is not a member or the team is invalid. Local; any thread.
  int team_my_pe(nvshmem_team_t team) const {
    state();
    return ::nvshmem_team_my_pe(team);
  }
  /// Number of PEs of `team` (nvshmem_team_n_pes); -1 for an invalid team. Local; any thread.
  int team_n_pes(nvshmem_team_t team) const {
    state();
    return ::nvshmem_team_n_pes(team);
  }
  /// The same for a Team (defined in nvshmem/team.hpp).
  int team_my_pe(Team team) const;
  int team_n_pes(Team team) const;
  /// nvshmem_barrier / nvshmem_team_sync on `team` and their stream forms: nvshmem::barrier(team) ...
  /// (defined in nvshmem/collectives.hpp, which gives the contract; Error on failure).
  void barrier(Team team) const;
  void team_sync(Team team) const;
  void barrier_on_stream(Team team, cudaStream_t stream) const;
  void team_sync_on_stream(Team team, cudaStream_t stream) const;
  /// nvshmem_barrier_all: all PEs, one thread each; completes this PE's RMA, then waits for every PE.
  void barrier_all() const {
    state();
    ::nvshmem_barrier_all();
  }
  /// nvshmem_sync_all: all PEs, one thread each; waits for every PE (no quiet).
  void sync_all() const {
    state();
    ::nvshmem_sync_all();
  }
  /// nvshmem_quiet: completes every RMA this PE issued. Any thread.
  void quiet() const {
    state();
    ::nvshmem_quiet();
  }
  /// nvshmem_fence: orders this PE's puts per target PE. Any thread.
  void fence() const {
    state();
    ::nvshmem_fence();
  }
  /// nvshmemx_barrier_all_on_stream: the barrier_all, enqueued on `stream` (returns at once). Collective:
  /// every PE enqueues it, one thread each, in the same order as its other barriers. Needs the heap in
  /// GPU memory.
  void barrier_all_on_stream(cudaStream_t stream) const {
    state();
    ::nvshmemx_barrier_all_on_stream(stream);
  }
  /// nvshmemx_sync_all_on_stream: the sync_all, enqueued on `stream`; collective as
  /// barrier_all_on_stream. Needs the heap in GPU memory.
  void sync_all_on_stream(cudaStream_t stream) const {
    state();
    ::nvshmemx_sync_all_on_stream(stream);
  }
  /// nvshmemx_quiet_on_stream: work enqueued on `stream` later starts after this PE's RMA completed.
  /// Local; any thread.
  void quiet_on_stream(cudaStream_t stream) const {
    state();
    ::nvshmemx_quiet_on_stream(stream);
  }

  /// The library's and the headers' versions. Any thread.
  Version version() const {
    state();
    Version v;
    ::nvshmemx_vendor_get_version_info(&v.library_major, &v.library_minor, &v.library_patch);
    ::nvshmem_info_get_version(&v.spec_major, &v.spec_minor);
    char name[NVSHMEM_MAX_NAME_LEN] = {};
    ::nvshmem_info_get_name(name);
    v.library_name = name;
    return v;
  }

  /// Give the kernels of `module` (loaded with the driver API: cubin, PTX, NVRTC) the device state
  /// (nvshmemx_cumodule_init), returning a guard that keeps the runtime alive and unregisters the
  /// module at its end. Called on every PE that loaded the module, with the module's context current.
  /// The module must stay loaded until the guard is finalized or destroyed. Throws Error with the
  /// library's status on failure (for example when the heap is not in GPU memory).
  [[nodiscard]] ModuleRegistration register_module(CUmodule module) const;

 private:
  template <class T>
  friend class SymmetricBuffer;
  friend class ModuleRegistration;
  explicit Runtime(std::shared_ptr<detail::RuntimeState> s) noexcept : state_(std::move(s)) {}
  const detail::RuntimeState &state() const {
    if (!state_) throw Error(NVSHMEMX_ERROR_INVALID_VALUE, "Runtime", "empty (moved-from) Runtime handle");
    return *state_;
  }
  std::shared_ptr<detail::RuntimeState> state_;
};

/// A driver-API module's registration with the runtime (Runtime::register_module). Neither copyable
/// nor movable: it lives in the scope that created it (C++17 returns it without a copy). Keeps the
/// runtime alive until it is destroyed. One thread uses a guard at a time.
class ModuleRegistration {
 public:
  ModuleRegistration(const ModuleRegistration &) = delete;
  ModuleRegistration &operator=(const ModuleRegistration &) = delete;
  ModuleRegistration(ModuleRegistration &&) = delete;
  ModuleRegistration &operator=(ModuleRegistration &&) = delete;

  /// Unregister now (nvshmemx_cumodule_finalize); the module may be unloaded afterwards. A second
  /// call does nothing. Throws Error with the library's status on failure (the guard then counts as
  /// finalized: the destructor does not try again).
  void finalize() {
    if (done_) return;
    done_ = true;
    detail::check(::nvshmemx_cumodule_finalize(module_), "nvshmemx_cumodule_finalize",
                  "could not unregister the module");
  }
  /// Finalizes if finalize() was not called; a failure is printed to stderr (destructors do not throw).
  /// Then releases its hold on the runtime (which may finalize the runtime: collective).
  ~ModuleRegistration() {
    if (done_) return;
    done_ = true;
    const int rc = ::nvshmemx_cumodule_finalize(module_);
    if (rc != NVSHMEMX_SUCCESS)
      std::fprintf(stderr, "nvshmem::ModuleRegistration: nvshmemx_cumodule_finalize failed (%s)\n", status_name(rc));
  }
  /// The registered module.
  CUmodule module() const noexcept { return module_; }
  /// True once finalize() ran.
  bool finalized() const noexcept { return done_; }

 private:
  friend class Runtime;
  ModuleRegistration(std::shared_ptr<detail::RuntimeState> state, CUmodule module)
      : state_(std::move(state)), module_(module) {
    detail::check(::nvshmemx_cumodule_init(module_), "nvshmemx_cumodule_init", "could not register the module");
  }
  std::shared_ptr<detail::RuntimeState> state_;
  CUmodule module_;
  bool done_ = false;
};

inline ModuleRegistration Runtime::register_module(CUmodule module) const {
  state();
  return ModuleRegistration(state_, module);
}

}  // namespace nvshmem
