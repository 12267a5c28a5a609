// SPDX-License-Identifier: BSD-3-Clause
// The MPI bootstrap: allgather/barrier over a communicator of the application's MPI library, which we
// reach at run time (dlopen/dlsym) so that libnvshmem_host.so has no link-time MPI dependency.
// MPI_Comm is ABI-specific (OpenMPI: a pointer to a struct; MPICH and its derivatives: an int), so the
// bootstrap is a template over the handle types and the flavour is read from the loaded library.
#include <dlfcn.h>
#include <sched.h>
#include <strings.h>
#include <time.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bootstrap/methods.hpp"
#include "bootstrap/wire.hpp"
#include "common/dl.hpp"
#include "common/log.hpp"

namespace nvshm::boot {
namespace {

constexpr const char *kDefaultMpiLibrary = "libmpi.so.40";  // OpenMPI 4.x and 5.x

// Handle types and predefined handles of one MPI ABI.
struct OmpiAbi {
  using Comm = void *;
  using Datatype = void *;
  using Request = void *;
  using Errhandler = void *;
  static constexpr const char *name = "OpenMPI";
};
struct MpichAbi {
  using Comm = int;
  using Datatype = int;
  using Request = int;
  using Errhandler = int;
  static constexpr const char *name = "MPICH";
};

template <class Abi>
struct MpiApi {
  using Comm = typename Abi::Comm;
  using Datatype = typename Abi::Datatype;
  using Request = typename Abi::Request;
  using Errhandler = typename Abi::Errhandler;
  int (*Initialized)(int *);
  int (*Finalized)(int *);
  int (*Init)(int *, char ***);
  int (*Finalize)();
  int (*Comm_rank)(Comm, int *);
  int (*Comm_size)(Comm, int *);
  int (*Comm_dup)(Comm, Comm *);
  int (*Comm_idup)(Comm, Comm *, Request *);
  int (*Comm_free)(Comm *);
  int (*Comm_set_errhandler)(Comm, Errhandler);
  int (*Comm_get_errhandler)(Comm, Errhandler *);
  int (*Errhandler_free)(Errhandler *);
  int (*Iallgather)(const void *, int, Datatype, void *, int, Datatype, Comm, Request *);
  int (*Test)(Request *, int *, void *);
  int (*Error_string)(int, char *, int *);
  int (*Get_library_version)(char *, int *);
  Comm world{}, null{};
  Datatype byte{};
  Errhandler errors_return{};
  std::string library;

  // Fills the function table; false (with *missing naming the symbol) when one is absent.
  bool load(void *h, std::string *missing) {
    DlBinder sym(h);
    sym(&Initialized, "MPI_Initialized");
    sym(&Finalized, "MPI_Finalized");
    sym(&Init, "MPI_Init");
    sym(&Finalize, "MPI_Finalize");
    sym(&Comm_rank, "MPI_Comm_rank");
    sym(&Comm_size, "MPI_Comm_size");
    sym(&Comm_dup, "MPI_Comm_dup");
    sym(&Comm_idup, "MPI_Comm_idup");
    sym(&Comm_free, "MPI_Comm_free");
    sym(&Comm_set_errhandler, "MPI_Comm_set_errhandler");
    sym(&Comm_get_errhandler, "MPI_Comm_get_errhandler");
    sym(&Errhandler_free, "MPI_Errhandler_free");
    sym(&Iallgather, "MPI_Iallgather");
    sym(&Test, "MPI_Test");
    sym(&Error_string, "MPI_Error_string");
    sym(&Get_library_version, "MPI_Get_library_version");
    *missing = sym.missing();
    return missing->empty();
  }

