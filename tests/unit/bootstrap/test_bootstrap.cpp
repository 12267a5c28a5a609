// SPDX-License-Identifier: BSD-3-Clause
// Bootstrap layer: the unique-id TCP star between real processes (fork) and threads, its error paths
// (wrong secret, garbage id, size mismatch, missing or dead PEs, dead server) and resource leaks.
#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/uid_server.hpp"
#include "bootstrap/wire.hpp"

namespace nvshm {
namespace {
using Clock = std::chrono::steady_clock;

Env make_env(long timeout_s) {
  Env env;
  EXPECT_EQ(env_load(&env), Status::ok);
  env.bootstrap_timeout = timeout_s;
  return env;
}

Status uid_create(const Env &env, nvshmemx_uniqueid_t *id, int rank, int nranks, std::unique_ptr<Bootstrap> *out) {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  attr.args.uid_args.id = id;
  attr.args.uid_args.myrank = rank;
  attr.args.uid_args.nranks = nranks;
  return bootstrap_create(NVSHMEMX_INIT_WITH_UNIQUEID, &attr, env, out);
}

// A temporary directory for the children's stderr files.
struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/nvshm-boot-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { (void)!system(("rm -rf " + path).c_str()); }
  std::string file(int rank) const { return path + "/pe" + std::to_string(rank) + ".err"; }
};

std::string read_file(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Forks n children running body(rank) (its stderr goes to dir.file(rank)); returns their exit codes
// (-signal for a signal). Children still running after `limit` are killed and reported as -SIGKILL.
std::vector<int> run_children(int n, const TempDir &dir, const std::function<int(int)> &body,
                              std::chrono::seconds limit = std::chrono::seconds(30)) {
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      FILE *err = freopen(dir.file(r).c_str(), "w", stderr);
      (void)err;
      int code = body(r);
      fflush(stderr);
      _exit(code);
    }
    pids.push_back(pid);
  }
  std::vector<int> codes(n, -SIGKILL);
  auto end = Clock::now() + limit;
  for (int left = n; left > 0;) {
    for (int r = 0; r < n; ++r) {
      int st;
      if (pids[r] <= 0 || waitpid(pids[r], &st, WNOHANG) != pids[r]) continue;
      codes[r] = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
      pids[r] = 0;
      --left;
    }
    if (left && Clock::now() > end) {
      for (pid_t p : pids)
        if (p > 0) kill(p, SIGKILL), waitpid(p, nullptr, 0);
      ADD_FAILURE() << "children still running after " << limit.count() << " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return codes;
}

// Runs body(rank) on n threads of this process.
void run_threads(int n, const std::function<void(int)> &body) {
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back(body, r);
  for (auto &t : threads) t.join();
}

unsigned char pattern(int rank, int round, std::size_t i) {
  return static_cast<unsigned char>(rank * 131 + round * 31 + i * 7 + (i >> 8));
}

// Many allgather and barrier rounds with sizes drawn per round (same on every rank) and random small delays;
// returns 0 when every payload arrived intact, else a code saying what went wrong.
int exercise(Bootstrap &b, int rounds) {
  std::mt19937 sizes(1234), delays(static_cast<unsigned>(b.rank()) * 7919 + 1);
  std::vector<unsigned char> in, out;
  for (int round = 0; round < rounds; ++round) {
    if (delays() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(delays() % 300));
    if (round % 5 == 4) {
      if (b.barrier() != Status::ok) return 10;
      continue;
    }
    std::size_t bytes = sizes() % 3 == 0 ? 0 : sizes() % 4096;
    if (round == 1) bytes = 1 << 20;  // one large round
    in.resize(bytes);
    out.assign(bytes * b.size(), 0xee);
    for (std::size_t i = 0; i < bytes; ++i) in[i] = pattern(b.rank(), round, i);
    Status s = b.allgather(in.data(), out.data(), bytes);
    if (s != Status::ok) return 20 + static_cast<int>(s);
    for (int r = 0; r < b.size(); ++r)
      for (std::size_t i = 0; i < bytes; ++i)
        if (out[r * bytes + i] != pattern(r, round, i)) return 40;
  }
  return 0;
}

class UidProcesses : public ::testing::TestWithParam<int> {};

TEST_P(UidProcesses, ManyRoundsIntact) {
  const int n = GetParam();
  Env env = make_env(20);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  EXPECT_EQ(id.version, static_cast<int>(NVSHMEMX_UNIQUEID_VERSION));
  TempDir dir;
  auto codes = run_children(n, dir, [&](int rank) {
    std::this_thread::sleep_for(std::chrono::milliseconds(rank * 37 % 100));  // PEs start at different times
    std::unique_ptr<Bootstrap> b;
    if (uid_create(env, &id, rank, n, &b) != Status::ok) return 1;
    if (b->rank() != rank || b->size() != n || std::string(b->name()) != "uid") return 2;
    int code = exercise(*b, 150);
    b.reset();
    uid_servers_reap();  // as finalize does: must leave the parent's server alone
    return code;
  });
  for (int r = 0; r < n; ++r) EXPECT_EQ(codes[r], 0) << "PE " << r << ": " << read_file(dir.file(r));
  uid_servers_reap();
}

INSTANTIATE_TEST_SUITE_P(Bootstrap, UidProcesses, ::testing::Values(1, 2, 3, 4, 8));

TEST(Bootstrap, IdGeneratedByRankZeroBeforeFork) {
  // Rank 0 generates the id, then forks the other PEs: the server lives in rank 0's process.
  Env env = make_env(20);
  TempDir dir;
  auto codes = run_children(1, dir, [&](int) {
    nvshmemx_uniqueid_t id;
    if (uid_generate(env, &id) != Status::ok) return 1;
    pid_t peers[2];
    for (int r = 1; r <= 2; ++r) {
      if ((peers[r - 1] = fork()) == 0) {
        std::unique_ptr<Bootstrap> b;
        _exit(uid_create(env, &id, r, 3, &b) == Status::ok ? exercise(*b, 40) : 1);
      }
    }
    std::unique_ptr<Bootstrap> b;
    int code = uid_create(env, &id, 0, 3, &b) == Status::ok ? exercise(*b, 40) : 1;
    b.reset();
    uid_servers_reap();
    for (pid_t p : peers) {
      int st = 0;
      waitpid(p, &st, 0);
      if (!code && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) code = 3;
    }
    return code;
  });
  EXPECT_EQ(codes[0], 0) << read_file(dir.file(0));
}

TEST(Bootstrap, ThreadsAsPes) {
  Env env = make_env(20);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  std::vector<int> codes(4, -1);
  run_threads(4, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    codes[r] = uid_create(env, &id, r, 4, &b) == Status::ok ? exercise(*b, 60) : 1;
  });
  for (int c : codes) EXPECT_EQ(c, 0);
  uid_servers_reap();
}

// nvshmrun's server serves session after session (init/finalize repeated in every PE), and a PE that
// starts its next session before the others finished the previous one waits for them.
TEST(Bootstrap, PersistentServerServesRepeatedSessions) {
  Env env = make_env(10);
  std::unique_ptr<boot::UidServer> server;
  ASSERT_EQ(boot::UidServer::start(env, {true, true, nullptr}, &server), Status::ok);
  nvshmemx_uniqueid_t id = server->id();
  std::vector<int> bad(4, 0);
  run_threads(4, [&](int r) {
    std::mt19937 rng(r + 1);
    for (int session = 0; session < 15; ++session) {
      std::unique_ptr<Bootstrap> b;
      if (uid_create(env, &id, r, 4, &b) != Status::ok) return void(++bad[r]);
      int v = session * 10 + r, all[4];
      if (b->allgather(&v, all, sizeof v) != Status::ok) return void(++bad[r]);
      for (int k = 0; k < 4; ++k) bad[r] += all[k] != session * 10 + k;
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));  // uneven finalize
    }
  });
  for (int r = 0; r < 4; ++r) EXPECT_EQ(bad[r], 0) << "PE " << r;
  server->stop();
}

