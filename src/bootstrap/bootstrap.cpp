// SPDX-License-Identifier: BSD-3-Clause
// bootstrap_create and the two Bootstrap kinds: "single" (1 PE) and the TCP star client ("uid", "launcher").
#include "bootstrap/bootstrap.hpp"

#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <initializer_list>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/methods.hpp"
#include "bootstrap/uid_server.hpp"
#include "bootstrap/wire.hpp"
#include "common/log.hpp"

namespace nvshm {
namespace {
using boot::Clock;
using boot::Frame;
using boot::Io;

class SingleBootstrap final : public Bootstrap {
 public:
  const char *name() const override { return "single"; }
  Status allgather(const void *in, void *out, std::size_t bytes) override {
    if (bytes && in != out) memmove(out, in, bytes);
    return Status::ok;
  }
  Status barrier() override { return Status::ok; }
};

// One persistent connection to the rendezvous server (boot::UidServer).
class TcpBootstrap final : public Bootstrap {
 public:
  static Status connect(const boot::UidInfo &info, int rank, int nranks, long timeout_s, const char *name,
                        std::unique_ptr<Bootstrap> *out);
  ~TcpBootstrap() override {
    stop_watch();
    if (!fd_ || broken_ != Status::ok) return;
    boot::FrameHeader h;
    h.type = static_cast<std::uint16_t>(Frame::bye);
    h.rank = rank_;
    boot::send_frame(fd_.get(), h, nullptr, Clock::now() + std::chrono::seconds(1));
  }
  const char *name() const override { return name_; }
  Status allgather(const void *in, void *out, std::size_t bytes) override {
    return round("bootstrap allgather", in, out, bytes);
  }
  Status barrier() override { return round("bootstrap barrier", nullptr, nullptr, 0); }
  void request_global_exit(int status) override {
    if (!fd_ || broken_ != Status::ok) return;
    boot::FrameHeader h;
    h.type = static_cast<std::uint16_t>(Frame::global_exit);
    h.code = static_cast<std::uint16_t>(status & 0xff);
    h.rank = rank_;
    boot::send_frame(fd_.get(), h, nullptr, Clock::now() + std::chrono::seconds(1));
  }

 private:
  Status round(const char *where, const void *in, void *out, std::size_t bytes);
  Status await(const char *where, Frame expect, void *out, std::size_t bytes);
  Clock::time_point answer_deadline() const { return Clock::now() + timeout_ + std::chrono::seconds(2); }
  // Launcher bootstraps: ends this PE when nvshmrun is gone (docs/bootstrap.md, "When nvshmrun dies").
  Status start_watch(const char *where);
  void stop_watch();

  boot::Fd fd_;
  std::string server_;
  const char *name_ = "uid";
  std::chrono::seconds timeout_{120};
  std::uint32_t seq_ = 0;
  Status broken_ = Status::ok;  // after an error every call fails with it
  std::thread watcher_;
  boot::Fd watch_stop_read_, watch_stop_write_;
};

// nvshmrun's children die with it (PR_SET_PDEATHSIG); a PE started through a wrapper is a grandchild
// and would be left running, possibly spinning in a device wait. So a thread sleeps in poll() on the
// connection (POLLRDHUP only: frames for the PE's own calls do not wake it). The server closes a PE's
// connection only when the launcher ends or after a protocol error; in the latter case an ERROR frame
// is waiting, and the PE's next bootstrap call reports it.
Status TcpBootstrap::start_watch(const char *where) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    log_error(where, "pipe2 failed: %s", strerror(errno));
    return Status::internal;
  }
  watch_stop_read_.reset(p[0]);
  watch_stop_write_.reset(p[1]);
  watcher_ = std::thread([fd = fd_.get(), stop = p[0], server = server_] {
    pollfd fds[2] = {{fd, POLLRDHUP, 0}, {stop, POLLIN, 0}};
    for (;;) {
      int n = poll(fds, 2, -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || fds[1].revents) return;
      int unread = 0;
      if (ioctl(fd, FIONREAD, &unread) == 0 && unread > 0) return;  // an ERROR frame: the PE's next call reports it
      log_error("launcher watch",
                "the bootstrap connection to nvshmrun (%s) closed: nvshmrun has ended (killed?); ending this PE",
                server.c_str());
      _exit(1);
    }
  });
  return Status::ok;
}