  std::string error_text(int rc) const {
    char text[1024] = {0};
    int len = 0;
    if (Error_string(rc, text, &len) != 0) return "MPI error " + std::to_string(rc);
    return text;
  }
};

// OpenMPI's predefined handles are addresses of objects in libmpi. An executable linked with libmpi may
// hold copies of them (copy relocations) that libmpi itself then uses: look them up in the global scope
// first, as the dynamic linker resolved them for libmpi, and in the library only when not found there.
void *ompi_object(void *h, const char *name) {
  void *p = dlsym(RTLD_DEFAULT, name);
  return p ? p : dlsym(h, name);
}
void set_handles(MpiApi<OmpiAbi> *api, void *h) {
  api->world = ompi_object(h, "ompi_mpi_comm_world");
  api->null = ompi_object(h, "ompi_mpi_comm_null");
  api->byte = ompi_object(h, "ompi_mpi_byte");
  api->errors_return = ompi_object(h, "ompi_mpi_errors_return");
}
void set_handles(MpiApi<MpichAbi> *api, void *) {
  // Fixed by MPICH's mpi.h and kept by its ABI-compatible derivatives (Intel MPI, MVAPICH, Cray MPICH).
  api->world = 0x44000000;
  api->null = 0x04000000;
  api->byte = 0x4c00010d;
  api->errors_return = 0x54000001;
}

// Polls a request with MPI_Test (yield, then 20 us sleeps) until it completes or the timeout passes.
template <class Abi>
Status wait_request(const MpiApi<Abi> &api, typename Abi::Request *req, long timeout_s, const char *where,
                    const char *what, int npes) {
  auto deadline = Clock::now() + std::chrono::seconds(std::min(timeout_s, kMaxTimeout));
  for (unsigned spins = 0;; ++spins) {
    int done = 0;
    int rc = api.Test(req, &done, nullptr);
    if (rc != 0) {
      log_error(where, "MPI_Test (%s) failed: %s", what, api.error_text(rc).c_str());
      return Status::peer_failed;
    }
    if (done) return Status::ok;
    if (Clock::now() >= deadline) {
      log_error(where,
                "the MPI %s among %d PEs did not complete within %ld s (NVSHMEM_BOOTSTRAP_TIMEOUT); MPI does not say "
                "which ranks are missing: did every rank of the communicator make the same call?",
                what, npes, timeout_s);
      return Status::timeout;
    }
    if (spins > 1000) {
      timespec ts{0, 20000};
      nanosleep(&ts, nullptr);
    } else {
      sched_yield();
    }
  }
}

template <class Abi>
class MpiBootstrap final : public Bootstrap {
 public:
  using Comm = typename Abi::Comm;
  MpiBootstrap(const MpiApi<Abi> &api, Comm comm, bool finalize_mpi, long timeout_s)
      : api_(api), comm_(comm), finalize_mpi_(finalize_mpi), timeout_s_(timeout_s) {}
  ~MpiBootstrap() override {
    int finalized = 0;
    api_.Finalized(&finalized);
    if (finalized) return;  // the application finalized MPI before us: nothing is left to free
    api_.Comm_free(&comm_);
    if (finalize_mpi_) api_.Finalize();
  }
  const char *name() const override { return "MPI"; }
  Status init() {
    const char *where = "nvshmemx_init_attr (MPI bootstrap)";
    int rc = api_.Comm_rank(comm_, &rank_);
    if (rc == 0) rc = api_.Comm_size(comm_, &size_);
    if (rc != 0) {
      log_error(where, "MPI_Comm_rank/size failed: %s", api_.error_text(rc).c_str());
      return Status::internal;
    }
    return Status::ok;
  }
  Status allgather(const void *in, void *out, std::size_t bytes) override {
    const char *where = "bootstrap allgather (MPI)";
    if (bytes > kMaxBlob) {
      log_error(where, "%zu bytes per PE is more than the bootstrap's limit (%llu)", bytes,
                static_cast<unsigned long long>(kMaxBlob));
      return Status::invalid_value;
    }
    // First the sizes, so that a mismatch is a clear symmetry error instead of MPI truncation.
    std::uint64_t mine = bytes;
    std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size_));
    NVSHM_TRY(collective(where, &mine, sizes.data(), sizeof mine));
    for (int r = 0; r < size_; ++r) {
      if (sizes[r] != mine) {
        log_error(where, "PE %d passed %llu bytes but PE %d passed %zu bytes to the same bootstrap round", r,
                  static_cast<unsigned long long>(sizes[r]), rank_, bytes);
        return Status::symmetry;
      }
    }
    if (bytes == 0) return Status::ok;
    return collective(where, in, out, bytes);
  }
  Status barrier() override {
    std::uint64_t zero = 0;
    std::vector<std::uint64_t> all(static_cast<std::size_t>(size_));
    return collective("bootstrap barrier (MPI)", &zero, all.data(), sizeof zero);
  }