TEST(Bootstrap, WrongSecretRejected) {
  Env env = make_env(5);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  boot::UidInfo info;
  ASSERT_EQ(boot::uid_unpack(id, "test", &info), Status::ok);
  info.secret[3] ^= 0x40;
  boot::uid_pack(info, &id);  // a well-formed id with the wrong secret
  std::unique_ptr<Bootstrap> b;
  testing::internal::CaptureStderr();
  EXPECT_EQ(uid_create(env, &id, 0, 1, &b), Status::invalid_value);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("wrong secret"), std::string::npos) << err;
  EXPECT_NE(err.find("rejected"), std::string::npos) << err;  // the server's own message names the address
  uid_servers_reap();
}

TEST(Bootstrap, GarbageIdRejected) {
  Env env = make_env(5);
  std::unique_ptr<Bootstrap> b;
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  std::mt19937 rng(7);
  for (char &c : id.internal) c = static_cast<char>(rng());
  testing::internal::CaptureStderr();
  EXPECT_EQ(uid_create(env, &id, 0, 1, &b), Status::invalid_value);
  id.version = 12345;
  EXPECT_EQ(uid_create(env, &id, 0, 1, &b), Status::invalid_value);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unique id is not valid"), std::string::npos) << err;

  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  testing::internal::CaptureStderr();
  EXPECT_EQ(uid_create(env, &id, 2, 2, &b), Status::invalid_value);
  EXPECT_EQ(uid_create(env, &id, -1, 2, &b), Status::invalid_value);
  EXPECT_EQ(uid_create(env, nullptr, 0, 1, &b), Status::invalid_value);
  EXPECT_EQ(bootstrap_create(NVSHMEMX_INIT_WITH_UNIQUEID, nullptr, env, &b), Status::invalid_value);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("myrank 2 is not in [0, nranks 2)"), std::string::npos) << err;
  uid_servers_reap();
}

