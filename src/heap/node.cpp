// SPDX-License-Identifier: BSD-3-Clause
#include "heap/node.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>

namespace nvshm {
namespace {
// Inode of /proc/self/ns/<kind>, 0 when unknown.
uint64_t namespace_id(const char *kind) {
  char path[32];
  snprintf(path, sizeof path, "/proc/self/ns/%s", kind);
  struct stat st {};
  return stat(path, &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}
}  // namespace

Status node_discover(Bootstrap &boot, NodeInfo *out) {
  constexpr std::size_t kNameBytes = 256;
  struct Record {
    char host[kNameBytes];
    int64_t pid;
    uint64_t pid_ns;  // inode of /proc/self/ns/pid, 0 when unknown
    uint64_t net_ns;  // inode of /proc/self/ns/net, 0 when unknown
  } mine{};
  gethostname(mine.host, kNameBytes - 1);
  mine.pid = getpid();
  mine.pid_ns = namespace_id("pid");
  mine.net_ns = namespace_id("net");
  std::vector<Record> all(boot.size());
  NVSHM_TRY(boot.allgather(&mine, all.data(), sizeof mine));
  NodeInfo info;
  // A node is one host name and one network namespace: the heap's descriptors travel over abstract Unix
  // sockets, which exist per network namespace (docs/remote.md).
  std::map<std::pair<std::string, uint64_t>, int> nodes;  // node -> its index
  info.group_of.resize(all.size());
  for (int pe = 0; pe < boot.size(); ++pe) {
    const Record &r = all[pe];
    const auto at = nodes.emplace(std::make_pair(std::string(r.host, strnlen(r.host, kNameBytes)), r.net_ns),
                                  static_cast<int>(nodes.size()));
    info.group_of[pe] = at.first->second;
    if (strncmp(r.host, mine.host, kNameBytes) == 0 && r.net_ns == mine.net_ns) {
      if (pe == boot.rank()) info.my_index = static_cast<int>(info.pes.size());
      info.pes.push_back(pe);
      info.pids.push_back(mine.pid_ns != 0 && r.pid_ns == mine.pid_ns ? r.pid : 0);
    }
  }
  info.n_nodes = static_cast<int>(nodes.size());
  *out = info;
  return Status::ok;
}

NodeInfo node_self(const NodeInfo &node) {
  NodeInfo self;
  self.pes = {node.pes[node.my_index]};
  self.pids = {node.pids[node.my_index]};
  self.n_nodes = node.n_nodes;
  self.group_of.resize(node.group_of.size());
  for (std::size_t pe = 0; pe < self.group_of.size(); ++pe) self.group_of[pe] = static_cast<int>(pe);
  return self;
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
