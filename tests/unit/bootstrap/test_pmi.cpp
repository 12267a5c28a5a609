// SPDX-License-Identifier: BSD-3-Clause
// PMI-1 client (our bootstrap) against nvshmrun's PMI-1 server (threads as PEs, socketpairs as PMI_FD)
// and against scripted fake servers (refusals, garbage, silence, a server that closes); bootstrap
// selection and the error messages of the MPI and PMIx methods when their library cannot be loaded.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <dlfcn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/methods.hpp"
#include "bootstrap/pmi1.hpp"
#include "bootstrap/wire.hpp"

namespace nvshm {
namespace {

Env make_env(long timeout_s) {
  Env env;
  EXPECT_EQ(env_load(&env), Status::ok);
  env.bootstrap_timeout = timeout_s;
  return env;
}

void clear_launch_env() {
  for (const char *v :
       {"NVSHMRUN_UNIQUEID", "PMI_FD", "PMI_PORT", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "PMIX_NAMESPACE"})
    unsetenv(v);
}

unsigned char pattern(int rank, int round, std::size_t i) {
  return static_cast<unsigned char>(rank * 131 + round * 31 + i * 7 + (i >> 8));
}

// Back-to-back allgather and barrier rounds (consecutive barriers included) with random sizes (the same
// on every rank) and random delays; returns 0 when every payload arrived intact.
int exercise(Bootstrap &b, int rounds, std::size_t max_bytes) {
  std::mt19937 plan(99), delays(static_cast<unsigned>(b.rank()) * 7919 + 1);
  std::vector<unsigned char> in, out;
  for (int round = 0; round < rounds; ++round) {
    if (delays() % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(delays() % 500));
    unsigned kind = plan() % 4;
    if (kind == 0) {
      if (b.barrier() != Status::ok) return 10;
      continue;
    }
    std::size_t bytes = kind == 1 ? 0 : plan() % max_bytes;
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

// n PEs as threads, each connected to a Pmi1Server through a socketpair.
std::vector<int> run_pmi_threads(int n, int vallen, int rounds, std::size_t max_bytes) {
  std::vector<boot::Fd> server_ends;
  std::vector<boot::Fd> client_ends;
  for (int r = 0; r < n; ++r) {
    int sp[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
    server_ends.emplace_back(sp[0]);
    client_ends.emplace_back(sp[1]);
  }
  boot::Pmi1Server server(std::move(server_ends), "test-kvs", vallen);
  Env env = make_env(20);
  std::vector<int> codes(n, -1);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      std::unique_ptr<Bootstrap> b;
      if (boot::pmi1_connect_fd(client_ends[r].get(), r, n, env, &b) != Status::ok) {
        codes[r] = 1;
        return;
      }
      if (b->rank() != r || b->size() != n || std::string(b->name()) != "PMI") {
        codes[r] = 2;
        return;
      }
      codes[r] = exercise(*b, rounds, max_bytes);
    });
  for (auto &t : threads) t.join();
  return codes;
}

TEST(Pmi1, NvshmrunServerManyRoundsIntact) {
  for (int n : {1, 2, 5}) {
    auto codes = run_pmi_threads(n, boot::Pmi1Server::kVallenMax, 120, 3000);
    for (int r = 0; r < n; ++r) EXPECT_EQ(codes[r], 0) << n << " PEs, PE " << r;
  }
}

TEST(Pmi1, SmallValuesSplitIntoManyChunks) {
  auto codes = run_pmi_threads(3, 24, 40, 700);  // 11 bytes per chunk
  for (int r = 0; r < 3; ++r) EXPECT_EQ(codes[r], 0) << "PE " << r;
}

TEST(Pmi1, MismatchedSizesAreSymmetryErrors) {
  int sp0[2], sp1[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sp0), 0);
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sp1), 0);
  std::vector<boot::Fd> ends;
  ends.emplace_back(sp0[0]);
  ends.emplace_back(sp1[0]);
  boot::Pmi1Server server(std::move(ends), "kvs");
  boot::Fd c0(sp0[1]), c1(sp1[1]);
  Env env = make_env(10);
  Status s[2];
  testing::internal::CaptureStderr();
  std::thread t([&] {
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(boot::pmi1_connect_fd(c1.get(), 1, 2, env, &b), Status::ok);
    char in[16] = {0}, out[32];
    s[1] = b->allgather(in, out, 16);
  });
  std::unique_ptr<Bootstrap> b;
  ASSERT_EQ(boot::pmi1_connect_fd(c0.get(), 0, 2, env, &b), Status::ok);
  char in[8] = {0}, out[16];
  s[0] = b->allgather(in, out, 8);
  t.join();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s[0], Status::symmetry);
  EXPECT_EQ(s[1], Status::symmetry);
  EXPECT_NE(err.find("PE 1 passed 16 bytes but PE 0 passed 8 bytes"), std::string::npos) << err;
}

