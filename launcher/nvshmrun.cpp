// SPDX-License-Identifier: BSD-3-Clause
// nvshmrun: starts N PEs of a program on this node, or on several hosts through a launcher command per
// host (-hosts, -ppn, -launcher-exec), runs their bootstrap rendezvous server in a thread, forwards
// signals, stops the job when a PE fails or the time limit passes. See launcher/README.md.
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/socket.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/pmi1.hpp"
#include "bootstrap/uid_server.hpp"
#include "bootstrap/wire.hpp"

extern char **environ;

namespace {

// One nvshmem_global_exit request, as the bootstrap server thread passes it to the main loop.
struct GlobalExit {
  int rank;
  int status;
};

using nvshm::boot::Clock;
using nvshm::boot::Fd;

// One host of a job on several hosts and the PEs it runs (ranks first .. first + count - 1).
struct Host {
  std::string name;
  int first = 0, count = 0;
};

struct Options {
  int np = 0;
  double timeout_s = 0;  // 0: no limit
  bool prefix = false;
  std::vector<std::pair<std::string, std::string>> genv;  // -genv NAME VALUE, in order
  std::vector<std::string> command;
  // Several hosts (-launcher-exec given): each gets `launcher_exec HOST nvshmrun --node-of ...`.
  std::vector<Host> hosts;
  std::string launcher_exec;
  // --node-of FIRST:SIZE:UNIQUEID (what a multi-host nvshmrun hands each host's nvshmrun): this
  // nvshmrun starts ranks FIRST .. FIRST + np - 1 of SIZE, joining the rendezvous server UNIQUEID.
  int first_rank = 0, world = 0;
  std::string node_uid;
};

int g_signal_pipe = -1;  // write end; the handler only writes the signal number

void on_signal(int sig) {
  int saved = errno;
  unsigned char b = static_cast<unsigned char>(sig);
  ssize_t ignored = write(g_signal_pipe, &b, 1);
  (void)ignored;
  errno = saved;
}

// The options that take values (hydra's single-dash spellings and ours): how many each takes.
int option_values(const std::string &a) {
  static const char *const one[] = {"-n",        "-np",        "--np",           "--timeout",       "-ppn",
                                    "--ppn",     "-hosts",     "--hosts",        "-host",           "--host",
                                    "-f",        "-hostfile",  "--hostfile",     "-machinefile",    "--machinefile",
                                    "-launcher", "--launcher", "-launcher-exec", "--launcher-exec", "--node-of"};
  for (const char *o : one)
    if (a == o) return 1;
  return a == "-genv" || a == "--genv" ? 2 : 0;
}

// Index of the program in argv: the first argument that is neither an option nor an option's value
// ("--" ends the options). Everything from there on belongs to the program, untouched.
int find_program(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") return i + 1;
    if (int values = option_values(a); values > 0) {
      i += values;
    } else if (a.empty() || a[0] != '-') {
      return i;
    }
  }
  return argc;
}

// Hydra spells long options with one dash (-np, -ppn, -hosts, -genv): CLI11 reads those as clusters
// of short options (-ppn as -p -pn), so every single-dash option longer than one letter becomes the
// double-dash spelling, except -nN (the count glued to -n).
std::string long_spelling(const std::string &a) {
  const bool glued_count = a.size() > 2 && a[1] == 'n' && isdigit(static_cast<unsigned char>(a[2]));
  if (a.size() > 2 && a[0] == '-' && a[1] != '-' && !glued_count) return "-" + a;
  return a;
}

// True when `host` names this node: localhost, this host's name (or its first label), or a name or
// address of one of this node's interfaces.
bool is_this_node(const std::string &host) {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  const std::string self = name;
  if (host == "localhost" || host == self || host == self.substr(0, self.find('.'))) return true;
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_UNSPEC;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  ifaddrs *ifs = nullptr;
  bool local = false;
  if (getifaddrs(&ifs) == 0) {
    for (const addrinfo *a = found; a && !local; a = a->ai_next)
      for (const ifaddrs *i = ifs; i && !local; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != a->ai_family) continue;
        if (a->ai_family == AF_INET)
          local = memcmp(&reinterpret_cast<const sockaddr_in *>(a->ai_addr)->sin_addr,
                         &reinterpret_cast<const sockaddr_in *>(i->ifa_addr)->sin_addr, sizeof(in_addr)) == 0;
        else if (a->ai_family == AF_INET6)
          local = memcmp(&reinterpret_cast<const sockaddr_in6 *>(a->ai_addr)->sin6_addr,
                         &reinterpret_cast<const sockaddr_in6 *>(i->ifa_addr)->sin6_addr, sizeof(in6_addr)) == 0;
      }
    freeifaddrs(ifs);
  }
  freeaddrinfo(found);
  return local;
}