void TcpBootstrap::stop_watch() {
  if (!watcher_.joinable()) return;
  char b = 1;
  (void)!write(watch_stop_write_.get(), &b, 1);
  watcher_.join();
}

// Connects (retrying until the server is up), says HELLO and waits until every rank has connected.
Status TcpBootstrap::connect(const boot::UidInfo &info, int rank, int nranks, long timeout_s, const char *name,
                             std::unique_ptr<Bootstrap> *out) {
  // The runtime learns the PE id from us, so the messages of this phase name it themselves.
  const std::string where_s = "bootstrap connect (PE " + std::to_string(rank) + " of " + std::to_string(nranks) + ")";
  const char *where = where_s.c_str();
  std::unique_ptr<TcpBootstrap> b(new TcpBootstrap());
  b->rank_ = rank;
  b->size_ = nranks;
  b->name_ = name;
  b->timeout_ = std::chrono::seconds(std::min(timeout_s, boot::kMaxTimeout));
  auto *sa = reinterpret_cast<const sockaddr *>(&info.addr);
  socklen_t len = sa->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  b->server_ = boot::addr_to_string(sa);
  auto deadline = Clock::now() + b->timeout_;
  auto pause = std::chrono::milliseconds(20);
  int last_err = 0;
  for (;;) {
    boot::Fd fd(socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) {
      log_error(where, "socket failed: %s", strerror(errno));
      return Status::internal;
    }
    int err = ::connect(fd.get(), sa, len) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      pollfd p{fd.get(), POLLOUT, 0};
      socklen_t elen = sizeof err;
      if (poll(&p, 1, static_cast<int>(left > 0 ? left : 0)) == 1)
        getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &elen);
      else
        err = ETIMEDOUT;
    }
    if (err == 0) {
      boot::set_nodelay(fd.get());
      b->fd_ = std::move(fd);
      break;
    }
    last_err = err;
    if (err != ECONNREFUSED && err != ETIMEDOUT && err != EHOSTUNREACH && err != ENETUNREACH && err != EAGAIN &&
        err != ECONNRESET) {
      log_error(where, "cannot connect to the bootstrap server at %s: %s", b->server_.c_str(), strerror(err));
      return Status::internal;
    }
    if (Clock::now() + pause >= deadline) {
      log_error(where,
                "could not connect to the bootstrap server at %s within %lld s (NVSHMEM_BOOTSTRAP_TIMEOUT): %s; "
                "is the process that hosts it (nvshmrun, or the PE that called nvshmemx_get_uniqueid) running?",
                b->server_.c_str(), static_cast<long long>(b->timeout_.count()), strerror(last_err));
      return Status::timeout;
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(250)) pause *= 2;
  }
  unsigned char hello[boot::kHelloBytes];
  memcpy(hello, info.secret, boot::kSecretBytes);
  std::uint32_t n = htobe32(static_cast<std::uint32_t>(nranks));
  memcpy(hello + boot::kSecretBytes, &n, 4);
  boot::FrameHeader h;
  h.type = static_cast<std::uint16_t>(Frame::hello);
  h.rank = rank;
  h.length = sizeof hello;
  if (boot::send_frame(b->fd_.get(), h, hello, b->answer_deadline()) != Io::ok) {
    log_error(where, "lost the connection to the bootstrap server at %s while saying HELLO", b->server_.c_str());
    return Status::peer_failed;
  }
  NVSHM_TRY(b->await(where, Frame::ready, nullptr, 0));
  if (strcmp(name, "launcher") == 0) NVSHM_TRY(b->start_watch(where));
  *out = std::move(b);
  return Status::ok;
}