TEST(Bootstrap, HelloChecks) {
  Env env = make_env(5);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  Status s[4];
  testing::internal::CaptureStderr();
  run_threads(4, [&](int t) {
    std::unique_ptr<Bootstrap> b;
    if (t == 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (t == 3) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // t0: rank 0 of 2; t1: rank 1 of 2; t2: rank 0 again (duplicate); t3: rank 1 of 3 (mismatched nranks).
    s[t] = t == 3 ? uid_create(env, &id, 1, 3, &b) : uid_create(env, &id, t % 2, 2, &b);
    if (t < 2 && s[t] == Status::ok) s[t] = b->barrier();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s[0], Status::ok);
  EXPECT_EQ(s[1], Status::ok);
  EXPECT_EQ(s[2], Status::invalid_value);
  EXPECT_EQ(s[3], Status::symmetry);
  EXPECT_NE(err.find("rank 0 is already taken"), std::string::npos) << err;
  EXPECT_NE(err.find("says nranks is 3"), std::string::npos) << err;
  uid_servers_reap();
}

TEST(Bootstrap, MalformedFramesRejected) {
  Env env = make_env(5);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  boot::UidInfo info;
  ASSERT_EQ(boot::uid_unpack(id, "test", &info), Status::ok);
  auto *sa = reinterpret_cast<sockaddr *>(&info.addr);
  testing::internal::CaptureStderr();
  for (int kind = 0; kind < 2; ++kind) {
    boot::Fd fd(socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    ASSERT_EQ(connect(fd.get(), sa, sa->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6)), 0);
    boot::FrameHeader h;
    h.type = static_cast<std::uint16_t>(boot::Frame::hello);
    if (kind == 0) h.magic = 0x12345678;
    if (kind == 1) h.length = 1ull << 40;  // oversized
    unsigned char raw[boot::kHeaderBytes];
    boot::encode_header(h, raw);
    ASSERT_EQ(send(fd.get(), raw, sizeof raw, 0), static_cast<ssize_t>(sizeof raw));
    ASSERT_EQ(boot::recv_all(fd.get(), raw, sizeof raw, Clock::now() + std::chrono::seconds(5)), boot::Io::ok);
    EXPECT_EQ(boot::decode_header(raw).type, static_cast<std::uint16_t>(boot::Frame::error));
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("bad magic"), std::string::npos) << err;
  EXPECT_NE(err.find("HELLO of 1099511627776 bytes"), std::string::npos) << err;
  EXPECT_NE(err.find("rejected " + boot::addr_to_string(sa).substr(0, 4)), std::string::npos) << err;
  // The server still serves a proper client.
  std::unique_ptr<Bootstrap> b;
  ASSERT_EQ(uid_create(env, &id, 0, 1, &b), Status::ok);
  EXPECT_EQ(b->barrier(), Status::ok);
  b.reset();
  uid_servers_reap();
}

// Back-to-back rounds (consecutive barriers, empty and large allgathers) with random delays on every PE,
// while another thread keeps opening hostile connections to the same server: wrong secrets, garbage
// bytes, oversized or out-of-order frames. Each is rejected with a log line naming the sender's address
// and port; the job is not disturbed and every payload arrives intact.
TEST(Bootstrap, BackToBackRoundsSurviveHostileConnections) {
  Env env = make_env(20);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  boot::UidInfo info;
  ASSERT_EQ(boot::uid_unpack(id, "test", &info), Status::ok);
  auto *sa = reinterpret_cast<sockaddr *>(&info.addr);
  const socklen_t salen = sa->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  const int n = 4, rounds = 600;
  std::vector<int> codes(n, -1);
  std::atomic<bool> done{false};
  std::vector<std::string> senders;  // "address:port" of each hostile connection
  testing::internal::CaptureStderr();
  std::thread hostile([&] {
    std::mt19937 rng(5);
    for (int k = 0; !done.load() && k < 400; ++k) {
      boot::Fd fd(socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (connect(fd.get(), sa, salen) != 0) continue;
      sockaddr_storage me{};
      socklen_t len = sizeof me;
      getsockname(fd.get(), reinterpret_cast<sockaddr *>(&me), &len);
      boot::FrameHeader h;
      std::vector<unsigned char> payload;
      switch (k % 5) {
        case 0:  // wrong secret, for a rank the job uses
          h.type = static_cast<std::uint16_t>(boot::Frame::hello);
          h.rank = k % n;
          payload.assign(info.secret, info.secret + boot::kSecretBytes);
          payload[k % boot::kSecretBytes] ^= 0x5a;
          payload.insert(payload.end(), {0, 0, 0, static_cast<unsigned char>(n)});
          break;
        case 1:  // garbage
          h.magic = static_cast<std::uint32_t>(rng());
          break;
        case 2:  // oversized HELLO
          h.type = static_cast<std::uint16_t>(boot::Frame::hello);
          h.length = (1ull << 33) + k;
          break;
        case 3:  // CONTRIB without HELLO
          h.type = static_cast<std::uint16_t>(boot::Frame::contrib);
          h.rank = 0;
          h.length = 4;
          payload.assign(4, 1);
          break;
        default:  // unknown type
          h.type = 77;
      }
      h.length = payload.empty() ? h.length : payload.size();
      unsigned char raw[boot::kHeaderBytes];
      boot::encode_header(h, raw);
      std::string sender = boot::addr_to_string(reinterpret_cast<sockaddr *>(&me));
      if (send(fd.get(), raw, sizeof raw, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof raw)) continue;
      if (!payload.empty()) send(fd.get(), payload.data(), payload.size(), MSG_NOSIGNAL);
      // The server answers with an ERROR frame, then closes.
      if (boot::recv_all(fd.get(), raw, sizeof raw, Clock::now() + std::chrono::seconds(5)) == boot::Io::ok &&
          boot::decode_header(raw).type == static_cast<std::uint16_t>(boot::Frame::error))
        senders.push_back(sender);
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
    }
  });
  run_threads(n, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    if (uid_create(env, &id, r, n, &b) != Status::ok) return void(codes[r] = 1);
    std::mt19937 plan(4242), delays(static_cast<unsigned>(r) + 11);
    std::vector<unsigned char> in, out;
    for (int round = 0; round < rounds; ++round) {
      if (delays() % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(delays() % 400));
      unsigned kind = plan() % 5;
      if (kind <= 1) {  // barriers, often several in a row
        if (b->barrier() != Status::ok) return void(codes[r] = 10);
        continue;
      }
      std::size_t bytes = kind == 2 ? 0 : round % 97 == 0 ? (256u << 10) + round : plan() % 2048;
      in.resize(bytes);
      out.assign(bytes * n, 0xee);
      for (std::size_t i = 0; i < bytes; ++i) in[i] = pattern(r, round, i);
      if (b->allgather(in.data(), out.data(), bytes) != Status::ok) return void(codes[r] = 20);
      for (int p = 0; p < n; ++p)
        for (std::size_t i = 0; i < bytes; ++i)
          if (out[p * bytes + i] != pattern(p, round, i)) return void(codes[r] = 40);
    }
    codes[r] = 0;
  });
  done = true;
  hostile.join();
  uid_servers_reap();  // the server reports the lines it suppressed when it ends
  std::string err = testing::internal::GetCapturedStderr();
  for (int r = 0; r < n; ++r) EXPECT_EQ(codes[r], 0) << "PE " << r << "\n" << err.substr(0, 2000);
  EXPECT_GE(senders.size(), 20u);
  // Rejections are rate-limited (10 lines per 10 s): the first ones are named, the rest counted.
  for (std::size_t k = 0; k < 5; ++k) EXPECT_NE(err.find("rejected " + senders[k] + ": "), std::string::npos) << k;
  EXPECT_NE(err.find("similar messages suppressed"), std::string::npos) << err;
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = err.find("rejected ", at)) != std::string::npos; ++at) ++lines;
  EXPECT_LE(lines, 10 * (1 + 6 * senders.size() / 400));  // one window per 10 s; the run takes well under 60 s
  EXPECT_NE(err.find("wrong secret"), std::string::npos);
  EXPECT_NE(err.find("no HELLO first"), std::string::npos);
  EXPECT_NE(err.find("unexpected frame type 77"), std::string::npos);
}