// The hosts of -hosts (comma-separated, hydra's HOST[:COUNT]) and of -hostfile (one per line, HOST,
// HOST:COUNT or HOST slots=COUNT, '#' comments), each with its COUNT (0 when not given); a message on error.
std::string read_hosts(const std::string &hosts, const std::string &hostfile, std::vector<Host> *out) {
  auto add = [&](const std::string &h) {
    const std::string name = h.substr(0, h.find_first_of(": \t"));
    if (name.empty()) return;
    const std::size_t count_at = h.find_first_of(":=", name.size());
    out->push_back({name, 0, count_at == std::string::npos ? 0 : atoi(h.c_str() + count_at + 1)});
  };
  for (std::size_t start = 0; start < hosts.size();) {
    const std::size_t comma = std::min(hosts.find(',', start), hosts.size());
    add(hosts.substr(start, comma - start));
    start = comma + 1;
  }
  if (!hostfile.empty()) {
    std::ifstream in(hostfile);
    if (!in) return "cannot read the host file '" + hostfile + "'";
    for (std::string line; std::getline(in, line);) {
      line = line.substr(0, line.find('#'));
      add(line.substr(std::min(line.find_first_not_of(" \t"), line.size())));
    }
  }
  return {};
}

// Places the job's PEs on `hosts` in blocks: COUNT where given, else -ppn, else an even share of -n;
// sets o->np to the total when -n was not given. A message when -n and the counts disagree.
std::string place_pes(std::vector<Host> hosts, int ppn, Options *o) {
  const int n = static_cast<int>(hosts.size());
  int next = 0;
  for (int h = 0; h < n; ++h) {
    Host &host = hosts[h];
    if (host.count <= 0) host.count = ppn > 0 ? ppn : o->np > 0 ? (o->np - next + (n - h) - 1) / (n - h) : 0;
    if (host.count <= 0) return "the number of PEs (-n N, -ppn N or HOST:COUNT) is required";
    host.first = next;
    next += host.count;
  }
  if (o->np > 0 && o->np != next)
    return "-n " + std::to_string(o->np) + " and the hosts' PE counts (" + std::to_string(next) + " in all) disagree";
  o->np = next;
  o->hosts = std::move(hosts);
  return {};
}

