// SPDX-License-Identifier: BSD-3-Clause
// The MPI bootstrap for one MPI ABI, written once for both: mpi_openmpi.cpp and mpi_mpich.cpp each include
// their implementation's <mpi.h>, then this file, so that every type and predefined constant below is
// that header's own. The functions are reached through dlsym (no link-time MPI dependency), their types
// taken from the header's declarations. Each including file defines kAbiName (the ABI's name in
// messages) before including this one, and after it:
//   void set_handles(MpiApi *api, void *handle)   MPI_COMM_WORLD, MPI_COMM_NULL, MPI_BYTE, MPI_ERRORS_RETURN
//   bool comm_handle_ok(MPI_Comm comm, const std::string &library, const char *where)
//                                                 false (with a message) for a value that is no communicator
// Internal to src/bootstrap; every definition has internal linkage (one copy per ABI).
#pragma once
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bootstrap/methods.hpp"
#include "bootstrap/rounds.hpp"
#include "bootstrap/wire.hpp"
#include "common/dl.hpp"
#include "common/log.hpp"

namespace nvshm::boot {
namespace {

struct MpiApi {
  decltype(&MPI_Initialized) Initialized;
  decltype(&MPI_Finalized) Finalized;
  decltype(&MPI_Init) Init;
  decltype(&MPI_Finalize) Finalize;
  decltype(&MPI_Comm_rank) Comm_rank;
  decltype(&MPI_Comm_size) Comm_size;
  decltype(&MPI_Comm_idup) Comm_idup;
  decltype(&MPI_Comm_free) Comm_free;
  decltype(&MPI_Comm_set_errhandler) Comm_set_errhandler;
  decltype(&MPI_Comm_get_errhandler) Comm_get_errhandler;
  decltype(&MPI_Errhandler_free) Errhandler_free;
  decltype(&MPI_Iallgather) Iallgather;
  decltype(&MPI_Test) Test;
  decltype(&MPI_Error_string) Error_string;
  decltype(&MPI_Get_library_version) Get_library_version;
  MPI_Comm world{}, null{};
  MPI_Datatype byte{};
  MPI_Errhandler errors_return{};