// A fake PMI-1 server on one socketpair: answer(line) gives the reply lines ("" = say nothing;
// "CLOSE" = close the connection).
struct FakeServer {
  boot::Fd mine, theirs;
  std::thread thread;
  explicit FakeServer(std::function<std::string(const boot::PmiLine &)> answer) {
    int sp[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
    mine.reset(sp[0]);
    theirs.reset(sp[1]);
    thread = std::thread([this, answer] {
      boot::PmiConn conn(mine.get());
      std::string line;
      while (conn.read_line(&line, boot::Clock::now() + std::chrono::seconds(30)) == boot::Io::ok) {
        std::string reply = answer(boot::pmi_parse(line));
        if (reply == "CLOSE") {
          shutdown(mine.get(), SHUT_RDWR);
          return;
        }
        if (!reply.empty()) conn.send_line(reply, boot::Clock::now() + std::chrono::seconds(5));
      }
    });
  }
  ~FakeServer() {
    shutdown(theirs.get(), SHUT_RDWR);
    thread.join();
  }
};

// The standard answers to the start-up commands; `other` answers the rest.
std::function<std::string(const boot::PmiLine &)> script(std::function<std::string(const std::string &)> other) {
  auto barriers = std::make_shared<int>(0);
  return [other, barriers](const boot::PmiLine &m) -> std::string {
    const std::string &cmd = m.at("cmd");
    if (cmd == "barrier_in" && (*barriers)++ == 0) return "cmd=barrier_out rc=0";  // the one at start-up
    if (cmd == "init") return "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0";
    if (cmd == "get_maxes") return "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0";
    if (cmd == "get_my_kvsname") return "cmd=my_kvsname kvsname=fake rc=0";
    if (cmd == "finalize") return "cmd=finalize_ack rc=0";
    return other(cmd);
  };
}

TEST(Pmi1, ScriptedServerFailures) {
  Env env = make_env(1);
  int v = 7, out[2];
  {  // silent at the barrier: bounded by the timeout, names what did not arrive
    FakeServer fake(script([](const std::string &cmd) { return cmd == "put" ? "cmd=put_result rc=0" : ""; }));
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(boot::pmi1_connect_fd(fake.theirs.get(), 0, 2, env, &b), Status::ok);
    testing::internal::CaptureStderr();
    auto t0 = boot::Clock::now();
    EXPECT_EQ(b->allgather(&v, out, sizeof v), Status::timeout);
    EXPECT_LT(boot::Clock::now() - t0, std::chrono::seconds(5));
    EXPECT_EQ(b->barrier(), Status::peer_failed);  // failed for good
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("no 'barrier_out' from the PMI server within 1 s (NVSHMEM_BOOTSTRAP_TIMEOUT)"),
              std::string::npos)
        << err;
  }
  {  // put refused
    FakeServer fake(script([](const std::string &) { return "cmd=put_result rc=-1 msg=kvs_full"; }));
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(boot::pmi1_connect_fd(fake.theirs.get(), 0, 2, env, &b), Status::ok);
    testing::internal::CaptureStderr();
    EXPECT_NE(b->allgather(&v, out, sizeof v), Status::ok);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("refused 'put': rc=-1 kvs_full"), std::string::npos) << err;
  }
  {  // garbage answer
    FakeServer fake(script([](const std::string &) { return "hello there"; }));
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(boot::pmi1_connect_fd(fake.theirs.get(), 0, 2, env, &b), Status::ok);
    testing::internal::CaptureStderr();
    EXPECT_EQ(b->barrier(), Status::peer_failed);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("answered 'hello there' to 'barrier_in'"), std::string::npos) << err;
  }
  {  // the server goes away
    FakeServer fake(script([](const std::string &) { return "CLOSE"; }));
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(boot::pmi1_connect_fd(fake.theirs.get(), 0, 2, env, &b), Status::ok);
    testing::internal::CaptureStderr();
    EXPECT_EQ(b->barrier(), Status::peer_failed);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("lost the connection to the PMI server"), std::string::npos) << err;
  }
  {  // init refused
    FakeServer fake([](const boot::PmiLine &) { return std::string("cmd=response_to_init rc=-1 msg=no"); });
    std::unique_ptr<Bootstrap> b;
    testing::internal::CaptureStderr();
    EXPECT_NE(boot::pmi1_connect_fd(fake.theirs.get(), 0, 2, env, &b), Status::ok);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("refused 'init'"), std::string::npos) << err;
  }
}