// Connects to the server of `id` and sends nothing; returns the socket.
boot::Fd idle_connection(const nvshmemx_uniqueid_t &id) {
  boot::UidInfo info;
  EXPECT_EQ(boot::uid_unpack(id, "test", &info), Status::ok);
  auto *sa = reinterpret_cast<sockaddr *>(&info.addr);
  boot::Fd fd(socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_EQ(connect(fd.get(), sa, sa->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6)), 0);
  return fd;
}

// True when the server has closed the connection.
bool closed_by_server(const boot::Fd &fd) {
  pollfd p{fd.get(), POLLIN, 0};
  char b;
  return poll(&p, 1, 0) == 1 && recv(fd.get(), &b, 1, MSG_DONTWAIT) == 0;
}

// Two PEs (threads) connect and pass a barrier; returns the seconds it took.
double two_pe_barrier(const Env &env, nvshmemx_uniqueid_t id) {
  const auto start = Clock::now();
  std::vector<Status> s(2, Status::internal);
  run_threads(2, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    s[r] = uid_create(env, &id, r, 2, &b);
    if (s[r] == Status::ok) s[r] = b->barrier();
  });
  EXPECT_EQ(s[0], Status::ok);
  EXPECT_EQ(s[1], Status::ok);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Issue 33: idle unauthenticated connections were kept without a cap or a short deadline.