 private:
  // MPI_Iallgather polled with MPI_Test, so that the wait is bounded by NVSHMEM_BOOTSTRAP_TIMEOUT.
  Status collective(const char *where, const void *in, void *out, std::size_t bytes) {
    int finalized = 0;
    api_.Finalized(&finalized);
    if (finalized) {
      log_error(where, "MPI was finalized before nvshmem_finalize: the MPI bootstrap cannot be used any more");
      return Status::peer_failed;
    }
    typename Abi::Request req{};
    int rc =
        api_.Iallgather(in, static_cast<int>(bytes), api_.byte, out, static_cast<int>(bytes), api_.byte, comm_, &req);
    if (rc != 0) {
      log_error(where, "MPI_Iallgather failed: %s", api_.error_text(rc).c_str());
      return Status::internal;
    }
    return wait_request(api_, &req, timeout_s_, where, "allgather", size_);
  }

  MpiApi<Abi> api_;
  Comm comm_;
  bool finalize_mpi_;
  long timeout_s_;
};

// True for an MPICH handle of kind "communicator" (2 kind bits, then 4 object bits).
bool mpich_comm_handle(int h) {
  unsigned u = static_cast<unsigned>(h);
  return (u >> 30) != 0 && ((u >> 26) & 0xf) == 1;
}

template <class Abi>
Status create(void *h, const void *comm_ptr, const Env &env, std::unique_ptr<Bootstrap> *out,
              const std::string &library) {
  const char *where = comm_ptr ? "nvshmemx_init_attr (NVSHMEMX_INIT_WITH_MPI_COMM)" : "nvshmem_init (MPI bootstrap)";
  MpiApi<Abi> api;
  api.library = library;
  std::string missing;
  if (!api.load(h, &missing)) {
    log_error(where, "the MPI library '%s' has no %s: is it an MPI-3 library?", library.c_str(), missing.c_str());
    return Status::not_supported;
  }
  set_handles(&api, h);
  int initialized = 0, finalized = 0;
  api.Initialized(&initialized);
  api.Finalized(&finalized);
  if (finalized) {
    log_error(where, "MPI (%s, %s) is already finalized and cannot be initialised again%s", Abi::name, library.c_str(),
              comm_ptr ? ""
                       : " (with NVSHMEM_BOOTSTRAP=MPI the runtime finalizes the MPI it initialised; call "
                         "MPI_Init in the application to initialise NVSHMEM more than once)");
    return Status::invalid_value;
  }
  typename Abi::Comm comm = api.world;
  bool we_init = false;
  if (comm_ptr) {
    if (!initialized) {
      log_error(where,
                "MPI is not initialised in the library we use (%s, %s ABI): call MPI_Init before "
                "nvshmemx_init_attr; if the application did, it uses another MPI library: set "
                "NVSHMEM_BOOTSTRAP_MPI_PLUGIN to that library",
                library.c_str(), Abi::name);
      return Status::invalid_value;
    }
    memcpy(&comm, comm_ptr, sizeof comm);
    if (comm == api.null) {
      log_error(where, "*attr->mpi_comm is MPI_COMM_NULL (MPI_Comm_free leaves that in the variable)");
      return Status::invalid_value;
    }
    if constexpr (std::is_same_v<Abi, OmpiAbi>) {
      if (reinterpret_cast<std::uintptr_t>(comm) < 4096) {
        log_error(where,
                  "*attr->mpi_comm is %p, not an OpenMPI communicator (%s is OpenMPI); a small integer is an "
                  "MPICH-ABI handle: set NVSHMEM_BOOTSTRAP_MPI_PLUGIN to the application's MPI library",
                  comm, library.c_str());
        return Status::invalid_value;
      }
    } else {
      if (!mpich_comm_handle(comm)) {
        log_error(where,
                  "*attr->mpi_comm is 0x%x, not an MPICH communicator handle (%s has the MPICH ABI); was it "
                  "freed, or does the application use another MPI library (set NVSHMEM_BOOTSTRAP_MPI_PLUGIN)?",
                  static_cast<unsigned>(comm), library.c_str());
        return Status::invalid_value;
      }
    }
  } else if (!initialized) {
    int rc = api.Init(nullptr, nullptr);
    if (rc != 0) {
      log_error(where, "MPI_Init (%s) failed: %s", library.c_str(), api.error_text(rc).c_str());
      return Status::internal;
    }
    we_init = true;
  }
  // An invalid communicator is reported through MPI_COMM_WORLD's error handler: make it return for the
  // check, so that we can say what is wrong instead of MPI aborting.
  typename Abi::Errhandler old{};
  api.Comm_get_errhandler(api.world, &old);
  api.Comm_set_errhandler(api.world, api.errors_return);
  int size = 0;
  int rc = api.Comm_size(comm, &size);
  typename Abi::Comm dup{};
  typename Abi::Request req{};
  // Non-blocking, so that a rank that never calls init makes the others fail after the timeout.
  if (rc == 0) rc = api.Comm_idup(comm, &dup, &req);
  api.Comm_set_errhandler(api.world, old);
  api.Errhandler_free(&old);
  if (rc != 0) {
    log_error(where, "the communicator is not valid (%s): was it freed before nvshmemx_init_attr?",
              api.error_text(rc).c_str());
    if (we_init) api.Finalize();
    return Status::invalid_value;
  }
  NVSHM_TRY(wait_request(api, &req, env.bootstrap_timeout, where, "communicator duplication (MPI_Comm_idup)", size));
  api.Comm_set_errhandler(dup, api.errors_return);
  auto b = std::make_unique<MpiBootstrap<Abi>>(api, dup, we_init, env.bootstrap_timeout);
  NVSHM_TRY(b->init());
  char version[8192] = {0};
  int len = 0;
  api.Get_library_version(version, &len);
  if (char *nl = strchr(version, '\n')) *nl = 0;
  NVSHM_INFO("nvshmem_init", "MPI bootstrap: %s ABI via %s (%s), PE %d of %d%s", Abi::name, library.c_str(), version,
             b->rank(), b->size(), we_init ? ", MPI initialised by the runtime" : "");
  *out = std::move(b);
  return Status::ok;
}

}  // namespace