  // Fills the function table; false (with *missing naming the symbol) when one is absent.
  bool load(void *h, std::string *missing) {
    DlBinder sym(h);
    sym(&Initialized, "MPI_Initialized");
    sym(&Finalized, "MPI_Finalized");
    sym(&Init, "MPI_Init");
    sym(&Finalize, "MPI_Finalize");
    sym(&Comm_rank, "MPI_Comm_rank");
    sym(&Comm_size, "MPI_Comm_size");
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
    char text[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    if (Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
    return text;
  }
};

void set_handles(MpiApi *api, void *handle);
bool comm_handle_ok(MPI_Comm comm, const std::string &library, const char *where);

// Polls a request with MPI_Test (yield, then 20 us sleeps) until it completes or the timeout passes.
Status wait_request(const MpiApi &api, MPI_Request *req, long timeout_s, const char *where, const char *what,
                    int npes) {
  auto deadline = Clock::now() + std::chrono::seconds(std::min(timeout_s, kMaxTimeout));
  for (unsigned spins = 0;; ++spins) {
    int done = 0;
    int rc = api.Test(req, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
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

class MpiBootstrap final : public Bootstrap {
 public:
  MpiBootstrap(const MpiApi &api, MPI_Comm comm, bool finalize_mpi, long timeout_s)
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
    if (rc == MPI_SUCCESS) rc = api_.Comm_size(comm_, &size_);
    if (rc != MPI_SUCCESS) {
      log_error(where, "MPI_Comm_rank/size failed: %s", api_.error_text(rc).c_str());
      return Status::internal;
    }
    return Status::ok;
  }
  Status allgather(const void *in, void *out, std::size_t bytes) override {
    const char *where = "bootstrap allgather (MPI)";
    NVSHM_TRY(check_contribution(where, bytes));
    // First the sizes, so that a mismatch is a clear symmetry error instead of MPI truncation.
    std::uint64_t mine = bytes;
    std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size_));
    NVSHM_TRY(collective(where, &mine, sizes.data(), sizeof mine));
    for (int r = 0; r < size_; ++r) NVSHM_TRY(check_same_size(where, r, sizes[r], rank_, bytes));
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
    MPI_Request req{};
    int rc =
        api_.Iallgather(in, static_cast<int>(bytes), api_.byte, out, static_cast<int>(bytes), api_.byte, comm_, &req);
    if (rc != MPI_SUCCESS) {
      log_error(where, "MPI_Iallgather failed: %s", api_.error_text(rc).c_str());
      return Status::internal;
    }
    return wait_request(api_, &req, timeout_s_, where, "allgather", size_);
  }

  MpiApi api_;
  MPI_Comm comm_;
  bool finalize_mpi_;
  long timeout_s_;
};

// The bootstrap over *comm_ptr (an MPI_Comm of the library `h`), or over MPI_COMM_WORLD when it is NULL.
Status create_for_abi(void *h, const void *comm_ptr, const Env &env, std::unique_ptr<Bootstrap> *out,
                      const std::string &library) {
  const char *where = comm_ptr ? "nvshmemx_init_attr (NVSHMEMX_INIT_WITH_MPI_COMM)" : "nvshmem_init (MPI bootstrap)";
  MpiApi api;
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
    log_error(where, "MPI (%s, %s) is already finalized and cannot be initialised again%s", kAbiName, library.c_str(),
              comm_ptr ? ""
                       : " (with NVSHMEM_BOOTSTRAP=MPI the runtime finalizes the MPI it initialised; call "
                         "MPI_Init in the application to initialise NVSHMEM more than once)");
    return Status::invalid_value;
  }
  MPI_Comm comm = api.world;
  bool we_init = false;
  if (comm_ptr) {
    if (!initialized) {
      log_error(where,
                "MPI is not initialised in the library we use (%s, %s ABI): call MPI_Init before "
                "nvshmemx_init_attr; if the application did, it uses another MPI library: set "
                "NVSHMEM_BOOTSTRAP_MPI_PLUGIN to that library",
                library.c_str(), kAbiName);
      return Status::invalid_value;
    }
    comm = *static_cast<const MPI_Comm *>(comm_ptr);  // the application's MPI_Comm variable
    if (comm == api.null) {
      log_error(where, "*attr->mpi_comm is MPI_COMM_NULL (MPI_Comm_free leaves that in the variable)");
      return Status::invalid_value;
    }
    if (!comm_handle_ok(comm, library, where)) return Status::invalid_value;
  } else if (!initialized) {
    int rc = api.Init(nullptr, nullptr);
    if (rc != MPI_SUCCESS) {
      log_error(where, "MPI_Init (%s) failed: %s", library.c_str(), api.error_text(rc).c_str());
      return Status::internal;
    }
    we_init = true;
  }
  // An invalid communicator is reported through MPI_COMM_WORLD's error handler: make it return for the
  // check, so that we can say what is wrong instead of MPI aborting.
  MPI_Errhandler old{};
  api.Comm_get_errhandler(api.world, &old);
  api.Comm_set_errhandler(api.world, api.errors_return);
  int size = 0;
  int rc = api.Comm_size(comm, &size);
  MPI_Comm dup{};
  MPI_Request req{};
  // Non-blocking, so that a rank that never calls init makes the others fail after the timeout.
  if (rc == MPI_SUCCESS) rc = api.Comm_idup(comm, &dup, &req);
  api.Comm_set_errhandler(api.world, old);
  api.Errhandler_free(&old);
  if (rc != MPI_SUCCESS) {
    log_error(where, "the communicator is not valid (%s): was it freed before nvshmemx_init_attr?",
              api.error_text(rc).c_str());
    if (we_init) api.Finalize();
    return Status::invalid_value;
  }
  NVSHM_TRY(wait_request(api, &req, env.bootstrap_timeout, where, "communicator duplication (MPI_Comm_idup)", size));
  api.Comm_set_errhandler(dup, api.errors_return);
  auto b = std::make_unique<MpiBootstrap>(api, dup, we_init, env.bootstrap_timeout);
  NVSHM_TRY(b->init());
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  api.Get_library_version(version, &len);
  if (char *nl = strchr(version, '\n')) *nl = 0;
  NVSHM_INFO("nvshmem_init", "MPI bootstrap: %s ABI via %s (%s), PE %d of %d%s", kAbiName, library.c_str(), version,
             b->rank(), b->size(), we_init ? ", MPI initialised by the runtime" : "");
  *out = std::move(b);
  return Status::ok;
}

}  // namespace
}  // namespace nvshm::boot
