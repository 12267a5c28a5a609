// SPDX-License-Identifier: BSD-3-Clause
// The node-local heap descriptor exchange (src/heap/fd_exchange.cpp) under attack: threads of this
// process are the PEs (an in-process bootstrap), and rank 0 attacks PE 1's socket at the moment every
// PE listens (right after the exchange's second bootstrap round): a stranger without the job's
// secret, a process of the same user with the secret but not the PE it claims, a process of another
// user (root only: a child that setuid()s to nobody), a connection that sends nothing, a process that
// takes a PE's socket name first. The real PEs must still get each other's descriptors, or, for the
// stolen name, nobody may send one; nothing may block past the timeout.
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "heap/fd_exchange.hpp"

namespace nvshm {
namespace {
using Clock = std::chrono::steady_clock;

// Allgather among the threads of one process. `hook(round, result)` runs on rank 0 after each round;
// with `hold`, it runs before any rank leaves the round instead.
struct Rendezvous {
  explicit Rendezvous(int n) : n(n), slots(n) {}
  int n;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> slots;
  std::string result;
  int arrived = 0, generation = 0;
  std::function<void(int, const std::string &)> hook;
  bool hold = false;
  int rounds = 0;
};

class ThreadBootstrap : public Bootstrap {
 public:
  ThreadBootstrap(Rendezvous &r, int rank) : r_(r) {
    rank_ = rank;
    size_ = r.n;
  }
  const char *name() const override { return "threads"; }
  Status allgather(const void *in, void *out, std::size_t bytes) override {
    std::unique_lock<std::mutex> lock(r_.mutex);
    r_.slots[rank_].assign(static_cast<const char *>(in), bytes);
    const int gen = r_.generation;
    if (++r_.arrived == r_.n) {
      r_.result.clear();
      for (const std::string &s : r_.slots) r_.result += s;
      r_.arrived = 0;
      ++r_.rounds;
      if (r_.hold && r_.hook) r_.hook(r_.rounds, r_.result);
      ++r_.generation;
      r_.cv.notify_all();
    } else {
      r_.cv.wait(lock, [&] { return r_.generation != gen; });
    }
    const std::string result = r_.result;
    lock.unlock();
    memcpy(out, result.data(), result.size());
    if (rank_ == 0 && !r_.hold && r_.hook) r_.hook(++round_, result);
    return Status::ok;
  }
  Status barrier() override {
    char none = 0;
    std::vector<char> all(size_);
    return allgather(&none, all.data(), 1);
  }

 private:
  Rendezvous &r_;
  int round_ = 0;
};

// A memfd whose first byte is `mark`.
int marked_fd(char mark) {
  int fd = memfd_create("fd-exchange-test", MFD_CLOEXEC);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(pwrite(fd, &mark, 1, 0), 1);
  return fd;
}

struct Outcome {
  Status status = Status::internal;
  std::vector<int> fds;
  double seconds = 0;
};

// Runs the exchange on n threads; returns each PE's outcome.
std::vector<Outcome> exchange(int n, int timeout_s, std::function<void(int, const std::string &)> hook,
                              bool hold = false) {
  Rendezvous r(n);
  r.hook = std::move(hook);
  r.hold = hold;
  std::vector<Outcome> out(n);
  std::vector<std::thread> threads;
  for (int pe = 0; pe < n; ++pe) {
    threads.emplace_back([&, pe] {
      ThreadBootstrap boot(r, pe);
      NodeInfo node;
      for (int i = 0; i < n; ++i) node.pes.push_back(i), node.pids.push_back(getpid());
      node.my_index = pe;
      const int fd = marked_fd(static_cast<char>('A' + pe));
      const auto start = Clock::now();
      out[pe].status = exchange_fds(boot, node, fd, timeout_s, &out[pe].fds);
      out[pe].seconds = std::chrono::duration<double>(Clock::now() - start).count();
      close(fd);
    });
  }
  for (std::thread &t : threads) t.join();
  return out;
}

// Every PE got every other PE's own descriptor (checked by its mark), and closes them.
void expect_genuine(std::vector<Outcome> &out) {
  for (std::size_t pe = 0; pe < out.size(); ++pe) {
    ASSERT_EQ(out[pe].status, Status::ok) << "PE " << pe;
    for (std::size_t from = 0; from < out.size(); ++from) {
      if (from == pe) continue;
      char mark = 0;
      ASSERT_EQ(pread(out[pe].fds[from], &mark, 1, 0), 1);
      EXPECT_EQ(mark, static_cast<char>('A' + from)) << "PE " << pe << " got a forged descriptor for PE " << from;
      close(out[pe].fds[from]);
    }
  }
}

// The exchange's first round: PE 0's tag (socket names) and secret, as fd_exchange.cpp lays them out.
struct JobKeys {
  uint64_t tag;
  uint8_t secret[32];
};
JobKeys keys_of(const std::string &first_round) {
  JobKeys k;
  memcpy(&k, first_round.data(), sizeof k);
  return k;
}

sockaddr_un pe_address(uint64_t tag, int pe, socklen_t *len) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "nvshmem-%016llx-%d",
                   static_cast<unsigned long long>(tag), pe);
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  return addr;
}