Status TcpBootstrap::round(const char *where, const void *in, void *out, std::size_t bytes) {
  if (bytes > boot::kMaxBlob || bytes * static_cast<std::size_t>(size_) > boot::kMaxRound) {
    log_error(where, "%zu bytes per PE is more than the bootstrap's limits (%llu bytes per PE, %llu bytes in all)",
              bytes, static_cast<unsigned long long>(boot::kMaxBlob), static_cast<unsigned long long>(boot::kMaxRound));
    return Status::invalid_value;
  }
  if (broken_ != Status::ok) {
    log_error(where, "the bootstrap failed earlier (%s); it cannot be used any more", status_name(broken_));
    return broken_;
  }
  boot::FrameHeader h;
  h.type = static_cast<std::uint16_t>(Frame::contrib);
  h.rank = rank_;
  h.seq = seq_;
  h.length = bytes;
  if (boot::send_frame(fd_.get(), h, in, answer_deadline()) != Io::ok) {
    // The server may have sent the reason before closing: prefer it.
    Status s = await(where, Frame::result, nullptr, 0);
    return s == Status::ok ? Status::peer_failed : s;
  }
  NVSHM_TRY(await(where, Frame::result, out, bytes * static_cast<std::size_t>(size_)));
  ++seq_;
  return Status::ok;
}

// Reads the next frame from the server: `expect` (with exactly `bytes` of payload into `out`) or an error.
Status TcpBootstrap::await(const char *where, Frame expect, void *out, std::size_t bytes) {
  auto deadline = answer_deadline();
  unsigned char raw[boot::kHeaderBytes];
  Io io = boot::recv_all(fd_.get(), raw, sizeof raw, deadline);
  boot::FrameHeader h = boot::decode_header(raw);
  if (io == Io::ok && h.magic == boot::kFrameMagic && h.type == static_cast<std::uint16_t>(Frame::error) &&
      h.length <= boot::kMaxText) {
    std::string text(h.length, '\0');
    if (boot::recv_all(fd_.get(), text.data(), text.size(), deadline) != Io::ok)
      text = "the server reported an error; the connection broke before its text arrived";
    broken_ = h.code > 0 && h.code <= static_cast<std::uint16_t>(Status::internal) ? static_cast<Status>(h.code)
                                                                                   : Status::peer_failed;
    log_error(where, "%s", text.c_str());
    return broken_;
  }
  if (io == Io::ok && h.magic == boot::kFrameMagic && h.type == static_cast<std::uint16_t>(expect) &&
      h.length == bytes && (expect != Frame::result || h.seq == seq_)) {
    io = boot::recv_all(fd_.get(), out, bytes, deadline);
    if (io == Io::ok) return Status::ok;
  }
  switch (io) {
    case Io::ok:
      log_error(where, "unexpected %s frame of %llu bytes (round %u) from the bootstrap server at %s",
                boot::frame_name(h.type), static_cast<unsigned long long>(h.length), h.seq, server_.c_str());
      broken_ = Status::peer_failed;
      break;
    case Io::timeout:
      log_error(where, "no answer from the bootstrap server at %s within %lld s (NVSHMEM_BOOTSTRAP_TIMEOUT)",
                server_.c_str(), static_cast<long long>(timeout_.count()));
      broken_ = Status::timeout;
      break;
    default:
      log_error(where,
                "lost the connection to the bootstrap server at %s (the process hosting it, nvshmrun or the PE that "
                "called nvshmemx_get_uniqueid, may have exited)",
                server_.c_str());
      broken_ = Status::peer_failed;
  }
  return broken_;
}

}  // namespace

Status boot::tcp_connect(const boot::UidInfo &info, int rank, int nranks, long timeout_s, const char *name,
                         std::unique_ptr<Bootstrap> *out) {
  return TcpBootstrap::connect(info, rank, nranks, timeout_s, name, out);
}

