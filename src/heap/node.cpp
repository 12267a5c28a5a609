// SPDX-License-Identifier: BSD-3-Clause
#include "heap/node.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "common/log.hpp"

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

Status node_discover(Bootstrap &boot, int cliques, NodeInfo *out) {
  constexpr std::size_t kNameBytes = 256;
  struct Record {
    char host[kNameBytes];
    int64_t pid;
    uint64_t pid_ns;  // inode of /proc/self/ns/pid, 0 when unknown
    uint64_t net_ns;  // inode of /proc/self/ns/net, 0 when unknown
    int64_t cliques;
  } mine{};
  gethostname(mine.host, kNameBytes - 1);
  mine.pid = getpid();
  mine.pid_ns = namespace_id("pid");
  mine.net_ns = namespace_id("net");
  mine.cliques = cliques;
  std::vector<Record> all(boot.size());
  NVSHM_TRY(boot.allgather(&mine, all.data(), sizeof mine));
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (all[pe].cliques != cliques) {
      log_error("nvshmem_init", "PEs disagree on NVSHMEM_NUM_CLIQUES: PE %d set %lld, PE %d (this PE) %d", pe,
                static_cast<long long>(all[pe].cliques), boot.rank(), cliques);
      return Status::symmetry;
    }
  }
  // A node is one host name and one network namespace: the heap's descriptors travel over abstract Unix
  // sockets, which exist per network namespace (docs/remote.md). With `cliques` > 1 (NVSHMEM_NUM_CLIQUES),
  // each node's PEs, in ascending order, are split into that many nodes of consecutive PEs.
  using Host = std::pair<std::string, uint64_t>;
  std::vector<Host> host_of(all.size());
  std::map<Host, int> host_pes;  // host -> its PE count
  std::vector<int> index_on_host(all.size());
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    host_of[pe] = {std::string(all[pe].host, strnlen(all[pe].host, kNameBytes)), all[pe].net_ns};
    index_on_host[pe] = host_pes[host_of[pe]]++;
  }
  std::vector<std::pair<Host, int>> node_of(all.size());  // (host, clique)
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    const int64_t n = host_pes[host_of[pe]];
    node_of[pe] = {host_of[pe], static_cast<int>(index_on_host[pe] * std::min<int64_t>(cliques, n) / n)};
  }
  NodeInfo info;
  info.host_index = index_on_host[boot.rank()];
  info.host_pes = host_pes[host_of[boot.rank()]];
  std::map<std::pair<Host, int>, int> nodes;  // node -> its index, in the order of their first PE
  info.group_of.resize(all.size());
  const std::pair<Host, int> &my_node = node_of[boot.rank()];
  for (int pe = 0; pe < boot.size(); ++pe) {
    info.group_of[pe] = nodes.emplace(node_of[pe], static_cast<int>(nodes.size())).first->second;
    if (node_of[pe] == my_node) {
      if (pe == boot.rank()) info.my_index = static_cast<int>(info.pes.size());
      info.pes.push_back(pe);
      info.pids.push_back(mine.pid_ns != 0 && all[pe].pid_ns == mine.pid_ns ? all[pe].pid : 0);
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
  self.host_index = node.host_index;
  self.host_pes = node.host_pes;
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