// Returns -1 to go on, else the exit status (help, version, usage errors).
int parse_args(int argc, char **argv, Options *o) {
  int prog = find_program(argc, argv);
  std::vector<std::string> ours;
  // Options get their double-dash spelling, their values stay as typed (a -genv value may start with
  // '-'); CLI11 takes the list in reverse order.
  for (int i = 1; i < prog; ++i) {
    const std::string a = argv[i];
    if (a == "--" && i == prog - 1) continue;
    ours.push_back(long_spelling(a));
    for (int v = option_values(a); v > 0 && i + 1 < prog; --v) ours.push_back(argv[++i]);
  }
  std::reverse(ours.begin(), ours.end());
  CLI::App app{
      "nvshmrun -n N [options] program [args...]\nStarts N processing elements (PEs) of an NVSHMEM program on "
      "this node, or on several hosts with -hosts and --launcher-exec.",
      "nvshmrun"};
  std::string shown_only;  // the program is taken from argv before CLI11 parses; this documents it
  app.add_option("program", shown_only, "The program, then its own arguments (passed through untouched)");
  // Whole decimal numbers only, with a message that says what is wanted (CLI11's range checks print
  // the limits of double).
  auto whole_number = [](long min, const char *what) {
    return CLI::Validator(
        [min, what](std::string &text) -> std::string {
          char *end = nullptr;
          errno = 0;
          const long v = strtol(text.c_str(), &end, 10);
          if (text.empty() || *end || errno || v < min) return std::string("needs ") + what + ", got '" + text + "'";
          return {};
        },
        what);
  };
  app.add_option("-n,--np", o->np, "Number of PEs to start (also -np N)")->check(whole_number(1, "a positive integer"));
  int ppn = 0;
  app.add_option("--ppn", ppn, "PEs per node (hydra's -ppn): nvshmrun has one node, so N; with -n, the same N")
      ->check(whole_number(1, "a positive integer"));
  std::string hosts, hostfile, launcher, launcher_exec;
  app.add_option("--hosts,--host", hosts,
                 "Hydra's host list (HOST[:COUNT],...): every host this node (localhost, its name or address), "
                 "or any hosts with --launcher-exec");
  app.add_option("-f,--hostfile,--machinefile", hostfile,
                 "Hydra's host file (HOST, HOST:COUNT or HOST slots=COUNT per line): the same rule as --hosts");
  app.add_option("--genv", o->genv, "Set NAME to VALUE in every PE's environment (hydra's -genv NAME VALUE)");
  app.add_option("--launcher", launcher,
                 "Hydra's launcher: only 'fork' (nvshmrun starts every PE on this node with fork and exec)");
  app.add_option("--launcher-exec", launcher_exec,
                 "Command that runs a command on a host ('ssh', or a wrapper): each host's PEs are started by "
                 "'LAUNCHER_EXEC HOST nvshmrun ...' (this nvshmrun's path), in blocks of COUNT or -ppn PEs; the "
                 "rendezvous server listens where NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME says");
  std::string node_of;
  app.add_option("--node-of", node_of, "FIRST:SIZE:UNIQUEID: run ranks FIRST.. of a multi-host job (set by nvshmrun)");
  // Seconds: a decimal number, fractions allowed (0.5), not negative.
  const CLI::Validator seconds(
      [](std::string &text) -> std::string {
        char *end = nullptr;
        errno = 0;
        const double v = strtod(text.c_str(), &end);
        if (text.empty() || *end || errno || !(v >= 0 && v < 1e9))
          return "needs a number of seconds (fractions allowed), got '" + text + "'";
        return {};
      },
      "SECONDS");
  app.add_option("--timeout", o->timeout_s,
                 "Stop the whole job after SECONDS (fractions allowed; 0: no limit) and exit with status 124")
      ->check(seconds);
  app.add_flag("-p,--prefix-output", o->prefix, "Prefix each line of each PE's stdout and stderr with '[PE i] '");
  app.set_version_flag("--version", "nvshmrun (nvshmem) " NVSHMRUN_VERSION);
  app.footer(
      "Each PE gets NVSHMRUN_RANK, NVSHMRUN_SIZE, NVSHMRUN_LOCAL_RANK, NVSHMRUN_LOCAL_SIZE and NVSHMRUN_UNIQUEID,\n"
      "and PMI_FD, PMI_RANK and PMI_SIZE (nvshmrun serves the PMI-1 protocol; single-node jobs only).\n"
      "Exit status: the first failing PE's (128+signal for a signal), 124 on --timeout, 127 if the program cannot "
      "be run.");
  try {
    app.parse(ours);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::vector<std::string> extras = app.remaining();
    if (dynamic_cast<const CLI::ExtrasError *>(&e) && !extras.empty() && extras.front().rfind('-', 0) == 0) {
      // An option of mpiexec (hydra) or mpirun that nvshmrun does not take, named as the user typed it.
      std::string typed = extras.front();
      for (int i = 1; i < prog; ++i)
        if (typed != argv[i] && long_spelling(argv[i]) == typed) typed = argv[i];
      fprintf(stderr,
              "nvshmrun: option %s is not supported: nvshmrun takes -n/-np, -ppn, -hosts, -hostfile, -genv, "
              "-launcher fork, -launcher-exec, --timeout and -p (docs/bootstrap.md); use mpirun or srun for "
              "the others\nRun with --help for more information.\n",
              typed.c_str());
      return 2;
    }
    fprintf(stderr, "nvshmrun: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  std::string error;
  std::vector<Host> listed;
  error = read_hosts(hosts, hostfile, &listed);
  if (error.empty() && !launcher_exec.empty()) {
    o->launcher_exec = launcher_exec;
    if (listed.empty())
      error = "-launcher-exec needs the hosts (-hosts or -hostfile)";
    else
      error = place_pes(listed, ppn, o);
  } else if (error.empty()) {
    if (ppn > 0 && o->np > 0 && ppn != o->np)
      error = "-n " + std::to_string(o->np) + " and -ppn " + std::to_string(ppn) +
              " disagree: nvshmrun starts every PE on this node, so -ppn is the number of PEs";
    else if (ppn > 0)
      o->np = ppn;
    for (const Host &h : listed)
      if (error.empty() && !is_this_node(h.name))
        error = "'" + h.name +
                "' is not this node: give --launcher-exec (ssh, or a command that runs a command on that host) to "
                "start PEs on other hosts, or use mpirun, mpiexec or srun (docs/bootstrap.md)";
  }
  if (error.empty() && !node_of.empty()) {
    char uid[520] = {};
    if (sscanf(node_of.c_str(), "%d:%d:%519s", &o->first_rank, &o->world, uid) != 3 || o->first_rank < 0 ||
        o->world < 1)
      error = "--node-of needs FIRST:SIZE:UNIQUEID, got '" + node_of + "'";
    o->node_uid = uid;
  }
  if (error.empty() && !launcher.empty() && launcher != "fork")
    error = "-launcher " + launcher +
            " is not supported: nvshmrun starts PEs on this node (-launcher fork) or through --launcher-exec";
  for (const auto &[name, value] : o->genv)
    if (error.empty() && (name.empty() || name.find('=') != std::string::npos || name.rfind("NVSHMRUN_", 0) == 0 ||
                          name.rfind("PMI_", 0) == 0))
      error = "-genv " + name + ": not a variable name a PE may be given (NVSHMRUN_* and PMI_* are nvshmrun's)";
  if (error.empty() && o->np < 1) error = "the number of PEs (-n N, -np N or -ppn N) is required";
  if (error.empty() && prog >= argc) error = "no program given";
  if (!error.empty()) {
    fprintf(stderr,
            "nvshmrun: %s\nUsage: nvshmrun -n N [options] program [args...]\nRun with --help for more information.\n",
            error.c_str());
    return 2;
  }
  o->command.assign(argv + prog, argv + argc);
  return -1;
}

bool write_all(int fd, const char *p, std::size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// One PE's stdout or stderr, read from a pipe when --prefix-output is on.
struct Stream {
  Fd fd;
  int dest = -1;
  std::string prefix, buf;

  // Writes each complete line (or, at the end, the rest) with the prefix, one write per line.
  void flush(bool all) {
    std::size_t start = 0, nl;
    while ((nl = buf.find('\n', start)) != std::string::npos || (all && start < buf.size()) ||
           buf.size() - start > 65536) {
      std::size_t end = nl != std::string::npos ? nl : std::min(buf.size(), start + 65536);
      std::string line = prefix + buf.substr(start, end - start) + "\n";
      write_all(dest, line.data(), line.size());
      start = nl != std::string::npos ? nl + 1 : end;
    }
    buf.erase(0, start);
  }
  // Reads what is available; closes the stream at end of file.
  void drain() {
    char chunk[8192];
    for (;;) {
      ssize_t n = read(fd.get(), chunk, sizeof chunk);
      if (n > 0) {
        buf.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        flush(true);
        fd.reset();
      } else {
        flush(false);
      }
      return;
    }
  }
};

struct Pe {
  pid_t pid = -1;
  bool running = false;
  Stream out, err;
};

class Job {
 public:
  // The job's children: its PEs, or on several hosts one launcher command (with its nvshmrun) per host.
  Job(const Options &o, std::string uid_hex)
      : o_(o), uid_hex_(std::move(uid_hex)), pes_(o.hosts.empty() ? o.np : o.hosts.size()) {}

  // Starts every PE (or host), then the PMI-1 server on their PMI_FD sockets (single-node jobs); returns
  // -1, or 127 (after stopping those started) if the program cannot be run.
  int start() {
    for (std::size_t r = 0; r < pes_.size(); ++r) {
      if (int rc = spawn(static_cast<int>(r)); rc >= 0) {
        stop_started();
        return rc;
      }
    }
    if (!pmi_fds_.empty())
      pmi_ = std::make_unique<nvshm::boot::Pmi1Server>(std::move(pmi_fds_), "nvshmrun-" + std::to_string(getpid()));
    return -1;
  }

  // Waits for the job, forwarding signals and collecting output; returns nvshmrun's exit status.
  // Runs the job to its end: output, signals, PE exits, --timeout, and nvshmem_global_exit requests
  // (GlobalExit records written to exit_fd by the bootstrap server's thread).
  int wait(int signal_fd, int exit_fd) {
    auto limit =
        o_.timeout_s > 0
            ? Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.timeout_s))
            : Clock::time_point::max();
    for (;;) {
      reap();
      if (stopping_ && running() > 0 && Clock::now() >= kill_at_) kill_all(SIGKILL);
      if (status_ < 0 && Clock::now() >= limit) {
        fprintf(stderr, "nvshmrun: the job ran past --timeout %g s; stopping %d PEs\n", o_.timeout_s, running());
        status_ = 124;
        begin_stop();
      }
      if (running() == 0) break;
      std::vector<pollfd> fds{{signal_fd, POLLIN, 0}, {exit_fd, POLLIN, 0}};
      std::vector<Stream *> streams;
      for (Pe &pe : pes_)
        for (Stream *s : {&pe.out, &pe.err})
          if (s->fd) fds.push_back({s->fd.get(), POLLIN, 0}), streams.push_back(s);
      int wait_ms = stopping_ ? 20 : 200;
      if (limit != Clock::time_point::max()) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(limit - Clock::now()).count() + 1;
        if (left < wait_ms) wait_ms = left > 0 ? static_cast<int>(left) : 0;
      }
      if (poll(fds.data(), fds.size(), wait_ms) <= 0) continue;
      if (fds[0].revents) forward_signals(signal_fd);
      if (fds[1].revents) global_exit(exit_fd);
      for (std::size_t i = 2; i < fds.size(); ++i)
        if (fds[i].revents) streams[i - 2]->drain();
    }
    for (Pe &pe : pes_)  // every PE has exited: what they wrote is in the pipes
      for (Stream *s : {&pe.out, &pe.err})
        if (s->fd) s->drain(), s->flush(true), s->fd.reset();
    return status_ < 0 ? 0 : status_;
  }

 private:
  int running() const {
    int n = 0;
    for (const Pe &pe : pes_) n += pe.running;
    return n;
  }

  // "PE 3", or "host node1 (PEs 2-3)" for a job on several hosts.
  std::string label(int unit) const {
    if (o_.hosts.empty()) return "PE " + std::to_string(o_.first_rank + unit);
    const Host &h = o_.hosts[unit];
    if (h.count == 1) return "host " + h.name + " (PE " + std::to_string(h.first) + ")";
    return "host " + h.name + " (PEs " + std::to_string(h.first) + "-" + std::to_string(h.first + h.count - 1) + ")";
  }

  // The launcher command for host `unit`: LAUNCHER_EXEC HOST <this nvshmrun> --node-of ... program.
  std::vector<std::string> host_command(int unit) const {
    std::vector<std::string> argv;
    std::istringstream words(o_.launcher_exec);
    for (std::string w; words >> w;) argv.push_back(w);
    const Host &h = o_.hosts[unit];
    char self[4096] = {};
    if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) strcpy(self, "nvshmrun");
    for (const std::string &a : {h.name, std::string(self), std::string("--node-of"),
                                 std::to_string(h.first) + ":" + std::to_string(o_.np) + ":" + uid_hex_,
                                 std::string("-n"), std::to_string(h.count)})
      argv.push_back(a);
    if (o_.prefix) argv.push_back("-p");
    for (const auto &g : o_.genv)
      for (const std::string &a : {std::string("--genv"), g.first, g.second}) argv.push_back(a);
    argv.push_back("--");
    argv.insert(argv.end(), o_.command.begin(), o_.command.end());
    return argv;
  }

  int spawn(int unit) {
    Pe &pe = pes_[unit];
    const bool front = !o_.hosts.empty();  // a host's launcher command, not a PE
    const bool single = !front && o_.world == 0;
    const int rank = o_.first_rank + unit;
    std::vector<std::string> vars;
    // PMI-1 for programs built against other NVSHMEM libraries (single-node jobs): one socketpair per
    // PE, the PE's end inherited as PMI_FD (ours prefer the NVSHMRUN_* variables).
    int pmi[2] = {-1, -1};
    if (single && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pmi) != 0) {
      fprintf(stderr, "nvshmrun: socketpair failed: %s\n", strerror(errno));
      return 1;
    }
    if (single) pmi_fds_.emplace_back(pmi[0]);
    Fd pmi_child(pmi[1]);
    // nvshmrun's environment without its own variables and those -genv sets, then the -genv values.
    auto set_by_genv = [&](const char *e) {
      for (const auto &g : o_.genv)
        if (strncmp(e, g.first.c_str(), g.first.size()) == 0 && e[g.first.size()] == '=') return true;
      return false;
    };
    for (char **e = environ; *e; ++e)
      if (strncmp(*e, "NVSHMRUN_", 9) != 0 && strncmp(*e, "PMI_", 4) != 0 && !set_by_genv(*e)) vars.emplace_back(*e);
    auto set = [&](const char *name, const std::string &v) { vars.push_back(std::string(name) + "=" + v); };
    const std::vector<std::string> command = front ? host_command(unit) : o_.command;
    if (!front) {
      for (const auto &g : o_.genv) set(g.first.c_str(), g.second);
      set(nvshm::kEnvLauncherRank, std::to_string(rank));
      set(nvshm::kEnvLauncherSize, std::to_string(single ? o_.np : o_.world));
      set(nvshm::kEnvLauncherLocalRank, std::to_string(unit));
      set(nvshm::kEnvLauncherLocalSize, std::to_string(o_.np));
      set(nvshm::kEnvLauncherUniqueId, uid_hex_);
    }
    if (single) {
      set("PMI_FD", std::to_string(pmi[1]));
      set("PMI_RANK", std::to_string(rank));
      set("PMI_SIZE", std::to_string(o_.np));
    }
    std::vector<char *> envp, argv;
    for (auto &v : vars) envp.push_back(v.data());
    envp.push_back(nullptr);
    for (const auto &a : command) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);

    // A host's nvshmrun prefixes its PEs' lines itself.
    const bool prefix = o_.prefix && !front;
    int out[2] = {-1, -1}, err[2] = {-1, -1}, exec_status[2];
    if (pipe2(exec_status, O_CLOEXEC) != 0 || (prefix && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0))) {
      fprintf(stderr, "nvshmrun: pipe failed: %s\n", strerror(errno));
      return 1;
    }
    Fd status_read(exec_status[0]), status_write(exec_status[1]);
    pe.out.fd.reset(out[0]);
    pe.err.fd.reset(err[0]);
    Fd out_write(out[1]), err_write(err[1]);
    const pid_t launcher = getpid();
    pid_t pid = fork();
    if (pid < 0) {
      fprintf(stderr, "nvshmrun: fork failed: %s\n", strerror(errno));
      return 1;
    }
    if (pid == 0) {  // child: only async-signal-safe calls until exec
      // If nvshmrun dies (even by SIGKILL), the kernel kills this PE: no orphans. It survives exec; a
      // PE behind a wrapper is a grandchild and ends on its own when the launcher connection closes
      // (src/bootstrap/bootstrap.cpp). Checked after the prctl: nvshmrun may already be gone.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != launcher) _exit(127);
      if (prefix) dup2(out[1], 1), dup2(err[1], 2);
      if (single) fcntl(pmi[1], F_SETFD, 0);  // PMI_FD survives exec
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE}) sigaction(sig, &dfl, nullptr);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execvpe(argv[0], argv.data(), envp.data());
      int e = errno;
      ssize_t ignored = write(exec_status[1], &e, sizeof e);
      (void)ignored;
      _exit(127);
    }
    pe.pid = pid;
    pe.running = true;
    status_write.reset();
    int e = 0;
    ssize_t n;
    while ((n = read(status_read.get(), &e, sizeof e)) < 0 && errno == EINTR) {
    }
    if (n == static_cast<ssize_t>(sizeof e)) {
      fprintf(stderr, "nvshmrun: cannot execute '%s': %s\n", argv[0], strerror(e));
      return 127;
    }
    for (Stream *s : {&pe.out, &pe.err}) {
      if (!s->fd) continue;
      fcntl(s->fd.get(), F_SETFL, O_NONBLOCK);
      s->dest = s == &pe.out ? 1 : 2;
      s->prefix = "[" + label(unit) + "] ";
    }
    return -1;
  }

  void reap() {
    for (std::size_t r = 0; r < pes_.size(); ++r) {
      Pe &pe = pes_[r];
      int st;
      if (!pe.running || waitpid(pe.pid, &st, WNOHANG) != pe.pid) continue;
      pe.running = false;
      if (status_ >= 0 || (WIFEXITED(st) && WEXITSTATUS(st) == 0)) continue;
      char why[128];
      if (WIFEXITED(st)) {
        status_ = WEXITSTATUS(st);
        snprintf(why, sizeof why, "exited with status %d", status_);
      } else {
        status_ = 128 + WTERMSIG(st);
        snprintf(why, sizeof why, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
      }
      int others = running();
      if (others > 0)
        fprintf(stderr, "nvshmrun: %s (pid %d) %s; stopping the other %d %s%s\n", label(static_cast<int>(r)).c_str(),
                pe.pid, why, others, o_.hosts.empty() ? "PE" : "host", others == 1 ? "" : "s");
      else
        fprintf(stderr, "nvshmrun: %s (pid %d) %s\n", label(static_cast<int>(r)).c_str(), pe.pid, why);
      begin_stop();
    }
  }

  // SIGTERM now, SIGKILL after 1 s to those still running.
  void begin_stop() {
    if (stopping_) return;
    stopping_ = true;
    kill_all(SIGTERM);
    kill_at_ = Clock::now() + std::chrono::seconds(1);
  }
  void kill_all(int sig) {
    for (Pe &pe : pes_)
      if (pe.running) kill(pe.pid, sig);
  }
  // Used when start() fails (the failure is already reported): stop and reap what was started.
  void stop_started() {
    kill_all(SIGTERM);
    auto kill_at = Clock::now() + std::chrono::seconds(1);
    for (Pe &pe : pes_) {
      while (pe.running && waitpid(pe.pid, nullptr, WNOHANG) != pe.pid) {
        if (Clock::now() >= kill_at) kill(pe.pid, SIGKILL);
        usleep(5000);
      }
      pe.running = false;
    }
  }

  void global_exit(int exit_fd) {
    GlobalExit e;
    while (read(exit_fd, &e, sizeof e) == static_cast<ssize_t>(sizeof e)) {
      if (status_ >= 0) continue;  // the job's status is already decided
      status_ = e.status;
      fprintf(stderr, "nvshmrun: PE %d called nvshmem_global_exit(%d); stopping the job\n", e.rank, e.status);
      begin_stop();
    }
  }

  void forward_signals(int signal_fd) {
    unsigned char sigs[64];
    ssize_t n = read(signal_fd, sigs, sizeof sigs);
    for (ssize_t i = 0; i < n; ++i) {
      if (sigs[i] == SIGCHLD) continue;  // reap() runs on every pass
      fprintf(stderr, "nvshmrun: received %s; forwarding it to %d PEs\n", strsignal(sigs[i]), running());
      kill_all(sigs[i]);
    }
  }

  const Options &o_;
  std::string uid_hex_;
  std::vector<Fd> pmi_fds_;  // nvshmrun's ends, handed to pmi_ once every PE is started
  std::unique_ptr<nvshm::boot::Pmi1Server> pmi_;
  std::vector<Pe> pes_;
  int status_ = -1;  // nvshmrun's exit status once decided
  bool stopping_ = false;
  Clock::time_point kill_at_;
};

}  // namespace