namespace {
bool parse_rank(const char *text, long *out) {
  return text && parse_int(text, out) && *out >= 0 && *out < (1 << 20);
}

// Reads the variables nvshmrun sets; every malformed value is reported by name.
Status launcher_create(const Env &env, const char *uid_hex, std::unique_ptr<Bootstrap> *out) {
  const char *where = "nvshmem_init (launcher bootstrap)";
  const char *rank_s = getenv(kEnvLauncherRank), *size_s = getenv(kEnvLauncherSize);
  long rank = -1, size = -1;
  if (!parse_rank(size_s, &size) || size < 1) {
    log_error(where, "%s is set but %s='%s' is not a positive PE count", kEnvLauncherUniqueId, kEnvLauncherSize,
              size_s ? size_s : "(unset)");
    return Status::invalid_value;
  }
  if (!parse_rank(rank_s, &rank) || rank >= size) {
    log_error(where, "%s='%s' is not a rank in [0, %ld)", kEnvLauncherRank, rank_s ? rank_s : "(unset)", size);
    return Status::invalid_value;
  }
  nvshmemx_uniqueid_t id;
  boot::UidInfo info;
  if (!boot::uid_from_hex(uid_hex, &id)) {
    log_error(where, "%s is not %zu hex digits", kEnvLauncherUniqueId, 2 * sizeof id);
    return Status::invalid_value;
  }
  NVSHM_TRY(boot::uid_unpack(id, where, &info));
  return TcpBootstrap::connect(info, static_cast<int>(rank), static_cast<int>(size), env.bootstrap_timeout, "launcher",
                               out);
}

std::mutex g_servers_mutex;
std::vector<std::unique_ptr<boot::UidServer>> g_servers;
}  // namespace

// True when any of the named variables is set and non-empty.
bool any_env(std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (const char *v = getenv(n); v && *v) return true;
  return false;
}

Status bootstrap_create(unsigned flags, const nvshmemx_init_attr_t *attr, const Env &env,
                        std::unique_ptr<Bootstrap> *out) {
  const char *where = "nvshmemx_init_attr";
  if (flags & NVSHMEMX_INIT_WITH_SHMEM) {
    log_error(where,
              "the OpenSHMEM bootstrap (NVSHMEMX_INIT_WITH_SHMEM) is not available in this version; use "
              "NVSHMEMX_INIT_WITH_MPI_COMM, NVSHMEMX_INIT_WITH_UNIQUEID, nvshmrun, mpirun or srun");
    return Status::not_supported;
  }
  if (env.bootstrap_timeout <= 0) {
    log_error(where, "NVSHMEM_BOOTSTRAP_TIMEOUT=%ld must be a positive number of seconds", env.bootstrap_timeout);
    return Status::invalid_value;
  }
  if (flags & NVSHMEMX_INIT_WITH_MPI_COMM) {
    if (!attr || !attr->mpi_comm) {
      log_error(where,
                "NVSHMEMX_INIT_WITH_MPI_COMM needs attr->mpi_comm pointing to an MPI_Comm (set it with "
                "nvshmemx_set_attr_mpi_comm_args)");
      return Status::invalid_value;
    }
    return boot::mpi_create(attr->mpi_comm, env, out);
  }
  if (flags & NVSHMEMX_INIT_WITH_UNIQUEID) {
    if (!attr || !attr->args.uid_args.id) {
      log_error(where,
                "NVSHMEMX_INIT_WITH_UNIQUEID needs attr->args.uid_args.id (set it with "
                "nvshmemx_set_attr_uniqueid_args)");
      return Status::invalid_value;
    }
    const nvshmemx_uniqueid_args_t &a = attr->args.uid_args;
    if (a.nranks < 1 || a.myrank < 0 || a.myrank >= a.nranks) {
      log_error(where, "unique-id arguments: myrank %d is not in [0, nranks %d)", a.myrank, a.nranks);
      return Status::invalid_value;
    }
    boot::UidInfo info;
    NVSHM_TRY(boot::uid_unpack(*a.id, where, &info));
    return TcpBootstrap::connect(info, a.myrank, a.nranks, env.bootstrap_timeout, "uid", out);
  }
  const char *method = env.bootstrap.c_str();
  const char *launcher_hex = getenv(kEnvLauncherUniqueId);
  bool launcher = launcher_hex && *launcher_hex;
  if (!strcasecmp(method, "MPI")) return boot::mpi_create(nullptr, env, out);
  if (!strcasecmp(method, "nvshmrun")) {
    if (launcher) return launcher_create(env, launcher_hex, out);
    *out = std::make_unique<SingleBootstrap>();
    return Status::ok;
  }
  std::string pmi = env.bootstrap_pmi;
  if (!strcasecmp(method, "PMIX")) pmi = "PMIX";
  if (*method && strcasecmp(method, "PMI") != 0 && strcasecmp(method, "PMIX") != 0) {
    bool known = !strcasecmp(method, "SHMEM") || !strcasecmp(method, "UID") || !strcasecmp(method, "plugin");
    log_error(where,
              "NVSHMEM_BOOTSTRAP=%s: %s; use PMI (or leave it unset: nvshmrun, PMIx or PMI-1 environments are "
              "detected), MPI or PMIX, or NVSHMEMX_INIT_WITH_UNIQUEID / NVSHMEMX_INIT_WITH_MPI_COMM",
              method, known ? "this bootstrap is not available in this version" : "unknown bootstrap method");
    return known ? Status::not_supported : Status::invalid_value;
  }
  if (pmi.empty()) {  // detect: nvshmrun's own variables first, then PMIx, then PMI-1
    if (launcher) return launcher_create(env, launcher_hex, out);
    if (any_env({"PMIX_RANK", "PMIX_NAMESPACE"})) return boot::pmix_create(env, out);
    if (any_env({"PMI_FD", "PMI_PORT"})) return boot::pmi1_create(env, out);
    *out = std::make_unique<SingleBootstrap>();
    return Status::ok;
  }
  if (!strcasecmp(pmi.c_str(), "PMI") || !strcasecmp(pmi.c_str(), "PMI-1") || !strcasecmp(pmi.c_str(), "PMI1"))
    return boot::pmi1_create(env, out);
  if (!strcasecmp(pmi.c_str(), "PMIX")) return boot::pmix_create(env, out);
  if (!strcasecmp(pmi.c_str(), "PMI-2") || !strcasecmp(pmi.c_str(), "PMI2")) return boot::pmi2_create(env, out);
  log_error(where,
            "NVSHMEM_BOOTSTRAP_PMI=%s: unknown PMI flavour; use PMI (PMI-1: MPICH's mpiexec, srun --mpi=pmi1, "
            "nvshmrun), PMI-2 (mpiexec, srun --mpi=pmi2) or PMIX (OpenMPI's mpirun, srun --mpi=pmix)",
            pmi.c_str());
  return Status::invalid_value;
}

