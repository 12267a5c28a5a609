// SPDX-License-Identifier: BSD-3-Clause
// The PMIx bootstrap: libpmix (Debian's libpmix.so.2) reached at run time with dlopen, so that
// libnvshmem_host.so has no link-time dependency. PMIx only carries, once per session, the unique id
// of a TCP rendezvous server that PE 0 starts; the rounds run over that TCP star ("PMIx" as name).
// Why not the key-value store: PMIx cannot remove a key and does not overwrite one reliably
// (openpmix#3368), so a key per round piled up and every fence carried all earlier rounds' data (a
// cycle at round 115 cost 20 times one at round 15). Types and constants come from PMIx's <pmix.h>
// (Debian: libpmix-dev); a build without it has no PMIx bootstrap and says so at init.
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

#if NVSHM_HAVE_PMIX_H
#include <pmix.h>

namespace nvshm::boot {
namespace {

constexpr const char *kDefaultPmixLibrary = "libpmix.so.2";

struct PmixApi {
  decltype(&PMIx_Init) Init;
  decltype(&PMIx_Finalize) Finalize;
  decltype(&PMIx_Put) Put;
  decltype(&PMIx_Commit) Commit;
  decltype(&PMIx_Fence) Fence;
  decltype(&PMIx_Get) Get;
  decltype(&PMIx_Error_string) Error_string;
  decltype(&PMIx_Value_destruct) Value_destruct;  // optional: older libraries lack it
  std::string error(pmix_status_t rc) const {
    return std::string(Error_string ? Error_string(rc) : "PMIx error") + " (" + std::to_string(rc) + ")";
  }
  void release(pmix_value_t *v) const {
    if (!v) return;
    if (Value_destruct)
      Value_destruct(v);
    else if (v->type == PMIX_BYTE_OBJECT)
      free(v->data.bo.bytes);
    free(v);
  }
};

void set_info(pmix_info_t *info, const char *key, pmix_data_type_t type, int value) {
  memset(info, 0, sizeof *info);
  strncpy(info->key, key, sizeof info->key - 1);
  info->value.type = type;
  if (type == PMIX_BOOL)
    info->value.data.flag = value != 0;
  else
    info->value.data.integer = value;
}

// The job's size (pmix.job.size).
Status job_size(const PmixApi &api, const pmix_proc_t &me, int *size) {
  pmix_proc_t wild = me;
  wild.rank = PMIX_RANK_WILDCARD;
  pmix_value_t *v = nullptr;
  pmix_status_t rc = api.Get(&wild, PMIX_JOB_SIZE, nullptr, 0, &v);
  if (rc != PMIX_SUCCESS || !v || v->type != PMIX_UINT32) {
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
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = reinterpret_cast<char *>(id);
    val.data.bo.size = started ? sizeof *id : 0;
    rc = api.Put(PMIX_GLOBAL, key.c_str(), &val);
    if (rc == PMIX_SUCCESS) rc = api.Commit();
    if (rc != PMIX_SUCCESS)
      log_error(where, "PMIx_Put/Commit of the bootstrap server's id failed: %s", api.error(rc).c_str());
  }
  pmix_info_t info[2];
  set_info(&info[0], PMIX_TIMEOUT, PMIX_INT, static_cast<int>(std::min(env.bootstrap_timeout, 1000000L)));
  set_info(&info[1], PMIX_COLLECT_DATA, PMIX_BOOL, 1);
  const pmix_status_t frc = api.Fence(nullptr, 0, info, 2);
  if (frc != PMIX_SUCCESS) {
    log_error(where, "PMIx_Fence among %d PEs failed: %s%s", size, api.error(frc).c_str(),
              frc == PMIX_ERR_TIMEOUT
                  ? " within NVSHMEM_BOOTSTRAP_TIMEOUT: some PEs did not arrive (PMIx does not say which)"
                  : "");
    return frc == PMIX_ERR_TIMEOUT ? Status::timeout : Status::peer_failed;
  }
  if (rc != PMIX_SUCCESS) return Status::internal;
  if (me.rank == 0) return Status::ok;
  pmix_proc_t root = me;
  root.rank = 0;
  pmix_value_t *v = nullptr;
  rc = api.Get(&root, key.c_str(), &info[0], 1, &v);
  Status st = Status::ok;
  if (rc != PMIX_SUCCESS || !v) {
    log_error(where, "PMIx_Get of PE 0's bootstrap server id failed: %s", api.error(rc).c_str());
    st = rc == PMIX_ERR_TIMEOUT ? Status::timeout : Status::peer_failed;
  } else if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != sizeof *id) {
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
    if (rc != PMIX_SUCCESS) {
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

#else  // no <pmix.h>

namespace nvshm::boot {

Status pmix_create(const Env &, std::unique_ptr<Bootstrap> *) {
  log_error("nvshmem_init (PMIx bootstrap)",
            "this build of NVSHMEM has no PMIx bootstrap: it was built without PMIx's <pmix.h> (Debian: libpmix-dev)");
  return Status::not_supported;
}

}  // namespace nvshm::boot
#endif
