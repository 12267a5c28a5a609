// SPDX-License-Identifier: BSD-3-Clause
// A PE for the nvshmrun tests. Prints its NVSHMRUN_* environment, then runs its arguments in order:
//   args           print every argv element as "arg[i]=<text>" and exit 0 (the rest are not actions)
//   sleep=S        sleep S seconds (may be fractional)
//   exit=C[@R]     exit with status C (only on rank R, when given)
//   kill=SIG[@R]   kill itself with signal SIG (only on rank R)
//   ignore-term    ignore SIGTERM (so that only SIGKILL stops it)
//   pidfile=DIR    write its pid to DIR/<rank>.pid
//   stamp=DIR      write CLOCK_MONOTONIC in nanoseconds to DIR/<rank>.stamp
//   env=NAME       print "env NAME=<value>" (or "env NAME unset")
//   lines=K        write K lines to stdout and K to stderr, each in several small pieces
//   bootstrap      connect the launcher bootstrap, allgather the ranks, barrier
//   pmi-bootstrap  the same through nvshmrun's PMI-1 server (NVSHMEM_BOOTSTRAP_PMI=PMI)
//   hold=DIR       connect the launcher bootstrap, barrier, write its pid to DIR/<rank>.pid, then sleep
//                  60 s holding the connection (a PE busy between bootstrap calls)
// It also prints its PMI-1 variables and whether PMI_FD is open.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"

namespace {
const char *var(const char *name) {
  const char *v = getenv(name);
  return v ? v : "unset";
}

// "VALUE" or "VALUE@RANK": true when it applies to `rank`.
bool applies(const std::string &arg, int rank, long *value) {
  std::size_t at = arg.find('@');
  *value = strtol(arg.c_str(), nullptr, 10);
  return at == std::string::npos || atoi(arg.c_str() + at + 1) == rank;
}

int run_bootstrap() {
  nvshm::Env env;
  std::unique_ptr<nvshm::Bootstrap> b;
  if (nvshm::env_load(&env) != nvshm::Status::ok || nvshm::bootstrap_create(0, nullptr, env, &b) != nvshm::Status::ok)
    return 1;
  std::vector<int> ranks(b->size(), -1);
  int me = b->rank();
  if (b->allgather(&me, ranks.data(), sizeof me) != nvshm::Status::ok || b->barrier() != nvshm::Status::ok) return 1;
  for (int r = 0; r < b->size(); ++r)
    if (ranks[r] != r) return 1;
  printf("bootstrap ok name=%s rank=%d size=%d\n", b->name(), b->rank(), b->size());
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  int rank = atoi(var("NVSHMRUN_RANK"));
  printf("rank=%s size=%s local_rank=%s local_size=%s uid_len=%zu\n", var("NVSHMRUN_RANK"), var("NVSHMRUN_SIZE"),
         var("NVSHMRUN_LOCAL_RANK"), var("NVSHMRUN_LOCAL_SIZE"), strlen(var("NVSHMRUN_UNIQUEID")));
  int pmi_fd = atoi(var("PMI_FD"));
  printf("pmi_rank=%s pmi_size=%s pmi_fd_open=%s\n", var("PMI_RANK"), var("PMI_SIZE"),
         getenv("PMI_FD") && fcntl(pmi_fd, F_GETFD) >= 0 ? "yes" : "no");
  fflush(stdout);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    long v = 0;
    if (a == "args") {
      for (int j = 0; j < argc; ++j) printf("arg[%d]=%s\n", j, argv[j]);
      return 0;
    } else if (a.rfind("sleep=", 0) == 0) {
      usleep(static_cast<useconds_t>(atof(a.c_str() + 6) * 1e6));
    } else if (a.rfind("exit=", 0) == 0) {
      if (applies(a.substr(5), rank, &v)) {
        fflush(stdout);
        _exit(static_cast<int>(v));
      }
    } else if (a.rfind("kill=", 0) == 0) {
      if (applies(a.substr(5), rank, &v)) {
        fflush(stdout);
        kill(getpid(), static_cast<int>(v));
      }
    } else if (a == "ignore-term") {
      signal(SIGTERM, SIG_IGN);
    } else if (a.rfind("pidfile=", 0) == 0) {
      std::string path = a.substr(8) + "/" + std::to_string(rank) + ".pid";
      if (FILE *f = fopen(path.c_str(), "w")) fprintf(f, "%d\n", getpid()), fclose(f);
    } else if (a.rfind("stamp=", 0) == 0) {
      timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      std::string path = a.substr(6) + "/" + std::to_string(rank) + ".stamp";
      if (FILE *f = fopen(path.c_str(), "w")) fprintf(f, "%lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec), fclose(f);
    } else if (a.rfind("env=", 0) == 0) {
      const char *value = getenv(a.c_str() + 4);
      printf(value ? "env %s=%s\n" : "env %s unset\n", a.c_str() + 4, value);
    } else if (a.rfind("lines=", 0) == 0) {
      int k = atoi(a.c_str() + 6);
      for (int j = 0; j < k; ++j) {
        for (FILE *f : {stdout, stderr}) {
          fprintf(f, "line %d ", j);
          fflush(f);
          fprintf(f, "from rank %d", rank);
          fflush(f);
          fprintf(f, "\n");
          fflush(f);
        }
      }
    } else if (a == "bootstrap") {
      if (run_bootstrap() != 0) return 1;
    } else if (a.rfind("hold=", 0) == 0) {
      nvshm::Env env;
      std::unique_ptr<nvshm::Bootstrap> b;
      if (nvshm::env_load(&env) != nvshm::Status::ok ||
          nvshm::bootstrap_create(0, nullptr, env, &b) != nvshm::Status::ok || b->barrier() != nvshm::Status::ok)
        return 1;
      std::string path = a.substr(5) + "/" + std::to_string(rank) + ".pid";
      if (FILE *f = fopen(path.c_str(), "w")) fprintf(f, "%d\n", getpid()), fclose(f);
      sleep(60);
    } else if (a == "pmi-bootstrap") {
      setenv("NVSHMEM_BOOTSTRAP_PMI", "PMI", 1);
      if (run_bootstrap() != 0) return 1;
      unsetenv("NVSHMEM_BOOTSTRAP_PMI");
    } else {
      fprintf(stderr, "launcher_helper: unknown action '%s'\n", a.c_str());
      return 99;
    }
    fflush(stdout);
  }
  return 0;
}
