// SPDX-License-Identifier: BSD-3-Clause
// The PMIx bootstrap: libpmix (Debian's libpmix.so.2) reached at run time with dlopen, so that
// libnvshmem_host.so has no link-time dependency. PMIx only carries, once per session, the unique id
// of a TCP rendezvous server that PE 0 starts; the rounds run over that TCP star ("PMIx" as name).
// Why not the key-value store: PMIx cannot remove a key and does not overwrite one reliably
// (openpmix#3368), so a key per round piled up and every fence carried all earlier rounds' data (a
// cycle at round 115 cost 20 times one at round 15). The few PMIx types used are declared here from
// the PMIx standard's ABI (stable across PMIx 2 .. 5).
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "bootstrap/methods.hpp"
#include "bootstrap/wire.hpp"
#include "common/dl.hpp"
#include "common/log.hpp"

namespace nvshm::boot {
namespace {

constexpr const char *kDefaultPmixLibrary = "libpmix.so.2";

using pmix_status_t = int;
using pmix_rank_t = std::uint32_t;
constexpr pmix_rank_t kRankWildcard = UINT32_MAX - 1;
constexpr std::uint16_t kPmixBool = 1, kPmixInt = 6, kPmixUint32 = 14, kPmixByteObject = 27;
constexpr std::uint8_t kPmixGlobal = 3;
struct pmix_proc_t {
  char nspace[256];
  pmix_rank_t rank;
};
struct pmix_byte_object_t {
  char *bytes;
  std::size_t size;
};
struct pmix_value_t {
  std::uint16_t type;
  union {
    bool flag;
    int integer;
    std::uint32_t uint32;
    pmix_byte_object_t bo;
    char pad[24];  // the largest member of PMIx's union (pmix_envar_t)
  } data;
};
struct pmix_info_t {
  char key[512];
  std::uint32_t flags;
  pmix_value_t value;
};
static_assert(sizeof(pmix_value_t) == 32 && sizeof(pmix_info_t) == 552, "PMIx ABI layout");

struct PmixApi {
  pmix_status_t (*Init)(pmix_proc_t *, pmix_info_t *, std::size_t);
  pmix_status_t (*Finalize)(const pmix_info_t *, std::size_t);
  pmix_status_t (*Put)(std::uint8_t, const char *, pmix_value_t *);
  pmix_status_t (*Commit)();
  pmix_status_t (*Fence)(const pmix_proc_t *, std::size_t, const pmix_info_t *, std::size_t);
  pmix_status_t (*Get)(const pmix_proc_t *, const char *, const pmix_info_t *, std::size_t, pmix_value_t **);
  const char *(*Error_string)(pmix_status_t);
  void (*Value_destruct)(pmix_value_t *);
  std::string error(pmix_status_t rc) const {
    return std::string(Error_string ? Error_string(rc) : "PMIx error") + " (" + std::to_string(rc) + ")";
  }
  void release(pmix_value_t *v) const {
    if (!v) return;
    if (Value_destruct)
      Value_destruct(v);
    else if (v->type == kPmixByteObject)
      free(v->data.bo.bytes);
    free(v);
  }
};

void set_info(pmix_info_t *info, const char *key, std::uint16_t type, int value) {
  memset(info, 0, sizeof *info);
  strncpy(info->key, key, sizeof info->key - 1);
  info->value.type = type;
  if (type == kPmixBool)
    info->value.data.flag = value != 0;
  else
    info->value.data.integer = value;
}

// The job's size (pmix.job.size).
Status job_size(const PmixApi &api, const pmix_proc_t &me, int *size) {
  pmix_proc_t wild = me;
  wild.rank = kRankWildcard;
  pmix_value_t *v = nullptr;
  pmix_status_t rc = api.Get(&wild, "pmix.job.size", nullptr, 0, &v);
  if (rc != 0 || !v || v->type != kPmixUint32) {
    log_error("nvshmem_init (PMIx bootstrap)", "PMIx_Get(pmix.job.size) failed: %s", api.error(rc).c_str());
    api.release(v);
    return Status::internal;
  }
  *size = static_cast<int>(v->data.uint32);
  api.release(v);
  return Status::ok;
}

// PE 0 starts a rendezvous server and puts its unique id under the session's key; after a collecting
// fence every PE reads it. A PE 0 that could not start one puts 0 bytes, which the others report.
Status share_server_id(const PmixApi &api, const pmix_proc_t &me, int size, const Env &env, unsigned session,
                       nvshmemx_uniqueid_t *id) {
  const char *where = "nvshmem_init (PMIx bootstrap)";
  const std::string key = "nvshm.boot.uid." + std::to_string(session);
  pmix_status_t rc = 0;
  if (me.rank == 0) {
    const bool started = uid_generate(env, id) == Status::ok;
    pmix_value_t val{};
    val.type = kPmixByteObject;
    val.data.bo.bytes = reinterpret_cast<char *>(id);
    val.data.bo.size = started ? sizeof *id : 0;
    rc = api.Put(kPmixGlobal, key.c_str(), &val);
    if (rc == 0) rc = api.Commit();
    if (rc != 0) log_error(where, "PMIx_Put/Commit of the bootstrap server's id failed: %s", api.error(rc).c_str());
  }
  pmix_info_t info[2];
  set_info(&info[0], "pmix.timeout", kPmixInt, static_cast<int>(std::min(env.bootstrap_timeout, 1000000L)));
  set_info(&info[1], "pmix.collect", kPmixBool, 1);
  const pmix_status_t frc = api.Fence(nullptr, 0, info, 2);
  if (frc != 0) {
    log_error(where, "PMIx_Fence among %d PEs failed: %s%s", size, api.error(frc).c_str(),
              frc == -24 ? " within NVSHMEM_BOOTSTRAP_TIMEOUT: some PEs did not arrive (PMIx does not say which)" : "");
    return frc == -24 ? Status::timeout : Status::peer_failed;
  }
  if (rc != 0) return Status::internal;
  if (me.rank == 0) return Status::ok;
  pmix_proc_t root = me;
  root.rank = 0;
  pmix_value_t *v = nullptr;
  rc = api.Get(&root, key.c_str(), &info[0], 1, &v);
  Status st = Status::ok;
  if (rc != 0 || !v) {
    log_error(where, "PMIx_Get of PE 0's bootstrap server id failed: %s", api.error(rc).c_str());
    st = rc == -24 ? Status::timeout : Status::peer_failed;
  } else if (v->type != kPmixByteObject || v->data.bo.size != sizeof *id) {
    log_error(where, "PE 0 could not start the bootstrap server (its message says why)");
    st = Status::peer_failed;
  } else {
    memcpy(id, v->data.bo.bytes, sizeof *id);
  }
  api.release(v);
  return st;
}

// PMIx is initialised once per process and finalized at exit: a process manager may not let a client
// initialise again after PMIx_Finalize (OpenMPI's mpirun then completes fences early), and it reports a
// client that exits without PMIx_Finalize as a failure.
struct PmixProcess {
  std::mutex mutex;
  bool ready = false;
  PmixApi api{};
  pmix_proc_t me{};
  std::string library;
  unsigned sessions = 0;
};
PmixProcess &pmix_process() {
  static PmixProcess *p = new PmixProcess();  // never destroyed: used by the exit hook
  return *p;
}
void pmix_at_exit() {
  PmixProcess &p = pmix_process();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.ready) p.api.Finalize(nullptr, 0), p.ready = false;
}

}  // namespace

