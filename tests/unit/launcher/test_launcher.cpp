// SPDX-License-Identifier: BSD-3-Clause
// nvshmrun: environment of the PEs, exit status propagation, stopping a failed job, --timeout, signal
// forwarding, argument pass-through, exec failures and output prefixing. Runs the real binary.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {
using Clock = std::chrono::steady_clock;

struct Result {
  int status = -1;  // exit status, or 128+signal
  std::string out, err;
  double seconds = 0;
  Clock::time_point end;  // when nvshmrun had exited
};

// A running nvshmrun with its stdout and stderr captured.
struct Proc {
  pid_t pid = -1;
  int out = -1, err = -1;
  Clock::time_point start;
};

Proc start(std::vector<std::string> args) {
  args.insert(args.begin(), NVSHMRUN_PATH);
  int out[2], err[2];
  EXPECT_EQ(pipe(out), 0);
  EXPECT_EQ(pipe(err), 0);
  Proc p;
  p.start = Clock::now();
  p.pid = fork();
  if (p.pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(126);
  }
  close(out[1]);
  close(err[1]);
  p.out = out[0];
  p.err = err[0];
  return p;
}

// Collects the output until both pipes close, then the exit status; kills nvshmrun after `limit_s`.
Result finish(Proc p, double limit_s = 20) {
  Result r;
  std::string *dest[2] = {&r.out, &r.err};
  pollfd fds[2] = {{p.out, POLLIN, 0}, {p.err, POLLIN, 0}};
  auto end = p.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
  for (int open = 2; open > 0 && Clock::now() < end;) {
    if (poll(fds, 2, 100) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !fds[i].revents) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        dest[i]->append(buf, n);
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  int st = 0;
  bool reaped;
  while (!(reaped = waitpid(p.pid, &st, WNOHANG) == p.pid) && Clock::now() < end) usleep(2000);
  if (!reaped) {
    ADD_FAILURE() << "nvshmrun still running after " << limit_s << " s; killing it";
    kill(p.pid, SIGKILL);
    waitpid(p.pid, &st, 0);
  }
  r.end = Clock::now();
  r.seconds = std::chrono::duration<double>(r.end - p.start).count();
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  for (int i = 0; i < 2; ++i)
    if (fds[i].fd >= 0) close(fds[i].fd);
  return r;
}

Result run(const std::vector<std::string> &args, double limit_s = 20) {
  return finish(start(args), limit_s);
}

std::vector<std::string> lines_matching(const std::string &text, const std::string &re) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::regex r(re);
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, r)) out.push_back(line);
  return out;
}

// Pids the helper wrote with pidfile=DIR; true if none of them is still alive.
bool all_gone(const std::string &dir, int n) {
  for (int r = 0; r < n; ++r) {
    std::ifstream f(dir + "/" + std::to_string(r) + ".pid");
    int pid = 0;
    if (f >> pid && kill(pid, 0) == 0) return false;
  }
  return true;
}

// Seconds from the moment PE `rank` wrote stamp=DIR (CLOCK_MONOTONIC, as steady_clock) to `end`.
double seconds_since_stamp(const std::string &dir, int rank, Clock::time_point end) {
  std::ifstream f(dir + "/" + std::to_string(rank) + ".stamp");
  long long ns = 0;
  if (!(f >> ns)) return 1e9;
  return std::chrono::duration<double>(end.time_since_epoch() - std::chrono::nanoseconds(ns)).count();
}

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/nvshmrun-test-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { (void)!system(("rm -rf " + path).c_str()); }
};

const std::string kHelper = HELPER_PATH;

TEST(Launcher, EveryPeGetsItsRankAndSize) {
  Result r = run({"-n", "4", kHelper});
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = lines_matching(r.out, "^rank=");
  ASSERT_EQ(lines.size(), 4u) << r.out;
  std::set<std::string> seen;
  for (auto &l : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, std::regex("rank=(\\d) size=4 local_rank=(\\d) local_size=4 uid_len=256"))) << l;
    EXPECT_EQ(m[1], m[2]);
    seen.insert(m[1]);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"0", "1", "2", "3"}));
}

TEST(Launcher, NpSpellings) {
  for (auto np : {std::vector<std::string>{"-np", "3"}, {"--np", "3"}, {"--np=3"}, {"-n3"}}) {
    auto args = np;
    args.push_back(kHelper);
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << np[0] << ": " << r.err;
    EXPECT_EQ(lines_matching(r.out, "^rank=").size(), 3u) << np[0] << ": " << r.out;
  }
}

