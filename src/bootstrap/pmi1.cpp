// SPDX-License-Identifier: BSD-3-Clause
// PMI-1 simple protocol: line I/O, nvshmrun's server, and the client bootstrap (NVSHMEM_BOOTSTRAP_PMI=PMI).
#include "bootstrap/pmi1.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "bootstrap/methods.hpp"
#include "bootstrap/rounds.hpp"
#include "common/log.hpp"

namespace nvshm::boot {

PmiLine pmi_parse(const std::string &line) {
  PmiLine out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t end = line.find_first_of(" \t\r", i);
    if (end == std::string::npos) end = line.size();
    std::string word = line.substr(i, end - i);
    std::size_t eq = word.find('=');
    if (eq != std::string::npos) out[word.substr(0, eq)] = word.substr(eq + 1);
    i = end;
  }
  return out;
}

Io PmiConn::send_raw(const std::string &l, Clock::time_point deadline) {
  const char *p = l.data();
  std::size_t left = l.size();
  while (left > 0) {  // PMI_FD may be a blocking descriptor: never block in send itself
    ssize_t n = send(fd_, p, left, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == ENOTSOCK) n = write(fd_, p, left);  // a pipe or terminal, not a socket
    if (n > 0) {
      p += n, left -= static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (ms <= 0) return Io::timeout;
      pollfd pf{fd_, POLLOUT, 0};
      poll(&pf, 1, static_cast<int>(std::min<long long>(ms, 1000)));
      continue;
    }
    return Io::closed;
  }
  return Io::ok;
}

Io PmiConn::fill(Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Io::timeout;
    pollfd p{fd_, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) return Io::error;
    if (n <= 0) continue;
    char chunk[4096];
    ssize_t r = recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (r < 0 && errno == ENOTSOCK) r = read(fd_, chunk, sizeof chunk);
    if (r == 0) return Io::closed;
    if (r < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return Io::error;
    }
    buf_.append(chunk, static_cast<std::size_t>(r));
    return Io::ok;
  }
}

Io PmiConn::read_line(std::string *line, Clock::time_point deadline) {
  for (;;) {
    std::size_t nl = buf_.find('\n');
    if (nl != std::string::npos) {
      *line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return Io::ok;
    }
    if (buf_.size() > 65536) return Io::error;
    if (Io io = fill(deadline); io != Io::ok) return io;
  }
}

Io PmiConn::read_bytes(std::string *out, std::size_t n, Clock::time_point deadline) {
  while (buf_.size() < n)
    if (Io io = fill(deadline); io != Io::ok) return io;
  *out = buf_.substr(0, n);
  buf_.erase(0, n);
  return Io::ok;
}

std::string pmi2_frame(const std::string &body) {
  char len[8];
  snprintf(len, sizeof len, "%-6zu", body.size());
  return std::string(len, 6) + body;
}

PmiLine pmi2_parse(const std::string &body) {
  PmiLine out;
  std::string key, value, *cur = &key;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '=' && cur == &key) {
      cur = &value;
    } else if (c == ';' && i + 1 < body.size() && body[i + 1] == ';') {
      cur->push_back(';');
      ++i;
    } else if (c == ';') {
      if (!key.empty()) out[key] = value;
      key.clear(), value.clear(), cur = &key;
    } else {
      cur->push_back(c);
    }
  }
  if (!key.empty()) out[key] = value;
  return out;
}

std::string hex_encode(const void *data, std::size_t bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string s(2 * bytes, '0');
  auto *p = static_cast<const unsigned char *>(data);
  for (std::size_t i = 0; i < bytes; ++i) s[2 * i] = digits[p[i] >> 4], s[2 * i + 1] = digits[p[i] & 15];
  return s;
}