std::string plugin_library(const std::string &value, const char *fallback) {
  if (value.empty()) return fallback;
  std::size_t slash = value.rfind('/');
  std::string base = slash == std::string::npos ? value : value.substr(slash + 1);
  if (base.rfind("nvshmem_bootstrap", 0) == 0) return fallback;  // NVIDIA's plugin name: not a library of ours
  return value;
}

Status mpi_create(const void *comm, const Env &env, std::unique_ptr<Bootstrap> *out) {
  const char *where = comm ? "nvshmemx_init_attr (NVSHMEMX_INIT_WITH_MPI_COMM)" : "nvshmem_init (MPI bootstrap)";
  // The application's own MPI library, when it is linked in (global scope), is the one its communicator
  // belongs to; otherwise the library named by NVSHMEM_BOOTSTRAP_MPI_PLUGIN.
  std::string library;
  void *h = nullptr;
  Dl_info info{};
  if (void *sym = dlsym(RTLD_DEFAULT, "MPI_Comm_dup"); sym && dladdr(sym, &info) && info.dli_fname) {
    h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (h) library = info.dli_fname;
  }
  if (!h) {
    library = plugin_library(env.bootstrap_mpi_plugin, kDefaultMpiLibrary);
    h = dl_open(library, where, "MPI",
                "install it (OpenMPI: libopenmpi3) or set NVSHMEM_BOOTSTRAP_MPI_PLUGIN to the application's MPI "
                "library (e.g. libmpich.so.12)");
    if (!h) return Status::not_supported;
  }
  // The library is never closed: MPI libraries do not support being unloaded.
  if (dlsym(h, "ompi_mpi_comm_world")) return create<OmpiAbi>(h, comm, env, out, library);
  for (const char *mpich : {"MPIR_Process", "MPIR_Err_create_code", "MPIR_Comm_create", "MPIR_Init_thread"})
    if (dlsym(h, mpich)) return create<MpichAbi>(h, comm, env, out, library);
  log_error(where,
            "cannot tell the ABI of the MPI library '%s' (neither OpenMPI's ompi_mpi_comm_world nor MPICH's MPIR_* "
            "symbols): only OpenMPI and MPICH-ABI libraries are supported",
            library.c_str());
  return Status::not_supported;
}

}  // namespace nvshm::boot