TEST(Bootstrap, IdleStrangersAreCapped) {
  Env env = make_env(30);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  testing::internal::CaptureStderr();
  std::vector<boot::Fd> idle;
  for (int k = 0; k < 150; ++k) idle.push_back(idle_connection(id));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int dropped = 0;
  for (const boot::Fd &fd : idle) dropped += closed_by_server(fd);
  EXPECT_GE(dropped, 150 - 64);
  EXPECT_LT(two_pe_barrier(env, id), 3.0);
  uid_servers_reap();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("which sent no HELLO: too many connections without HELLO"), std::string::npos) << err;
  EXPECT_NE(err.find("similar messages suppressed"), std::string::npos) << err;
}

// Issue 33: at the descriptor limit the server spun, logging "accept failed: Too many open files" on every
// pass, and real PEs could not get in. The server runs in a child with a low RLIMIT_NOFILE.
TEST(Bootstrap, DescriptorLimitNeitherSpinsNorLocksOut) {
  Env env = make_env(30);
  TempDir dir;
  int to_parent[2], to_child[2];
  ASSERT_EQ(pipe(to_parent), 0);
  ASSERT_EQ(pipe(to_child), 0);
  pid_t child = fork();
  if (child == 0) {
    FILE *err = freopen(dir.file(0).c_str(), "w", stderr);
    (void)err;
    rlimit lim{32, 32};
    setrlimit(RLIMIT_NOFILE, &lim);
    nvshmemx_uniqueid_t id;
    if (uid_generate(env, &id) != Status::ok) _exit(1);
    (void)!write(to_parent[1], &id, sizeof id);
    char b;
    (void)!read(to_child[0], &b, 1);
    uid_servers_reap();
    _exit(0);
  }
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(read(to_parent[0], &id, sizeof id), static_cast<ssize_t>(sizeof id));
  std::vector<boot::Fd> idle;
  for (int k = 0; k < 60; ++k) idle.push_back(idle_connection(id));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_LT(two_pe_barrier(env, id), 3.0);
  (void)!write(to_child[1], "x", 1);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string err = read_file(dir.file(0));
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = err.find("nvshmem error", at)) != std::string::npos; ++at) ++lines;
  EXPECT_LE(lines, 12u) << err.substr(0, 3000);
  EXPECT_NE(err.find("this process ran out of descriptors"), std::string::npos) << err.substr(0, 3000);
  for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) close(fd);
}

