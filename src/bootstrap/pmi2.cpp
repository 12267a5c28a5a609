// SPDX-License-Identifier: BSD-3-Clause
// The PMI-2 bootstrap (NVSHMEM_BOOTSTRAP_PMI=PMI-2): MPICH's PMI-2 wire protocol over PMI_FD, as hydra's
// mpiexec and Slurm's --mpi=pmi2 serve it. Frames are a 6-character length then "key=value;" pairs
// (pmi2_frame / pmi2_parse in pmi1.hpp). Sequence: a PMI-1 style "cmd=init pmi_version=2" line,
// fullinit (gives rank and size), job-getid, then kvs-put / kvs-fence / kvs-get rounds, finalize.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "bootstrap/methods.hpp"
#include "bootstrap/pmi1.hpp"
#include "bootstrap/rounds.hpp"
#include "common/log.hpp"

namespace nvshm::boot {
namespace {

constexpr std::size_t kPmi2Vallen = 1024;  // PMI2_MAX_VALLEN

// A value inside a frame: ';' is doubled.
std::string escape(const std::string &v) {
  std::string out;
  for (char c : v) out += c == ';' ? std::string(";;") : std::string(1, c);
  return out;
}

// The process manager's own connection (PMI_FD) serves every nvshmem_init of the process: Slurm
// answers the init handshake and fullinit once per connection, so later sessions reuse what the
// first one learnt and put their keys under a new prefix.
struct InheritedSession {
  int fd = -1;
  int rank = 0, size = 1;
  std::string jobid;
  unsigned sessions = 0;
};
InheritedSession g_inherited;

// Reads one PMI-2 frame's body.
Io read_frame(PmiConn &conn, std::string *body, Clock::time_point deadline) {
  std::string head;
  Io io = conn.read_bytes(&head, 6, deadline);
  if (io != Io::ok) return io;
  while (!head.empty() && head.back() == ' ') head.pop_back();
  long len = -1;
  if (!parse_int(head.c_str(), &len) || len < 0 || len > 65536) return Io::error;
  return conn.read_bytes(body, static_cast<std::size_t>(len), deadline);
}

class Pmi2Bootstrap final : public Bootstrap {
 public:
  Pmi2Bootstrap(int fd, long timeout_s) : conn_(fd), timeout_s_(std::min(timeout_s, kMaxTimeout)) {}
  // As for PMI-1 (pmi1.cpp): the process manager's own PMI_FD gets 'finalize' once, at process
  // exit, because Slurm and hydra close the connection after it and a second nvshmem_init would
  // find it closed. Other connections are finalized now.
  ~Pmi2Bootstrap() override {
    if (!at_exit_ && !broken_) command("cmd=finalize;", "finalize-response", nullptr);
  }
  bool at_exit_ = false;
  const char *name() const override { return "PMI-2"; }

  Status start(long rank_hint) {
    const char *where = "nvshmem_init (PMI-2 bootstrap)";
    auto deadline = Clock::now() + std::chrono::seconds(timeout_s_);
    std::string line;
    if (conn_.send_line("cmd=init pmi_version=2 pmi_subversion=0", deadline) != Io::ok ||
        conn_.read_line(&line, deadline) != Io::ok) {
      log_error(where, "no answer to 'init' from the PMI-2 server on PMI_FD within %ld s (NVSHMEM_BOOTSTRAP_TIMEOUT)",
                timeout_s_);
      broken_ = true;
      return Status::timeout;
    }
    PmiLine m = pmi_parse(line);
    if (m["cmd"] != "response_to_init" || m["rc"] != "0" || m["pmi_version"] != "2") {
      log_error(where, "the process manager does not speak PMI-2: it answered '%s' (try NVSHMEM_BOOTSTRAP_PMI=PMI)",
                line.c_str());
      broken_ = true;
      return Status::not_supported;
    }
    // Hydra identifies the process by PMI_ID; Slurm's PMI-2 plugin needs the job id and the rank
    // (PMI_JOBID, PMI_RANK) and refuses a fullinit without pmijobid.
    const char *id = getenv("PMI_ID");
    const char *job = getenv("PMI_JOBID");
    std::string init = "cmd=fullinit;";
    if (job && *job) init += "pmijobid=" + std::string(job) + ";";
    init += (id && *id ? "pmiid=" + std::string(id) : "pmirank=" + std::to_string(rank_hint)) + ";threaded=FALSE;";
    NVSHM_TRY(command(init, "fullinit-response", &m));
    long rank = -1, size = -1;
    if (!parse_int(m["rank"].c_str(), &rank) || !parse_int(m["size"].c_str(), &size) || size < 1 || rank < 0 ||
        rank >= size) {
      log_error(where, "the PMI-2 server gave rank '%s' of size '%s'", m["rank"].c_str(), m["size"].c_str());
      broken_ = true;
      return Status::peer_failed;
    }
    rank_ = static_cast<int>(rank);
    size_ = static_cast<int>(size);
    NVSHM_TRY(command("cmd=job-getid;", "job-getid-response", &m));
    jobid_ = m["jobid"];
    // As for PMI-1: keys are reused by a later session, so nobody starts putting before everyone is here.
    NVSHM_TRY(command("cmd=kvs-fence;", "kvs-fence-response", nullptr));
    NVSHM_INFO("nvshmem_init", "PMI-2 bootstrap: PE %d of %d, job %s", rank_, size_, jobid_.c_str());
    return Status::ok;
  }
  // A later session on the inherited connection: no handshake; a fence so that nobody puts keys of
  // this session before every PE is here.
  Status resume(const InheritedSession &s) {
    rank_ = s.rank;
    size_ = s.size;
    jobid_ = s.jobid;
    key_prefix_ = "nvb" + std::to_string(s.sessions) + "_";
    return command("cmd=kvs-fence;", "kvs-fence-response", nullptr);
  }
  const std::string &jobid() const { return jobid_; }

