// SPDX-License-Identifier: BSD-3-Clause
#include "heap/node.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>

namespace nvshm {
namespace {
uint64_t pid_namespace() {
  struct stat st {};
  return stat("/proc/self/ns/pid", &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}
}  // namespace

Status node_discover(Bootstrap &boot, NodeInfo *out) {
  constexpr std::size_t kNameBytes = 256;
  struct Record {
    char host[kNameBytes];
    int64_t pid;
    uint64_t pid_ns;  // inode of /proc/self/ns/pid, 0 when unknown
  } mine{};
  gethostname(mine.host, kNameBytes - 1);
  mine.pid = getpid();
  mine.pid_ns = pid_namespace();
  std::vector<Record> all(boot.size());
  NVSHM_TRY(boot.allgather(&mine, all.data(), sizeof mine));
  NodeInfo info;
  std::set<std::string> hosts;
  for (int pe = 0; pe < boot.size(); ++pe) {
    const Record &r = all[pe];
    hosts.insert(std::string(r.host, strnlen(r.host, kNameBytes)));
    if (strncmp(r.host, mine.host, kNameBytes) == 0) {
      if (pe == boot.rank()) info.my_index = static_cast<int>(info.pes.size());
      info.pes.push_back(pe);
      info.pids.push_back(mine.pid_ns != 0 && r.pid_ns == mine.pid_ns ? r.pid : 0);
    }
  }
  info.n_nodes = static_cast<int>(hosts.size());
  *out = info;
  return Status::ok;
}

bool NodeInfo::has_exited(int index) const {
  const int64_t pid = pids[index];
  if (pid <= 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  // A zombie (exited, not yet reaped by its parent) is gone as well.
  char path[64];
  snprintf(path, sizeof path, "/proc/%lld/stat", static_cast<long long>(pid));
  FILE *f = fopen(path, "re");
  if (!f) return false;
  char buf[512] = {};
  const std::size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  const char *paren = strrchr(buf, ')');
  return n > 0 && paren && (paren[2] == 'Z' || paren[2] == 'X');
}

}  // namespace nvshm