TEST(Bootstrap, MismatchedSizesAreSymmetryErrors) {
  Env env = make_env(5);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  Status s[2];
  testing::internal::CaptureStderr();
  run_threads(2, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    if (uid_create(env, &id, r, 2, &b) != Status::ok) return;
    std::vector<char> in(8 * (r + 1)), out(2 * in.size());
    s[r] = b->allgather(in.data(), out.data(), in.size());
    // The bootstrap stays failed; oversized rounds are refused before anything is sent.
    if (b->allgather(in.data(), out.data(), (16u << 20) + 1) != Status::invalid_value) s[r] = Status::internal;
    if (b->barrier() == Status::ok) s[r] = Status::ok;
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s[0], Status::symmetry);
  EXPECT_EQ(s[1], Status::symmetry);
  bool either = err.find("PE 1 passed 16 bytes but PE 0 passed 8 bytes") != std::string::npos ||
                err.find("PE 0 passed 8 bytes but PE 1 passed 16 bytes") != std::string::npos;
  EXPECT_TRUE(either) << err;
  uid_servers_reap();
}

TEST(Bootstrap, MissingRankTimesOutNamingIt) {
  setenv("NVSHMEM_BOOTSTRAP_TIMEOUT", "2", 1);  // through the environment, as users set it
  Env env;
  ASSERT_EQ(env_load(&env), Status::ok);
  unsetenv("NVSHMEM_BOOTSTRAP_TIMEOUT");
  ASSERT_EQ(env.bootstrap_timeout, 2);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  Status s[4];
  auto start = Clock::now();
  testing::internal::CaptureStderr();
  run_threads(4, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    if ((s[r] = uid_create(env, &id, r, 4, &b)) != Status::ok) return;
    if (r == 1 || r == 3) return std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // never arrive
    s[r] = b->barrier();
  });
  std::string err = testing::internal::GetCapturedStderr();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(s[0], Status::timeout);
  EXPECT_EQ(s[2], Status::timeout);
  EXPECT_NE(err.find("bootstrap barrier: PEs 1, 3 did not arrive within 2 s (NVSHMEM_BOOTSTRAP_TIMEOUT)"),
            std::string::npos)
      << err;
  EXPECT_LT(secs, 6);
  uid_servers_reap();
}

TEST(Bootstrap, MissingRankAtConnectTimesOut) {
  Env env = make_env(2);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  Status s[2];
  testing::internal::CaptureStderr();
  run_threads(2, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    s[r] = uid_create(env, &id, r * 2, 3, &b);  // ranks 0 and 2 of 3
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s[0], Status::timeout);
  EXPECT_EQ(s[1], Status::timeout);
  EXPECT_NE(err.find("PEs 1 did not connect to the bootstrap within 2 s"), std::string::npos) << err;
  uid_servers_reap();
}

TEST(Bootstrap, DeadPeerIsReported) {
  Env env = make_env(10);
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  TempDir dir;
  auto start = Clock::now();
  auto codes = run_children(3, dir, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    if (uid_create(env, &id, r, 3, &b) != Status::ok || b->barrier() != Status::ok) return 100;
    if (r == 1) _exit(0);  // dies without finalizing
    return static_cast<int>(b->barrier());
  });
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5);
  EXPECT_EQ(codes[0], static_cast<int>(Status::peer_failed));
  EXPECT_EQ(codes[2], static_cast<int>(Status::peer_failed));
  std::string err = read_file(dir.file(0));
  EXPECT_NE(err.find("PE 1 ("), std::string::npos) << err;
  EXPECT_NE(err.find("without finalizing"), std::string::npos) << err;
  uid_servers_reap();
}

