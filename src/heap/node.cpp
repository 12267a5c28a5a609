// SPDX-License-Identifier: BSD-3-Clause
#include "heap/node.hpp"

#include <unistd.h>

#include <cstring>
#include <set>

namespace nvshm {

Status node_discover(Bootstrap &boot, NodeInfo *out) {
  constexpr std::size_t kNameBytes = 256;
  char mine[kNameBytes] = {};
  gethostname(mine, kNameBytes - 1);
  std::vector<char> all(kNameBytes * boot.size());
  NVSHM_TRY(boot.allgather(mine, all.data(), kNameBytes));
  NodeInfo info;
  std::set<std::string> hosts;
  for (int pe = 0; pe < boot.size(); ++pe) {
    const char *name = &all[kNameBytes * pe];
    hosts.insert(name);
    if (strncmp(name, mine, kNameBytes) == 0) {
      if (pe == boot.rank()) info.my_index = static_cast<int>(info.pes.size());
      info.pes.push_back(pe);
    }
  }
  info.n_nodes = static_cast<int>(hosts.size());
  *out = info;
  return Status::ok;
}

}  // namespace nvshm