Status uid_generate(const Env &env, nvshmemx_uniqueid_t *id) {
  if (!id) {
    log_error("nvshmemx_get_uniqueid", "the id pointer is NULL");
    return Status::invalid_value;
  }
  std::unique_ptr<boot::UidServer> server;
  NVSHM_TRY(boot::UidServer::start(env, boot::ServerOptions{}, &server));
  *id = server->id();
  std::lock_guard<std::mutex> lock(g_servers_mutex);
  g_servers.push_back(std::move(server));
  return Status::ok;
}

void uid_servers_reap() {
  std::vector<std::unique_ptr<boot::UidServer>> servers;
  {
    std::lock_guard<std::mutex> lock(g_servers_mutex);
    servers.swap(g_servers);
  }
  // Servers without clients are stopped at once; others get a few seconds for the last PEs' BYE.
  // A process forked after nvshmemx_get_uniqueid holds copies of its parent's servers: it only closes
  // its copies of their descriptors (the threads belong to the parent).
  auto end = Clock::now() + std::chrono::seconds(5);
  for (auto &s : servers) {
    if (s->inherited()) {
      s->abandon();
      (void)s.release();
      continue;
    }
    if (!s->had_clients()) continue;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (!s->wait_done(left > std::chrono::milliseconds(0) ? left : std::chrono::milliseconds(0)))
      NVSHM_WARN("nvshmem_finalize", "a bootstrap server still had connected PEs after 5 s; closing it");
  }
  servers.clear();  // stops and joins each thread
}

int launcher_local_rank() {
  // nvshmrun's, then those of OpenMPI, MPICH's hydra, Slurm and PMIx launchers.
  for (const char *name :
       {kEnvLauncherLocalRank, "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMIX_LOCAL_RANK"}) {
    long v;
    if (parse_rank(getenv(name), &v)) return static_cast<int>(v);
  }
  return -1;
}

}  // namespace nvshm