TEST(Launcher, BootstrapThroughTheLauncher) {
  Result r = run({"-n", "4", kHelper, "bootstrap"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_matching(r.out, "^bootstrap ok name=launcher rank=\\d size=4$").size(), 4u) << r.out;
}

TEST(Launcher, Pmi1ForProgramsOfOtherLibraries) {
  Result r = run({"-n", "3", kHelper, "pmi-bootstrap", "pmi-bootstrap"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_matching(r.out, "^pmi_rank=\\d pmi_size=3 pmi_fd_open=yes$").size(), 3u) << r.out;
  EXPECT_EQ(lines_matching(r.out, "^bootstrap ok name=PMI rank=\\d size=3$").size(), 6u) << r.out;
}

TEST(Launcher, RepeatedInitFinalizeInEachPe) {
  Result r = run({"-n", "4", kHelper, "bootstrap", "bootstrap", "sleep=0.05", "bootstrap", "bootstrap"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_matching(r.out, "^bootstrap ok name=launcher rank=\\d size=4$").size(), 16u) << r.out;
}

TEST(Launcher, ExitStatusPropagatesAndOthersStop) {
  TempDir dir;
  Result r = run({"-n", "4", kHelper, "pidfile=" + dir.path, "sleep=0.2", "stamp=" + dir.path, "exit=3@1", "sleep=30"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_LT(seconds_since_stamp(dir.path, 1, r.end), 2.0);
  EXPECT_TRUE(all_gone(dir.path, 4));
  EXPECT_EQ(
      lines_matching(r.err, "^nvshmrun: PE 1 \\(pid \\d+\\) exited with status 3; stopping the other 3 PEs$").size(),
      1u)
      << r.err;
}

TEST(Launcher, DeathBySignalAndStubbornPesAreKilled) {
  TempDir dir;
  // The others ignore SIGTERM: nvshmrun must use SIGKILL after 1 s, all within 2 s.
  Result r = run({"-n", "3", kHelper, "ignore-term", "pidfile=" + dir.path, "sleep=0.2", "stamp=" + dir.path,
                  "kill=9@2", "sleep=30"});
  EXPECT_EQ(r.status, 128 + 9) << r.err;
  double stop = seconds_since_stamp(dir.path, 2, r.end);
  EXPECT_LT(stop, 2.0);  // from PE 2's death to nvshmrun's exit, every PE reaped
  EXPECT_GT(stop, 1.0);  // SIGTERM was ignored, so SIGKILL came after 1 s
  EXPECT_TRUE(all_gone(dir.path, 3));
  EXPECT_NE(r.err.find("PE 2 (pid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("killed by signal 9"), std::string::npos) << r.err;
}

// A process that is still running (not a zombie).
bool running(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(f, stat)) return false;
  const std::size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
}

// Starts nvshmrun with `args` (whose PEs write DIR/<rank>.pid), waits for both pid files, kills nvshmrun
// with SIGKILL and returns the seconds until no PE runs any more (99 if they outlive 5 s).
double seconds_for_pes_to_follow_a_killed_launcher(const TempDir &dir, const std::vector<std::string> &args,
                                                   std::string *err) {
  Proc p = start(args);
  std::vector<int> pids;
  for (auto end = Clock::now() + std::chrono::seconds(20); pids.size() < 2 && Clock::now() < end;) {
    pids.clear();
    for (int r = 0; r < 2; ++r) {
      std::ifstream f(dir.path + "/" + std::to_string(r) + ".pid");
      int pid = 0;
      if (f >> pid) pids.push_back(pid);
    }
    usleep(10000);
  }
  EXPECT_EQ(pids.size(), 2u);
  kill(p.pid, SIGKILL);
  const auto killed = Clock::now();
  waitpid(p.pid, nullptr, 0);
  double seconds = 99;
  while (Clock::now() < killed + std::chrono::seconds(5)) {
    if (!running(pids[0]) && !running(pids[1])) {
      seconds = std::chrono::duration<double>(Clock::now() - killed).count();
      break;
    }
    usleep(5000);
  }
  for (int pid : pids)
    if (running(pid)) kill(pid, SIGKILL);
  pollfd f{p.err, POLLIN, 0};
  char buf[4096];
  ssize_t n;
  while (poll(&f, 1, 200) == 1 && (n = read(p.err, buf, sizeof buf)) > 0) err->append(buf, n);
  close(p.out);
  close(p.err);
  return seconds;
}

// Issue 33: kill -9 of nvshmrun left its PEs running as orphans. Its children die with it (PR_SET_PDEATHSIG).
TEST(Launcher, KilledLauncherTakesItsPesAlong) {
  TempDir dir;
  std::string err;
  EXPECT_LT(seconds_for_pes_to_follow_a_killed_launcher(
                dir, {"-n", "2", HELPER_PATH, "pidfile=" + dir.path, "sleep=60"}, &err),
            2.0);
}

// A PE behind a wrapper (a grandchild of nvshmrun) ends when its launcher connection closes.
TEST(Launcher, KilledLauncherEndsPesBehindAWrapper) {
  TempDir dir;
  std::string err;
  EXPECT_LT(seconds_for_pes_to_follow_a_killed_launcher(
                dir, {"-n", "2", "/bin/sh", "-c", std::string(HELPER_PATH) + " hold=" + dir.path + "; true"}, &err),
            2.0);
  EXPECT_NE(err.find("the bootstrap connection to nvshmrun"), std::string::npos) << err;
  EXPECT_NE(err.find("nvshmrun has ended (killed?); ending this PE"), std::string::npos) << err;
}

TEST(Launcher, AllSucceed) {
  Result r = run({"-n", "2", kHelper, "exit=0"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(Launcher, TimeoutStopsTheJob) {
  TempDir dir;
  Result r = run({"--timeout", "1", "-n", "2", kHelper, "pidfile=" + dir.path, "sleep=30"});
  EXPECT_EQ(r.status, 124) << r.err;
  EXPECT_LT(r.seconds, 3);
  EXPECT_TRUE(all_gone(dir.path, 2));
  EXPECT_NE(r.err.find("--timeout"), std::string::npos) << r.err;
}

TEST(Launcher, TimeoutTakesFractions) {
  TempDir dir;
  Result r = run({"--timeout", "0.5", "-n", "2", kHelper, "pidfile=" + dir.path, "sleep=30"});
  EXPECT_EQ(r.status, 124) << r.err;
  EXPECT_LT(r.seconds, 2);
  EXPECT_TRUE(all_gone(dir.path, 2));
  EXPECT_NE(r.err.find("ran past --timeout 0.5 s"), std::string::npos) << r.err;
  for (const char *bad : {"-1", "x", "1s"}) {
    r = run({"--timeout", bad, "-n", "2", kHelper});
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("needs a number of seconds"), std::string::npos) << bad << ": " << r.err;
  }
}

TEST(Launcher, SigtermIsForwarded) {
  TempDir dir;
  Proc p = start({"-n", "3", kHelper, "pidfile=" + dir.path, "sleep=30"});
  usleep(500000);
  kill(p.pid, SIGTERM);
  Result r = finish(p);
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;  // the PEs died of the forwarded SIGTERM
  EXPECT_LT(r.seconds, 2);
  EXPECT_TRUE(all_gone(dir.path, 3));
  EXPECT_NE(r.err.find("forwarding it to 3 PEs"), std::string::npos) << r.err;
}

TEST(Launcher, ProgramArgumentsPassThrough) {
  std::vector<std::string> prog = {kHelper,  "args",      "-n",         "7", "--timeout", "-p",
                                   "--help", "--version", "with space", "",  "--"};
  for (bool dashdash : {false, true}) {
    std::vector<std::string> args = {"-np", "1", "-p"};
    if (dashdash) args.push_back("--");
    args.insert(args.end(), prog.begin(), prog.end());
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    for (std::size_t i = 0; i < prog.size(); ++i)
      EXPECT_NE(r.out.find("[PE 0] arg[" + std::to_string(i) + "]=" + prog[i] + "\n"), std::string::npos)
          << "argument " << i << " '" << prog[i] << "':\n"
          << r.out;
  }
}

TEST(Launcher, MissingProgramIs127) {
  for (std::string prog : {"/no/such/program", "no-such-program-in-path-xyz"}) {
    Result r = run({"-n", "2", prog, "x"});
    EXPECT_EQ(r.status, 127) << r.err;
    EXPECT_NE(r.err.find("nvshmrun: cannot execute '" + prog + "': No such file or directory"), std::string::npos)
        << r.err;
  }
}

TEST(Launcher, PrefixOutput) {
  Result r = run({"--prefix-output", "-n", "3", kHelper, "lines=40"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const std::string *text : {&r.out, &r.err}) {
    auto lines = lines_matching(*text, "line");
    EXPECT_EQ(lines.size(), 120u) << *text;
    for (auto &l : lines) {
      std::smatch m;
      ASSERT_TRUE(std::regex_match(l, m, std::regex("\\[PE (\\d)\\] line \\d+ from rank (\\d)"))) << l;
      EXPECT_EQ(m[1], m[2]) << l;
    }
  }
  EXPECT_EQ(lines_matching(r.out, "^\\[PE \\d\\] rank=").size(), 3u);
}

// Hydra's options as NVSHMEM users type them (mpiexec -n 2 -ppn 2 -hosts localhost -genv NAME VALUE):
// accepted where they describe this node, refused with a message (status 2, nothing started) where not.
TEST(Launcher, HydraOptionsForThisNode) {
  char name[256] = {};
  ASSERT_EQ(gethostname(name, sizeof name - 1), 0);
  TempDir dir;
  const std::string hostfile = dir.path + "/hosts";
  std::ofstream(hostfile) << "# this node only\nlocalhost:2\n" << name << " slots=2\n\n127.0.0.1\n";
  for (auto args : {std::vector<std::string>{"-n", "2", "-hosts", "localhost"},
                    {"-np", "2", "-hosts", std::string(name) + ":2,localhost"},
                    {"-n", "2", "-host", "127.0.0.1"},
                    {"-ppn", "2"},
                    {"-n", "2", "-ppn", "2", "-hostfile", hostfile},
                    {"-n", "2", "-f", hostfile, "-launcher", "fork"},
                    {"-n", "2", "-machinefile", hostfile}}) {
    const std::string what = ::testing::PrintToString(args);
    args.push_back(kHelper);
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << what << ": " << r.err;
    EXPECT_EQ(lines_matching(r.out, "^rank=\\d size=2 ").size(), 2u) << what << ": " << r.out;
  }
}

TEST(Launcher, GenvSetsEveryPesEnvironment) {
  setenv("GENV_TEST_OLD", "from nvshmrun", 1);
  Result r = run({"-genv", "GENV_TEST_OLD", "replaced", "-n", "2", "-genv", "GENV_TEST", "a b=c", "-genv",
                  "GENV_TEST_DASH", "-ppn", kHelper, "env=GENV_TEST_OLD", "env=GENV_TEST", "env=GENV_TEST_DASH"});
  unsetenv("GENV_TEST_OLD");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_matching(r.out, "^env GENV_TEST_OLD=replaced$").size(), 2u) << r.out;
  EXPECT_EQ(lines_matching(r.out, "^env GENV_TEST=a b=c$").size(), 2u) << r.out;
  EXPECT_EQ(lines_matching(r.out, "^env GENV_TEST_DASH=-ppn$").size(), 2u) << r.out;  // a value, not an option
  EXPECT_EQ(lines_matching(r.out, "from nvshmrun").size(), 0u) << r.out;
}

TEST(Launcher, HydraOptionsRefusedWithAMessage) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-n", "2", "-hosts", "localhost,192.0.2.1"}, "'192.0.2.1' is not this node"},
      {{"-n", "2", "-hosts", "no-such-host.invalid:2"}, "'no-such-host.invalid' is not this node"},
      {{"-n", "2", "-hostfile", "/no/such/hostfile"}, "cannot read the host file '/no/such/hostfile'"},
      {{"-np", "4", "-ppn", "2"}, "-n 4 and -ppn 2 disagree"},
      {{"-n", "2", "-launcher", "ssh"}, "-launcher ssh is not supported"},
      {{"-n", "2", "-launcher-exec", "/usr/bin/ssh"}, "-launcher-exec needs the hosts"},
      {{"-n", "3", "-hosts", "a,b", "-ppn", "2", "-launcher-exec", "ssh"}, "-n 3 and the hosts' PE counts (4 in all)"},
      {{"-n", "2", "-genv", "PMI_RANK", "7"}, "-genv PMI_RANK: not a variable name"},
      {{"-n", "2", "-genv", "ONLY_NAME"}, "no program given"},  // the program became the value
      {{"-n", "2", "-bind-to", "core"}, "option -bind-to is not supported"},
      {{"-n", "2", "--map-by", "socket"}, "option --map-by is not supported"},
      {{"-n", "2", "-x"}, "option -x is not supported"},
      {{"-hosts", "localhost"}, "the number of PEs (-n N, -np N or -ppn N) is required"}};
  for (const auto &[options, message] : cases) {
    auto args = options;
    args.push_back(kHelper);
    Result r = run(args);
    const std::string what = ::testing::PrintToString(options);
    EXPECT_EQ(r.status, 2) << what << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(lines_matching(r.out, "^rank=").size(), 0u) << what << " started PEs: " << r.out;
  }
}

TEST(Launcher, UsageErrorsHelpAndVersion) {
  Result r = run({kHelper});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("-n N"), std::string::npos) << r.err;
  r = run({"-n", "0", kHelper});
  EXPECT_EQ(r.status, 2);
  r = run({"-n", "2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no program given"), std::string::npos) << r.err;
  r = run({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--prefix-output"), std::string::npos) << r.out;
  r = run({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "nvshmrun (nvshmem) " NVSHMRUN_VERSION "\n");
}

}  // namespace