TEST(Bootstrap, ServerDeathFailsClientsWithoutHang) {
  Env env = make_env(2);
  TempDir dir;
  int idpipe[2], readypipe[2];
  ASSERT_EQ(pipe(idpipe), 0);
  ASSERT_EQ(pipe(readypipe), 0);
  pid_t server = fork();
  if (server == 0) {  // hosts the server, then waits to be killed
    nvshmemx_uniqueid_t id;
    if (uid_generate(env, &id) != Status::ok) _exit(1);
    (void)!write(idpipe[1], &id, sizeof id);
    pause();
    _exit(0);
  }
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(read(idpipe[0], &id, sizeof id), static_cast<ssize_t>(sizeof id));
  std::thread killer([&] {
    char c;
    for (int i = 0; i < 2; ++i) (void)!read(readypipe[0], &c, 1);
    kill(server, SIGKILL);
  });
  auto start = Clock::now();
  auto codes = run_children(2, dir, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    if (uid_create(env, &id, r, 2, &b) != Status::ok || b->barrier() != Status::ok) return 100;
    (void)!write(readypipe[1], "x", 1);
    Status s;
    while ((s = b->barrier()) == Status::ok) {
    }
    return static_cast<int>(s);
  });
  killer.join();
  waitpid(server, nullptr, 0);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(codes[r], static_cast<int>(Status::peer_failed)) << read_file(dir.file(r));
    EXPECT_NE(read_file(dir.file(r)).find("lost the connection to the bootstrap server"), std::string::npos);
  }
  // With the server gone, a new client gives up after the timeout with a message.
  std::unique_ptr<Bootstrap> b;
  testing::internal::CaptureStderr();
  EXPECT_EQ(uid_create(env, &id, 0, 2, &b), Status::timeout);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("could not connect to the bootstrap server"), std::string::npos) << err;
  for (int fd : {idpipe[0], idpipe[1], readypipe[0], readypipe[1]}) close(fd);
}