TEST(Pmi1, LineParsingAndHex) {
  auto m = boot::pmi_parse("cmd=get_result rc=0 value=ab=cd  msg=");
  EXPECT_EQ(m["cmd"], "get_result");
  EXPECT_EQ(m["rc"], "0");
  EXPECT_EQ(m["value"], "ab=cd");
  EXPECT_EQ(m["msg"], "");
  unsigned char bytes[4] = {0, 0x7f, 0x80, 0xff}, back[4];
  EXPECT_EQ(boot::hex_encode(bytes, 4), "007f80ff");
  EXPECT_TRUE(boot::hex_decode("007F80ff", back, 4));
  EXPECT_EQ(memcmp(bytes, back, 4), 0);
  EXPECT_FALSE(boot::hex_decode("007f80f", back, 4));
  EXPECT_FALSE(boot::hex_decode("007f80fg", back, 4));
}

// PMI_PORT: a TCP connection and the initack handshake (hydra's way for processes it did not fork).
TEST(Pmi1, PortHandshake) {
  boot::Fd listener(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(bind(listener.get(), reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
  ASSERT_EQ(listen(listener.get(), 1), 0);
  ASSERT_EQ(getsockname(listener.get(), reinterpret_cast<sockaddr *>(&a), &len), 0);
  std::string seen_id;
  std::thread server([&] {
    boot::Fd c(accept(listener.get(), nullptr, nullptr));
    boot::PmiConn conn(c.get());
    auto deadline = [] { return boot::Clock::now() + std::chrono::seconds(10); };
    std::string line;
    while (conn.read_line(&line, deadline()) == boot::Io::ok) {
      boot::PmiLine m = boot::pmi_parse(line);
      const std::string &cmd = m["cmd"];
      if (cmd == "initack") {
        seen_id = m["pmiid"];
        conn.send_line("cmd=initack\ncmd=set size=1\ncmd=set rank=0\ncmd=set debug=0", deadline());
      } else if (cmd == "init") {
        conn.send_line("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0", deadline());
      } else if (cmd == "get_maxes") {
        conn.send_line("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=256 rc=0", deadline());
      } else if (cmd == "get_my_kvsname") {
        conn.send_line("cmd=my_kvsname kvsname=k rc=0", deadline());
      } else if (cmd == "barrier_in") {
        conn.send_line("cmd=barrier_out rc=0", deadline());
      } else if (cmd == "put") {
        conn.send_line("cmd=put_result rc=0", deadline());
      } else if (cmd == "finalize") {
        conn.send_line("cmd=finalize_ack rc=0", deadline());
        return;
      }
    }
  });
  clear_launch_env();
  std::string port = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  setenv("PMI_PORT", port.c_str(), 1);
  setenv("PMI_ID", "7", 1);
  {
    Env env = make_env(5);
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(boot::pmi1_create(env, &b), Status::ok);
    EXPECT_EQ(b->rank(), 0);
    EXPECT_EQ(b->size(), 1);
    std::vector<unsigned char> in(1000, 3), out(1000);
    EXPECT_EQ(b->allgather(in.data(), out.data(), in.size()), Status::ok);
    EXPECT_EQ(out, in);
  }
  server.join();
  EXPECT_EQ(seen_id, "7");
  unsetenv("PMI_PORT");
  unsetenv("PMI_ID");
}

// A PMI-2 process manager for n PEs (threads): one server thread per connection, a shared key-value
// space, kvs-fence as a barrier. `silent_fence` never answers fences after the first (start-up) one.
struct FakePmi2 {
  int n;
  bool silent_fence;
  std::vector<boot::Fd> server, client;
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::condition_variable cv;
  std::map<std::string, std::string> kvs;
  int fence_count = 0, fence_gen = 0;
  FakePmi2(int npes, bool silent = false) : n(npes), silent_fence(silent) {
    for (int r = 0; r < n; ++r) {
      int sp[2];
      EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
      server.emplace_back(sp[0]);
      client.emplace_back(sp[1]);
    }
    for (int r = 0; r < n; ++r) threads.emplace_back([this, r] { serve(r); });
  }
  ~FakePmi2() {
    for (auto &c : client) shutdown(c.get(), SHUT_RDWR);
    for (auto &t : threads) t.join();
  }
  void serve(int r) {
    boot::PmiConn conn(server[r].get());
    auto deadline = [] { return boot::Clock::now() + std::chrono::seconds(30); };
    std::string line, head, body;
    if (conn.read_line(&line, deadline()) != boot::Io::ok) return;
    conn.send_line("cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0", deadline());
    int fences = 0;
    while (conn.read_bytes(&head, 6, deadline()) == boot::Io::ok &&
           conn.read_bytes(&body, std::stoul(head), deadline()) == boot::Io::ok) {
      boot::PmiLine m = boot::pmi2_parse(body);
      std::string cmd = m["cmd"], reply;
      if (cmd == "fullinit") {
        reply = "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=" + m["pmirank"] +
                ";size=" + std::to_string(n) + ";appnum=0;debugged=FALSE;pmiverbose=FALSE;";
      } else if (cmd == "job-getid") {
        reply = "cmd=job-getid-response;rc=0;jobid=job;;42;";  // an escaped ';' in a value
      } else if (cmd == "kvs-put") {
        std::lock_guard<std::mutex> lock(mutex);
        kvs[m["key"]] = m["value"];
        reply = "cmd=kvs-put-response;rc=0;";
      } else if (cmd == "kvs-get") {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = kvs.find(m["key"]);
        EXPECT_EQ(m["jobid"], "job;42");
        reply = it == kvs.end() ? "cmd=kvs-get-response;rc=0;found=FALSE;"
                                : "cmd=kvs-get-response;rc=0;found=TRUE;value=" + it->second + ";";
      } else if (cmd == "kvs-fence") {
        if (silent_fence && fences++ > 0) continue;
        std::unique_lock<std::mutex> lock(mutex);
        int gen = fence_gen;
        if (++fence_count == n) {
          fence_count = 0, ++fence_gen;
          cv.notify_all();
        } else {
          cv.wait(lock, [&] { return fence_gen != gen; });
        }
        reply = "cmd=kvs-fence-response;rc=0;";
      } else if (cmd == "finalize") {
        reply = "cmd=finalize-response;rc=0;";
      } else {
        reply = "cmd=" + cmd + "-response;rc=1;errmsg=unknown;";
      }
      conn.send_raw(boot::pmi2_frame(reply), deadline());
    }
  }
};

TEST(Pmi2, FakeProcessManagerManyRoundsIntact) {
  for (int n : {1, 3}) {
    FakePmi2 pm(n);
    Env env = make_env(20);
    std::vector<int> codes(n, -1);
    std::vector<std::thread> pes;
    for (int r = 0; r < n; ++r)
      pes.emplace_back([&, r] {
        std::unique_ptr<Bootstrap> b;
        if (boot::pmi2_connect_fd(pm.client[r].get(), r, env, &b) != Status::ok) return void(codes[r] = 1);
        if (b->rank() != r || b->size() != n || std::string(b->name()) != "PMI-2") return void(codes[r] = 2);
        codes[r] = exercise(*b, 80, 2500);
      });
    for (auto &t : pes) t.join();
    for (int r = 0; r < n; ++r) EXPECT_EQ(codes[r], 0) << n << " PEs, PE " << r;
  }
}

TEST(Pmi2, FramesAndFailures) {
  EXPECT_EQ(boot::pmi2_frame("cmd=x;"), "6     cmd=x;");
  auto m = boot::pmi2_parse("cmd=a;v=x;;y;e=;");
  EXPECT_EQ(m["cmd"], "a");
  EXPECT_EQ(m["v"], "x;y");
  EXPECT_EQ(m["e"], "");
  Env env = make_env(1);
  {  // a fence that never completes: bounded, named
    FakePmi2 pm(1, true);
    std::unique_ptr<Bootstrap> b;
    ASSERT_EQ(boot::pmi2_connect_fd(pm.client[0].get(), 0, env, &b), Status::ok);
    testing::internal::CaptureStderr();
    EXPECT_EQ(b->barrier(), Status::timeout);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("no 'kvs-fence-response' from the PMI-2 server within 1 s"), std::string::npos) << err;
  }
  {  // a PMI-1-only server
    FakeServer fake([](const boot::PmiLine &) { return std::string("cmd=response_to_init pmi_version=1 rc=0"); });
    std::unique_ptr<Bootstrap> b;
    testing::internal::CaptureStderr();
    EXPECT_EQ(boot::pmi2_connect_fd(fake.theirs.get(), 0, env, &b), Status::not_supported);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("does not speak PMI-2"), std::string::npos) << err;
  }
}

TEST(Selection, MethodsAndTheirErrors) {
  clear_launch_env();
  Env env = make_env(5);
  std::unique_ptr<Bootstrap> b;
  auto expect = [&](Env e, unsigned flags, const nvshmemx_init_attr_t *attr, Status want, const char *text) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(bootstrap_create(flags, attr, e, &b), want) << text;
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(text), std::string::npos) << err;
  };
  // Nothing in the environment: a 1-PE job, also for NVSHMEM_BOOTSTRAP=PMI.
  for (const char *m : {"", "PMI", "pmi", "nvshmrun"}) {
    Env e = env;
    e.bootstrap = m;
    ASSERT_EQ(bootstrap_create(0, nullptr, e, &b), Status::ok) << m;
    EXPECT_STREQ(b->name(), "single");
  }
  Env e = env;
  e.bootstrap = "PMI";
  e.bootstrap_pmi = "PMI";
  expect(e, 0, nullptr, Status::invalid_value, "neither PMI_FD nor PMI_PORT is set");
  e.bootstrap_pmi = "PMI-2";
  expect(e, 0, nullptr, Status::invalid_value, "NVSHMEM_BOOTSTRAP_PMI=PMI-2 needs PMI_FD");
  e.bootstrap_pmi = "foo";
  expect(e, 0, nullptr, Status::invalid_value, "NVSHMEM_BOOTSTRAP_PMI=foo: unknown PMI flavour");
  e.bootstrap_pmi = "PMIX";
  e.bootstrap_pmix_plugin = "libno-such-pmix.so";