bool hex_decode(const std::string &text, void *out, std::size_t bytes) {
  if (text.size() != 2 * bytes) return false;
  auto nib = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  auto *p = static_cast<unsigned char *>(out);
  for (std::size_t i = 0; i < bytes; ++i) {
    int hi = nib(text[2 * i]), lo = nib(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    p[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// nvshmrun's server

Pmi1Server::Pmi1Server(std::vector<Fd> fds, std::string kvsname, int vallen_max)
    : fds_(std::move(fds)), kvsname_(std::move(kvsname)), vallen_max_(vallen_max) {
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0) wake_read_.reset(p[0]), wake_write_.reset(p[1]);
  for (Fd &f : fds_) set_nonblocking(f.get());
  thread_ = std::thread([this] { run(); });
}

Pmi1Server::~Pmi1Server() {
  char b = 1;
  ssize_t ignored = write(wake_write_.get(), &b, 1);
  (void)ignored;
  if (thread_.joinable()) thread_.join();
}

void Pmi1Server::run() {
  const int n = static_cast<int>(fds_.size());
  std::vector<std::string> bufs(n);
  std::vector<bool> in_barrier(n, false);
  int barrier_count = 0;
  std::map<std::string, std::string> kvs;
  auto reply = [&](int r, const std::string &line) {
    std::string l = line + "\n";
    if (fds_[r] && send_all(fds_[r].get(), l.data(), l.size(), Clock::now() + std::chrono::seconds(10)) != Io::ok)
      fds_[r].reset();
  };
  auto handle = [&](int r, const std::string &line) {
    PmiLine m = pmi_parse(line);
    const std::string &cmd = m["cmd"];
    if (cmd == "init") {
      reply(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    } else if (cmd == "get_maxes") {
      reply(r, "cmd=maxes kvsname_max=" + std::to_string(kKvsnameMax) + " keylen_max=" + std::to_string(kKeylenMax) +
                   " vallen_max=" + std::to_string(vallen_max_) + " rc=0");
    } else if (cmd == "get_my_kvsname") {
      reply(r, "cmd=my_kvsname kvsname=" + kvsname_ + " rc=0");
    } else if (cmd == "get_appnum") {
      reply(r, "cmd=appnum appnum=0 rc=0");
    } else if (cmd == "get_universe_size") {
      reply(r, "cmd=universe_size size=" + std::to_string(n) + " rc=0");
    } else if (cmd == "put") {
      if (m["key"].size() > kKeylenMax || m["value"].size() > static_cast<std::size_t>(vallen_max_)) {
        reply(r, "cmd=put_result rc=-1 msg=key_or_value_too_long");
      } else {
        kvs[m["key"]] = m["value"];
        reply(r, "cmd=put_result rc=0");
      }
    } else if (cmd == "get") {
      auto it = kvs.find(m["key"]);
      if (it == kvs.end())
        reply(r, "cmd=get_result rc=-1 msg=key_" + m["key"] + "_not_found");
      else
        reply(r, "cmd=get_result rc=0 value=" + it->second);
    } else if (cmd == "barrier_in") {
      if (!in_barrier[r]) in_barrier[r] = true, ++barrier_count;
      if (barrier_count == n) {
        for (int i = 0; i < n; ++i) in_barrier[i] = false, reply(i, "cmd=barrier_out rc=0");
        barrier_count = 0;
      }
    } else if (cmd == "finalize") {
      reply(r, "cmd=finalize_ack rc=0");
    } else if (cmd == "abort") {
      fprintf(stderr, "nvshmrun: PE %d called PMI_Abort: %s\n", r, m["msg"].c_str());
    } else {
      fprintf(stderr, "nvshmrun: PE %d sent an unknown PMI command '%s'\n", r, line.c_str());
      reply(r, "cmd=" + cmd + "_result rc=-1 msg=unknown_command");
    }
  };
  for (;;) {
    std::vector<pollfd> p{{wake_read_.get(), POLLIN, 0}};
    std::vector<int> ranks;
    for (int r = 0; r < n; ++r)
      if (fds_[r]) p.push_back({fds_[r].get(), POLLIN, 0}), ranks.push_back(r);
    if (poll(p.data(), p.size(), -1) < 0 && errno != EINTR) return;
    if (p[0].revents) return;
    for (std::size_t i = 1; i < p.size(); ++i) {
      if (!p[i].revents) continue;
      int r = ranks[i - 1];
      char chunk[8192];
      ssize_t got = recv(fds_[r].get(), chunk, sizeof chunk, 0);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {  // the PE closed its end (it exited): nothing more to serve there
        fds_[r].reset();
        continue;
      }
      bufs[r].append(chunk, static_cast<std::size_t>(got));
      std::size_t nl;
      while ((nl = bufs[r].find('\n')) != std::string::npos) {
        std::string line = bufs[r].substr(0, nl);
        bufs[r].erase(0, nl + 1);
        handle(r, line);
      }
      if (bufs[r].size() > 65536) {
        fprintf(stderr, "nvshmrun: PE %d sent a PMI line longer than 64 KiB; closing its PMI connection\n", r);
        fds_[r].reset();
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The client bootstrap

namespace {

class Pmi1Bootstrap final : public Bootstrap {
 public:
  // The process manager's PMI_FD gets 'finalize' once, at process exit (finalize_at_exit): hydra
  // closes the connection after 'finalize', so finalizing at nvshmem_finalize would make a second
  // nvshmem_init fail, while exiting without it makes hydra stop the whole job. Other connections
  // are finalized now; one we opened (PMI_PORT) is also closed.
  ~Pmi1Bootstrap() override {
    if (at_exit_) return;
    if (!broken_) command("cmd=finalize", "finalize_ack", nullptr, 2);
    if (owned_) close(conn_.fd());
  }
  const char *name() const override { return "PMI"; }

  Status start(const Env &env);
  Status allgather(const void *in, void *out, std::size_t bytes) override;
  Status barrier() override { return pmi_barrier("bootstrap barrier (PMI)"); }

 private:
  explicit Pmi1Bootstrap(int fd, bool owned) : conn_(fd), owned_(owned) {}
  friend Status nvshm::boot::pmi1_create(const Env &, std::unique_ptr<Bootstrap> *);
  friend Status nvshm::boot::pmi1_connect_fd(int, int, int, const Env &, std::unique_ptr<Bootstrap> *);
  // Sends `line`, reads the answer, checks its cmd is `expect` and rc is 0.
  Status command(const std::string &line, const char *expect, PmiLine *answer, long timeout_s = 0);
  Status pmi_barrier(const char *where);

  PmiConn conn_;
  bool owned_;
  bool at_exit_ = false;  // finalized by finalize_at_exit
  bool broken_ = false;
  long timeout_s_ = 120;
  std::string kvsname_;
  std::size_t vallen_ = 1024;
  unsigned round_ = 0;
  std::string prefix_ = "nvb";
};

Status Pmi1Bootstrap::command(const std::string &line, const char *expect, PmiLine *answer, long timeout_s) {
  const char *where = "bootstrap (PMI-1)";
  if (broken_) {
    log_error(where, "the PMI bootstrap failed earlier; it cannot be used any more");
    return Status::peer_failed;
  }
  long t = timeout_s > 0 ? timeout_s : std::min(timeout_s_, kMaxTimeout);
  auto deadline = Clock::now() + std::chrono::seconds(t);
  std::string cmd = line.substr(4, line.find(' ') == std::string::npos ? std::string::npos : line.find(' ') - 4);
  if (conn_.send_line(line, deadline) != Io::ok) {
    log_error(where, "PE %d could not send '%s' to the PMI server (PMI_FD/PMI_PORT): %s", rank_, cmd.c_str(),
              errno ? strerror(errno) : "connection lost");
    broken_ = true;
    return Status::peer_failed;
  }
  std::string reply;
  Io io = conn_.read_line(&reply, deadline);
  if (io != Io::ok) {
    broken_ = true;
    if (io == Io::timeout) {
      log_error(where, "PE %d: no '%s' from the PMI server within %ld s (NVSHMEM_BOOTSTRAP_TIMEOUT) after '%s'%s",
                rank_, expect, t, cmd.c_str(),
                cmd == "barrier_in" ? "; some PEs did not reach the barrier (the PMI server does not say which)" : "");
      return Status::timeout;
    }
    log_error(where, "PE %d lost the connection to the PMI server waiting for '%s' (did the process manager exit?)",
              rank_, expect);
    return Status::peer_failed;
  }
  PmiLine m = pmi_parse(reply);
  if (m["cmd"] != expect) {
    log_error(where, "PE %d: the PMI server answered '%s' to '%s' (expected cmd=%s)", rank_, reply.c_str(), cmd.c_str(),
              expect);
    broken_ = true;
    return Status::peer_failed;
  }
  if (m.count("rc") && m["rc"] != "0") {
    log_error(where, "PE %d: the PMI server refused '%s': rc=%s %s", rank_, cmd.c_str(), m["rc"].c_str(),
              m.count("msg") ? m["msg"].c_str() : "");
    return Status::internal;
  }
  if (answer) *answer = std::move(m);
  return Status::ok;
}

Status Pmi1Bootstrap::start(const Env &env) {
  timeout_s_ = env.bootstrap_timeout;
  PmiLine m;
  NVSHM_TRY(command("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init", &m));
  NVSHM_TRY(command("cmd=get_maxes", "maxes", &m));
  long vallen = 0;
  if (!parse_int(m["vallen_max"].c_str(), &vallen) || vallen < 16) {
    log_error("nvshmem_init (PMI-1 bootstrap)", "the PMI server's vallen_max '%s' is not usable",
              m["vallen_max"].c_str());
    return Status::peer_failed;
  }
  vallen_ = static_cast<std::size_t>(vallen);
  NVSHM_TRY(command("cmd=get_my_kvsname", "my_kvsname", &m));
  kvsname_ = m["kvsname"];
  // A barrier first: a PE that finalized and initialises again must not put keys of round 0 while a slower
  // PE may still read those of the previous session's last round (the key-value space outlives sessions).
  NVSHM_TRY(pmi_barrier("nvshmem_init (PMI-1 bootstrap)"));
  NVSHM_INFO("nvshmem_init", "PMI-1 bootstrap: PE %d of %d, key-value space %s, values up to %zu bytes", rank_, size_,
             kvsname_.c_str(), vallen_);
  return Status::ok;
}

Status Pmi1Bootstrap::pmi_barrier(const char *where) {
  (void)where;
  return command("cmd=barrier_in", "barrier_out", nullptr);
}

// Round k: each PE puts its blob as hex in chunks "nvb<k>.<rank>.<chunk>", barrier, gets all chunks.
Status Pmi1Bootstrap::allgather(const void *in, void *out, std::size_t bytes) {
  const char *where = "bootstrap allgather (PMI-1)";
  KvsOps kvs;
  kvs.put = [&](const std::string &key, const std::string &value) {
    return command("cmd=put kvsname=" + kvsname_ + " key=" + key + " value=" + value, "put_result", nullptr);
  };
  kvs.fence = [&] { return pmi_barrier(where); };
  kvs.get = [&](const std::string &key, std::string *value) {
    PmiLine m;
    NVSHM_TRY(command("cmd=get kvsname=" + kvsname_ + " key=" + key, "get_result", &m));
    *value = m["value"];
    return Status::ok;
  };
  kvs.value_chars = (vallen_ - 1) / 2 * 2;  // whole bytes in hex; keep one character of margin
  kvs.space = "PMI";
  return kvs_allgather(where, kvs, prefix_ + std::to_string(round_++), rank_, size_, in, out, bytes);
}

bool env_int(const char *name, long *out) {
  const char *v = getenv(name);
  return v && parse_int(v, out);
}

}  // namespace

Status pmi1_connect_fd(int fd, int rank, int size, const Env &env, std::unique_ptr<Bootstrap> *out) {
  std::unique_ptr<Pmi1Bootstrap> b(new Pmi1Bootstrap(fd, false));
  b->rank_ = rank;
  b->size_ = size;
  NVSHM_TRY(b->start(env));
  *out = std::move(b);
  return Status::ok;
}

namespace {
int g_exit_fd = -1;  // the process manager's PMI_FD, finalized once at exit
void finalize_at_exit() {
  PmiConn conn(g_exit_fd);
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  std::string reply;
  if (conn.send_line("cmd=finalize", deadline) == Io::ok) (void)conn.read_line(&reply, deadline);
}
}  // namespace

Status pmi1_create(const Env &env, std::unique_ptr<Bootstrap> *out) {
  const char *where = "nvshmem_init (PMI-1 bootstrap)";
  long fd = -1, rank = -1, size = -1;
  const char *port = getenv("PMI_PORT");
  if (env_int("PMI_FD", &fd)) {
    if (fd < 0 || fcntl(static_cast<int>(fd), F_GETFD) < 0) {
      log_error(where, "PMI_FD=%ld is not an open descriptor in this process", fd);
      return Status::invalid_value;
    }
    if (!env_int("PMI_RANK", &rank) || !env_int("PMI_SIZE", &size) || size < 1 || rank < 0 || rank >= size) {
      log_error(where, "PMI_FD is set but PMI_RANK='%s' / PMI_SIZE='%s' are not a rank and a size",
                getenv("PMI_RANK") ? getenv("PMI_RANK") : "(unset)",
                getenv("PMI_SIZE") ? getenv("PMI_SIZE") : "(unset)");
      return Status::invalid_value;
    }
    fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    NVSHM_TRY(pmi1_connect_fd(static_cast<int>(fd), static_cast<int>(rank), static_cast<int>(size), env, out));
    static_cast<Pmi1Bootstrap *>(out->get())->at_exit_ = true;
    if (g_exit_fd < 0) {
      g_exit_fd = static_cast<int>(fd);
      atexit(finalize_at_exit);
    }
    return Status::ok;
  }
  if (port && *port) {
    // "host:port": connect, then the handshake "cmd=initack pmiid=<PMI_ID>" gives size and rank.
    std::string hp = port;
    std::size_t colon = hp.rfind(':');
    long id = 0;
    env_int("PMI_ID", &id);
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    if (colon == std::string::npos ||
        getaddrinfo(hp.substr(0, colon).c_str(), hp.substr(colon + 1).c_str(), &hints, &res) != 0 || !res) {
      log_error(where, "PMI_PORT='%s' is not host:port", port);
      return Status::invalid_value;
    }
    int s = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = s >= 0 ? ::connect(s, res->ai_addr, res->ai_addrlen) : -1;
    freeaddrinfo(res);
    if (rc != 0) {
      log_error(where, "cannot connect to the PMI server at PMI_PORT=%s: %s", port, strerror(errno));
      if (s >= 0) close(s);
      return Status::peer_failed;
    }
    std::unique_ptr<Pmi1Bootstrap> b(new Pmi1Bootstrap(s, true));
    b->timeout_s_ = env.bootstrap_timeout;
    NVSHM_TRY(b->command("cmd=initack pmiid=" + std::to_string(id), "initack", nullptr));
    auto deadline = Clock::now() + std::chrono::seconds(std::min(env.bootstrap_timeout, kMaxTimeout));
    for (int i = 0; i < 3; ++i) {  // cmd=set size=, rank=, debug=
      std::string line;
      if (b->conn_.read_line(&line, deadline) != Io::ok) {
        log_error(where, "the PMI server at %s did not complete the initack handshake", port);
        return Status::peer_failed;
      }
      PmiLine m = pmi_parse(line);
      if (m.count("size")) parse_int(m["size"].c_str(), &size);
      if (m.count("rank")) parse_int(m["rank"].c_str(), &rank);
    }
    if (size < 1 || rank < 0 || rank >= size) {
      log_error(where, "the PMI server at %s gave rank %ld of %ld", port, rank, size);
      return Status::peer_failed;
    }
    b->rank_ = static_cast<int>(rank);
    b->size_ = static_cast<int>(size);
    NVSHM_TRY(b->start(env));
    *out = std::move(b);
    return Status::ok;
  }
  log_error(where,
            "NVSHMEM_BOOTSTRAP_PMI=PMI but neither PMI_FD nor PMI_PORT is set: start the program with a PMI-1 "
            "process manager (MPICH's mpiexec, srun --mpi=pmi1 or nvshmrun)");
  return Status::invalid_value;
}

}  // namespace nvshm::boot