int count_dir(const char *path) {
  int n = 0;
  if (DIR *d = opendir(path)) {
    while (dirent *e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

TEST(Bootstrap, FiftyCyclesLeakNothing) {
  Env env = make_env(10);
#if defined(__SANITIZE_THREAD__)
  std::thread([] {}).join();  // ThreadSanitizer starts its own thread at the first thread creation
#endif
  int fds = count_dir("/proc/self/fd"), tasks = count_dir("/proc/self/task");
  for (int cycle = 0; cycle < 50; ++cycle) {
    nvshmemx_uniqueid_t id;
    ASSERT_EQ(uid_generate(env, &id), Status::ok);
    int codes[2] = {-1, -1};
    run_threads(2, [&](int r) {
      std::unique_ptr<Bootstrap> b;
      if (uid_create(env, &id, r, 2, &b) != Status::ok) return;
      long v = cycle * 10 + r, all[2];
      codes[r] = b->allgather(&v, all, sizeof v) == Status::ok && all[0] == cycle * 10 && all[1] == cycle * 10 + 1 &&
                         b->barrier() == Status::ok
                     ? 0
                     : 1;
    });
    ASSERT_EQ(codes[0] + codes[1], 0) << "cycle " << cycle;
    uid_servers_reap();
  }
  nvshmemx_uniqueid_t unused;
  ASSERT_EQ(uid_generate(env, &unused), Status::ok);  // never used: reaped at once
  uid_servers_reap();
  EXPECT_EQ(count_dir("/proc/self/fd"), fds);
  EXPECT_EQ(count_dir("/proc/self/task"), tasks);
}

TEST(Bootstrap, SingleAndLauncherSelection) {
  Env env = make_env(5);
  unsetenv(kEnvLauncherUniqueId);
  std::unique_ptr<Bootstrap> b;
  ASSERT_EQ(bootstrap_create(0, nullptr, env, &b), Status::ok);
  EXPECT_STREQ(b->name(), "single");
  EXPECT_EQ(b->rank(), 0);
  EXPECT_EQ(b->size(), 1);
  int in = 42, out = 0;
  EXPECT_EQ(b->allgather(&in, &out, sizeof in), Status::ok);
  EXPECT_EQ(out, 42);
  EXPECT_EQ(b->barrier(), Status::ok);

  testing::internal::CaptureStderr();
  EXPECT_EQ(bootstrap_create(NVSHMEMX_INIT_WITH_MPI_COMM, nullptr, env, &b), Status::invalid_value);
  EXPECT_EQ(bootstrap_create(NVSHMEMX_INIT_WITH_SHMEM, nullptr, env, &b), Status::not_supported);
  Env other = env;
  other.bootstrap = "SHMEM";
  EXPECT_EQ(bootstrap_create(0, nullptr, other, &b), Status::not_supported);
  other.bootstrap = "nonsense";
  EXPECT_EQ(bootstrap_create(0, nullptr, other, &b), Status::invalid_value);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("not available in this version"), std::string::npos) << err;

  // Launcher variables, as nvshmrun sets them.
  nvshmemx_uniqueid_t id;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  setenv(kEnvLauncherUniqueId, boot::uid_to_hex(id).c_str(), 1);
  setenv(kEnvLauncherRank, "0", 1);
  setenv(kEnvLauncherSize, "1", 1);
  ASSERT_EQ(bootstrap_create(0, nullptr, env, &b), Status::ok);
  EXPECT_STREQ(b->name(), "launcher");
  EXPECT_EQ(b->barrier(), Status::ok);
  b.reset();
  testing::internal::CaptureStderr();
  setenv(kEnvLauncherRank, "1", 1);
  EXPECT_EQ(bootstrap_create(0, nullptr, env, &b), Status::invalid_value);
  setenv(kEnvLauncherRank, "0", 1);
  setenv(kEnvLauncherSize, "x", 1);
  EXPECT_EQ(bootstrap_create(0, nullptr, env, &b), Status::invalid_value);
  setenv(kEnvLauncherSize, "1", 1);
  setenv(kEnvLauncherUniqueId, "abc", 1);
  EXPECT_EQ(bootstrap_create(0, nullptr, env, &b), Status::invalid_value);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("NVSHMRUN_RANK='1' is not a rank in [0, 1)"), std::string::npos) << err;
  EXPECT_NE(err.find("NVSHMRUN_SIZE='x'"), std::string::npos) << err;
  EXPECT_NE(err.find("NVSHMRUN_UNIQUEID is not 256 hex digits"), std::string::npos) << err;
  for (const char *v : {kEnvLauncherUniqueId, kEnvLauncherRank, kEnvLauncherSize}) unsetenv(v);
  uid_servers_reap();

  for (const char *v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMIX_LOCAL_RANK"})
    unsetenv(v);  // other launchers' local ranks (test_pmi covers them)
  EXPECT_EQ(launcher_local_rank(), -1);
  setenv(kEnvLauncherLocalRank, "3", 1);
  EXPECT_EQ(launcher_local_rank(), 3);
  setenv(kEnvLauncherLocalRank, "-2", 1);
  EXPECT_EQ(launcher_local_rank(), -1);
  unsetenv(kEnvLauncherLocalRank);
}

TEST(Bootstrap, UniqueIdHexRoundTripAndInterfaces) {
  Env env = make_env(5);
  nvshmemx_uniqueid_t id, back;
  ASSERT_EQ(uid_generate(env, &id), Status::ok);
  std::string hex = boot::uid_to_hex(id);
  EXPECT_EQ(hex.size(), 256u);
  ASSERT_TRUE(boot::uid_from_hex(hex.c_str(), &back));
  EXPECT_EQ(memcmp(&id, &back, sizeof id), 0);
  EXPECT_FALSE(boot::uid_from_hex(hex.substr(1).c_str(), &back));
  sockaddr_storage addr;
  EXPECT_EQ(boot::choose_listen_address("lo", "AF_INET", false, &addr), Status::ok);
  EXPECT_EQ(boot::addr_to_string(reinterpret_cast<sockaddr *>(&addr)), "127.0.0.1:0");
  testing::internal::CaptureStderr();
  EXPECT_EQ(boot::choose_listen_address("no-such-if0", "AF_INET", false, &addr), Status::invalid_value);
  EXPECT_EQ(boot::choose_listen_address("", "AF_UNIX", false, &addr), Status::invalid_value);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME='no-such-if0'"), std::string::npos) << err;
  // IPv6 on loopback, when the machine has it.
  Env v6 = env;
  v6.uid_sock_family = "AF_INET6";
  v6.uid_sock_ifname = "lo";
  if (uid_generate(v6, &id) == Status::ok) {
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(uid_create(v6, &id, 0, 1, &b), Status::ok);
    EXPECT_EQ(b->barrier(), Status::ok);
  }
  uid_servers_reap();
}

}  // namespace
}  // namespace nvshm