Status pmix_create(const Env &env, std::unique_ptr<Bootstrap> *out) {
  const char *where = "nvshmem_init (PMIx bootstrap)";
  PmixProcess &proc = pmix_process();
  std::lock_guard<std::mutex> lock(proc.mutex);
  if (!proc.ready) {
    std::string library = plugin_library(env.bootstrap_pmix_plugin, kDefaultPmixLibrary);
    void *h = dl_open(library, where, "PMIx",
                      "install it (Debian: libpmix2) or set NVSHMEM_BOOTSTRAP_PMIX_PLUGIN to the PMIx client library "
                      "of your process manager");
    if (!h) return Status::not_supported;
    PmixApi api{};
    DlBinder sym(h);
    sym(&api.Init, "PMIx_Init", true);
    sym(&api.Finalize, "PMIx_Finalize", true);
    sym(&api.Put, "PMIx_Put", true);
    sym(&api.Commit, "PMIx_Commit", true);
    sym(&api.Fence, "PMIx_Fence", true);
    sym(&api.Get, "PMIx_Get", true);
    sym(&api.Error_string, "PMIx_Error_string", false);
    sym(&api.Value_destruct, "PMIx_Value_destruct", false);
    if (!sym.missing().empty()) {
      log_error(where, "the PMIx library '%s' has no %s", library.c_str(), sym.missing().c_str());
      return Status::not_supported;
    }
    pmix_proc_t me{};
    pmix_status_t rc = api.Init(&me, nullptr, 0);
    if (rc != 0) {
      log_error(where,
                "PMIx_Init failed: %s; was the program started by a PMIx process manager (OpenMPI's mpirun, srun "
                "--mpi=pmix)? PMIX_NAMESPACE='%s'",
                api.error(rc).c_str(), getenv("PMIX_NAMESPACE") ? getenv("PMIX_NAMESPACE") : "(unset)");
      return Status::peer_failed;
    }
    proc.api = api;
    proc.me = me;
    proc.library = library;
    proc.ready = true;
    static bool hooked = false;
    if (!hooked) hooked = atexit(pmix_at_exit) == 0;
  }
  int size = 0;
  NVSHM_TRY(job_size(proc.api, proc.me, &size));
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  NVSHM_TRY(share_server_id(proc.api, proc.me, size, env, proc.sessions++, &id));
  UidInfo info;
  NVSHM_TRY(uid_unpack(id, where, &info));
  NVSHM_INFO("nvshmem_init", "PMIx bootstrap via %s: namespace %s, PE %u of %d", proc.library.c_str(), proc.me.nspace,
             proc.me.rank, size);
  return tcp_connect(info, static_cast<int>(proc.me.rank), size, env.bootstrap_timeout, "PMIx", out);
}

}  // namespace nvshm::boot