#if NVSHM_HAVE_PMIX_H
  expect(e, 0, nullptr, Status::not_supported, "cannot load the PMIx library 'libno-such-pmix.so'");
#else
  expect(e, 0, nullptr, Status::not_supported, "built without PMIx's <pmix.h> (Debian: libpmix-dev)");
#endif
  e = env;
  e.bootstrap = "MPI";
  e.bootstrap_mpi_plugin = "libno-such-mpi.so";
  expect(e, 0, nullptr, Status::not_supported, "cannot load the MPI library 'libno-such-mpi.so'");
  e.bootstrap = "SHMEM";
  expect(e, 0, nullptr, Status::not_supported, "NVSHMEM_BOOTSTRAP=SHMEM: this bootstrap is not available");
  e.bootstrap = "nonsense";
  expect(e, 0, nullptr, Status::invalid_value, "NVSHMEM_BOOTSTRAP=nonsense: unknown bootstrap method");
  expect(env, NVSHMEMX_INIT_WITH_MPI_COMM, nullptr, Status::invalid_value, "needs attr->mpi_comm");
  expect(env, NVSHMEMX_INIT_WITH_SHMEM, nullptr, Status::not_supported, "NVSHMEMX_INIT_WITH_SHMEM");
  // Detection: a PMI-1 environment with a descriptor that is not open.
  setenv("PMI_FD", "987", 1);
  setenv("PMI_RANK", "0", 1);
  setenv("PMI_SIZE", "2", 1);
  expect(env, 0, nullptr, Status::invalid_value, "PMI_FD=987 is not an open descriptor");
  clear_launch_env();

  EXPECT_EQ(boot::plugin_library("", "libmpi.so.40"), "libmpi.so.40");
  EXPECT_EQ(boot::plugin_library("nvshmem_bootstrap_mpi.so", "libmpi.so.40"), "libmpi.so.40");
  EXPECT_EQ(boot::plugin_library("/opt/x/nvshmem_bootstrap_pmix.so.3", "libpmix.so.2"), "libpmix.so.2");
  EXPECT_EQ(boot::plugin_library("libmpich.so.12", "libmpi.so.40"), "libmpich.so.12");
}