  Status allgather(const void *in, void *out, std::size_t bytes) override {
    const char *where = "bootstrap allgather (PMI-2)";
    KvsOps kvs;
    kvs.put = [&](const std::string &key, const std::string &value) {
      return command("cmd=kvs-put;key=" + key + ";value=" + value + ";", "kvs-put-response", nullptr);
    };
    kvs.fence = [&] { return command("cmd=kvs-fence;", "kvs-fence-response", nullptr); };
    kvs.get = [&](const std::string &key, std::string *value) {
      PmiLine m;
      NVSHM_TRY(command("cmd=kvs-get;jobid=" + escape(jobid_) + ";srcid=-1;key=" + key + ";", "kvs-get-response", &m));
      if (m["found"] != "TRUE") {
        log_error(where, "the key %s is missing from the PMI-2 key-value space", key.c_str());
        return Status::peer_failed;
      }
      *value = m["value"];
      return Status::ok;
    };
    kvs.value_chars = kPmi2Vallen - 2;
    kvs.space = "PMI-2";
    return kvs_allgather(where, kvs, key_prefix_ + std::to_string(round_++), rank_, size_, in, out, bytes);
  }
  Status barrier() override { return command("cmd=kvs-fence;", "kvs-fence-response", nullptr); }

 private:
  Status command(const std::string &body, const char *expect, PmiLine *answer) {
    const char *where = "bootstrap (PMI-2)";
    if (broken_) {
      log_error(where, "the PMI-2 bootstrap failed earlier; it cannot be used any more");
      return Status::peer_failed;
    }
    std::string cmd = body.substr(4, body.find(';') - 4);
    auto deadline = Clock::now() + std::chrono::seconds(timeout_s_);
    std::string reply;
    Io io = conn_.send_raw(pmi2_frame(body), deadline);
    if (io == Io::ok) io = read_frame(conn_, &reply, deadline);
    if (io != Io::ok) {
      broken_ = true;
      if (io == Io::timeout) {
        log_error(where, "PE %d: no '%s' from the PMI-2 server within %ld s (NVSHMEM_BOOTSTRAP_TIMEOUT) after '%s'%s",
                  rank_, expect, timeout_s_, cmd.c_str(),
                  cmd == "kvs-fence" ? "; some PEs did not reach the fence (the server does not say which)" : "");
        return Status::timeout;
      }
      log_error(where, "PE %d lost the connection to the PMI-2 server (or got a malformed frame) waiting for '%s'",
                rank_, expect);
      return Status::peer_failed;
    }
    PmiLine m = pmi2_parse(reply);
    if (m["cmd"] != expect) {
      log_error(where, "PE %d: the PMI-2 server answered '%s' to '%s'", rank_, reply.c_str(), cmd.c_str());
      broken_ = true;
      return Status::peer_failed;
    }
    if (m.count("rc") && m["rc"] != "0") {
      log_error(where, "PE %d: the PMI-2 server refused '%s': rc=%s %s", rank_, cmd.c_str(), m["rc"].c_str(),
                m["errmsg"].c_str());
      return Status::internal;
    }
    if (answer) *answer = std::move(m);
    return Status::ok;
  }

  PmiConn conn_;
  long timeout_s_;
  bool broken_ = false;
  std::string jobid_;
  unsigned round_ = 0;
  std::string key_prefix_ = "nvb";
};

}  // namespace

Status pmi2_connect_fd(int fd, long rank_hint, const Env &env, std::unique_ptr<Bootstrap> *out) {
  auto b = std::make_unique<Pmi2Bootstrap>(fd, env.bootstrap_timeout);
  NVSHM_TRY(b->start(rank_hint));
  *out = std::move(b);
  return Status::ok;
}

namespace {
void finalize_at_exit() {
  PmiConn conn(g_inherited.fd);
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  std::string reply;
  if (conn.send_raw(pmi2_frame("cmd=finalize;"), deadline) == Io::ok) (void)read_frame(conn, &reply, deadline);
}
}  // namespace

Status pmi2_create(const Env &env, std::unique_ptr<Bootstrap> *out) {
  const char *where = "nvshmem_init (PMI-2 bootstrap)";
  long fd = -1, rank = 0;
  const char *fd_s = getenv("PMI_FD");
  if (!fd_s || !parse_int(fd_s, &fd) || fd < 0 || fcntl(static_cast<int>(fd), F_GETFD) < 0) {
    log_error(where,
              "NVSHMEM_BOOTSTRAP_PMI=PMI-2 needs PMI_FD, an open descriptor to the process manager (got '%s'): start "
              "the program with MPICH's mpiexec or srun --mpi=pmi2",
              fd_s ? fd_s : "(unset)");
    return Status::invalid_value;
  }
  if (const char *r = getenv("PMI_RANK")) parse_int(r, &rank);
  fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  if (g_inherited.fd == fd) {
    auto b = std::make_unique<Pmi2Bootstrap>(static_cast<int>(fd), env.bootstrap_timeout);
    b->at_exit_ = true;
    ++g_inherited.sessions;
    NVSHM_TRY(b->resume(g_inherited));
    *out = std::move(b);
    return Status::ok;
  }
  NVSHM_TRY(pmi2_connect_fd(static_cast<int>(fd), rank, env, out));
  auto *b = static_cast<Pmi2Bootstrap *>(out->get());
  b->at_exit_ = true;
  g_inherited = InheritedSession{static_cast<int>(fd), b->rank(), b->size(), b->jobid(), 0};
  atexit(finalize_at_exit);
  return Status::ok;
}

}  // namespace nvshm::boot