int connect_to(uint64_t tag, int pe) {
  socklen_t len;
  sockaddr_un addr = pe_address(tag, pe, &len);
  int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (connect(s, reinterpret_cast<sockaddr *>(&addr), len) != 0) {
    close(s);
    return -1;
  }
  return s;
}

// Connects to PE `to`'s socket and sends a message claiming to be PE `as`, with a memfd marked 'X'.
// True when it connected (the PE may close a connection it refuses before the message is sent).
bool forge(uint64_t tag, const uint8_t *secret, int to, int as) {
  int s = connect_to(tag, to);
  if (s < 0) return false;
  struct {
    uint64_t tag;
    int32_t pe;
    uint8_t secret[32];
  } m;
  memset(&m, 0, sizeof m);
  m.tag = tag;
  m.pe = as;
  memcpy(m.secret, secret, sizeof m.secret);
  int fd = marked_fd('X');
  iovec iov{&m, sizeof m};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  h.msg_control = control;
  h.msg_controllen = sizeof control;
  cmsghdr *cm = CMSG_FIRSTHDR(&h);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &fd, sizeof fd);
  (void)sendmsg(s, &h, MSG_NOSIGNAL);
  close(fd);
  close(s);
  return true;
}

// Runs body in a forked child (after setuid(uid) when uid >= 0); returns its exit status.
int in_child(int uid, const std::function<bool()> &body) {
  pid_t pid = fork();
  if (pid == 0) {
    if (uid >= 0 && setuid(static_cast<uid_t>(uid)) != 0) _exit(3);
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

constexpr int kNobody = 65534;

TEST(FdExchange, PlainExchange) {
  auto out = exchange(4, 5, nullptr);
  expect_genuine(out);
}

// A hook that runs `attack` with the job's keys once every PE listens (after the exchange's second
// round), before rank 0 sends its own descriptor.
std::function<void(int, const std::string &)> when_listening(std::function<void(const JobKeys &)> attack) {
  auto keys = std::make_shared<JobKeys>();
  return [keys, attack](int round, const std::string &result) {
    if (round == 1) *keys = keys_of(result);
    if (round == 2) attack(*keys);
  };
}

TEST(FdExchange, WrongSecretIsRejected) {
  testing::internal::CaptureStderr();
  auto out = exchange(3, 5, when_listening([](const JobKeys &k) {
                        uint8_t wrong[32];
                        memcpy(wrong, k.secret, sizeof wrong);
                        wrong[31] ^= 1;
                        EXPECT_TRUE(forge(k.tag, wrong, 1, 0));
                        EXPECT_TRUE(forge(k.tag, wrong, 2, 0));
                      }));
  const std::string err = testing::internal::GetCapturedStderr();
  expect_genuine(out);
  EXPECT_NE(err.find("rejected a connection from pid " + std::to_string(getpid()) + " (uid " +
                     std::to_string(geteuid()) + ") claiming PE 0: wrong job secret"),
            std::string::npos)
      << err;
}

TEST(FdExchange, SameUserOtherProcessIsRejected) {
  testing::internal::CaptureStderr();
  auto out = exchange(2, 5, when_listening([](const JobKeys &k) {
                        EXPECT_EQ(in_child(-1, [&] { return forge(k.tag, k.secret, 1, 0); }), 0);
                      }));
  const std::string err = testing::internal::GetCapturedStderr();
  expect_genuine(out);
  EXPECT_NE(err.find("claiming PE 0: not the process of the PE it claims"), std::string::npos) << err;
}

TEST(FdExchange, OtherUserIsRejected) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to setuid() a child to nobody";
  testing::internal::CaptureStderr();
  auto out = exchange(2, 5, when_listening([](const JobKeys &k) {
                        // Even with the right secret.
                        EXPECT_EQ(in_child(kNobody, [&] { return forge(k.tag, k.secret, 1, 0); }), 0);
                      }));
  const std::string err = testing::internal::GetCapturedStderr();
  expect_genuine(out);
  EXPECT_NE(err.find("(uid " + std::to_string(kNobody) + "): a different user than this job's (uid 0)"),
            std::string::npos)
      << err;
}

// A connection that never sends holds nobody up: the real PEs complete while it stays open.
TEST(FdExchange, SilentConnectionDoesNotBlock) {
  std::thread closer;
  auto out = exchange(3, 10, when_listening([&](const JobKeys &k) {
                        int s1 = connect_to(k.tag, 1), s2 = connect_to(k.tag, 2);
                        EXPECT_GE(s1, 0);
                        EXPECT_GE(s2, 0);
                        closer = std::thread([s1, s2] {
                          std::this_thread::sleep_for(std::chrono::seconds(3));
                          close(s1);
                          close(s2);
                        });
                      }));
  closer.join();
  for (const Outcome &o : out) EXPECT_LT(o.seconds, 2.0);
  expect_genuine(out);
}

// With the real sender late, a silent connection makes the PE wait no longer than the timeout, and
// the message names the missing PE and the silent connection.
TEST(FdExchange, SilentConnectionIsBoundedByTheTimeout) {
  testing::internal::CaptureStderr();
  int silent = -1;
  auto out = exchange(2, 1, when_listening([&](const JobKeys &k) {
                        silent = connect_to(k.tag, 1);
                        std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // rank 0 sends late
                      }));
  const std::string err = testing::internal::GetCapturedStderr();
  close(silent);
  EXPECT_EQ(out[1].status, Status::timeout);
  EXPECT_LT(out[1].seconds, 2.0);
  EXPECT_NE(err.find("no heap descriptor from PE(s) 0 within 1 s (NVSHMEM_BOOTSTRAP_TIMEOUT); 1 connection(s) "
                     "sent nothing (first from pid " +
                     std::to_string(getpid()) + ")"),
            std::string::npos)
      << err;
  for (int fd : out[1].fds) EXPECT_LT(fd, 0);
}

// A process that takes a PE's socket name before it binds receives nothing: every PE fails.
TEST(FdExchange, StolenSocketNameGetsNoDescriptor) {
  testing::internal::CaptureStderr();
  int ready[2], result[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(result), 0);
  pid_t thief = -1;
  auto out = exchange(
      2, 2,
      [&](int round, const std::string &first) {
        if (round != 1) return;
        const JobKeys k = keys_of(first);
        thief = fork();
        if (thief == 0) {
          socklen_t len;
          sockaddr_un addr = pe_address(k.tag, 1, &len);
          int l = socket(AF_UNIX, SOCK_SEQPACKET, 0);
          const char ok = bind(l, reinterpret_cast<sockaddr *>(&addr), len) == 0 && listen(l, 8) == 0 ? 1 : 0;
          (void)!write(ready[1], &ok, 1);
          pollfd p{l, POLLIN, 0};
          const char got = poll(&p, 1, 3000) > 0 ? 1 : 0;  // did anyone connect?
          (void)!write(result[1], &got, 1);
          _exit(0);
        }
        char ok = 0;
        EXPECT_EQ(read(ready[0], &ok, 1), 1);
        EXPECT_EQ(ok, 1);
      },
      /*hold=*/true);  // before PE 1 binds
  char got = 1;
  EXPECT_EQ(read(result[0], &got, 1), 1);
  waitpid(thief, nullptr, 0);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(got, 0) << "a PE connected to the thief's socket";
  for (const Outcome &o : out) EXPECT_EQ(o.status, Status::internal);
  EXPECT_NE(err.find("Address already in use (another process holds its name)"), std::string::npos) << err;
  for (int fd : {ready[0], ready[1], result[0], result[1]}) close(fd);
}

}  // namespace
}  // namespace nvshm