// The MPICH ABI (int handles) through a stand-in library: detection, MPI_Init by the runtime and
// MPI_Finalize at destruction, a communicator handle, handle checks.
TEST(MpiAbi, MpichStandIn) {
  Env env = make_env(5);
  env.bootstrap_mpi_plugin = FAKE_MPICH_PATH;
  std::unique_ptr<Bootstrap> b;
  int world = 0x44000000;
  testing::internal::CaptureStderr();
  const Status created = boot::mpi_create(&world, env, &b);
  std::string err = testing::internal::GetCapturedStderr();
#if !NVSHM_HAVE_MPICH_H
  // A build without MPICH's header refuses the ABI by name, and there is nothing more to test.
  EXPECT_EQ(created, Status::not_supported);
  EXPECT_NE(err.find("has the MPICH ABI, and this build of NVSHMEM has no MPI bootstrap for it"), std::string::npos)
      << err;
  EXPECT_NE(err.find("(Debian: libmpich-dev)"), std::string::npos) << err;
  GTEST_SKIP() << "built without MPICH's <mpi.h>: only its refusal is tested";
#endif
  EXPECT_EQ(created, Status::invalid_value);  // MPI not initialised yet
  EXPECT_NE(err.find("MPI is not initialised in the library we use"), std::string::npos) << err;
  EXPECT_NE(err.find("MPICH ABI"), std::string::npos) << err;

  env.bootstrap = "MPI";
  ASSERT_EQ(bootstrap_create(0, nullptr, env, &b), Status::ok);  // initialises the stand-in
  EXPECT_STREQ(b->name(), "MPI");
  EXPECT_EQ(b->size(), 1);
  long v = 12345, out = 0;
  EXPECT_EQ(b->allgather(&v, &out, sizeof v), Status::ok);
  EXPECT_EQ(out, 12345);
  EXPECT_EQ(b->barrier(), Status::ok);
  b.reset();  // finalizes what it initialised
  testing::internal::CaptureStderr();
  EXPECT_EQ(bootstrap_create(0, nullptr, env, &b), Status::invalid_value);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("already finalized and cannot be initialised again"), std::string::npos) << err;

  // As an application that initialised MPI and passes communicators.
  void *h = dlopen(FAKE_MPICH_PATH, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr);
  reinterpret_cast<void (*)()>(dlsym(h, "fake_mpich_reset_initialized"))();
  ASSERT_EQ(boot::mpi_create(&world, env, &b), Status::ok);
  EXPECT_EQ(b->rank(), 0);
  EXPECT_EQ(b->allgather(&v, &out, sizeof v), Status::ok);
  b.reset();
  testing::internal::CaptureStderr();
  int not_a_comm = 0x12345, comm_null = 0x04000000, group = 0x88000000;
  EXPECT_EQ(boot::mpi_create(&not_a_comm, env, &b), Status::invalid_value);
  EXPECT_EQ(boot::mpi_create(&group, env, &b), Status::invalid_value);
  EXPECT_EQ(boot::mpi_create(&comm_null, env, &b), Status::invalid_value);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("0x12345, not an MPICH communicator handle"), std::string::npos) << err;
  EXPECT_NE(err.find("0x88000000, not an MPICH communicator handle"), std::string::npos) << err;
  EXPECT_NE(err.find("MPI_COMM_NULL"), std::string::npos) << err;
  dlclose(h);
}

TEST(Selection, LocalRankFromOtherLaunchers) {
  for (const char *v :
       {"NVSHMRUN_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMIX_LOCAL_RANK"})
    unsetenv(v);
  EXPECT_EQ(launcher_local_rank(), -1);
  setenv("SLURM_LOCALID", "2", 1);
  EXPECT_EQ(launcher_local_rank(), 2);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  EXPECT_EQ(launcher_local_rank(), 1);
  setenv("NVSHMRUN_LOCAL_RANK", "3", 1);
  EXPECT_EQ(launcher_local_rank(), 3);
  for (const char *v : {"NVSHMRUN_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) unsetenv(v);
}

}  // namespace
}  // namespace nvshm