int main(int argc, char **argv) {
  Options o;
  if (int rc = parse_args(argc, argv, &o); rc >= 0) return rc;
  nvshm::Env env;
  if (nvshm::env_load(&env) != nvshm::Status::ok) return 1;

  int sp[2];
  if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) != 0) {
    perror("nvshmrun: pipe");
    return 1;
  }
  Fd signal_read(sp[0]), signal_write(sp[1]);
  g_signal_pipe = sp[1];
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // nvshmem_global_exit requests reach the main loop through a pipe from the server's thread.
  int ep[2];
  if (pipe2(ep, O_CLOEXEC | O_NONBLOCK) != 0) {
    perror("nvshmrun: pipe");
    return 1;
  }
  Fd exit_read(ep[0]), exit_write(ep[1]);
  nvshm::boot::ServerOptions server_options{/*loopback=*/true, /*persistent=*/true, [fd = ep[1]](int rank, int status) {
                                              const GlobalExit e{rank, status};
                                              ssize_t ignored = write(fd, &e, sizeof e);
                                              (void)ignored;
                                            }};
  // A host's part of a multi-host job joins the server of the nvshmrun that started it; a job on several
  // hosts listens where NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME says (not on loopback).
  server_options.loopback = o.hosts.empty();
  std::unique_ptr<nvshm::boot::UidServer> server;
  if (o.world == 0 && nvshm::boot::UidServer::start(env, server_options, &server) != nvshm::Status::ok) return 1;
  int status;
  {
    Job job(o, server ? nvshm::boot::uid_to_hex(server->id()) : o.node_uid);
    status = job.start();
    if (status < 0) status = job.wait(signal_read.get(), exit_read.get());
  }
  if (server) server->stop();
  return status;
}
