// SPDX-License-Identifier: BSD-3-Clause
// Which PEs share this PE's node (same host name), from one bootstrap allgather.
#pragma once
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"

namespace nvshm {

struct NodeInfo {
  std::vector<int> pes;  // world PE ids on this node, ascending
  int my_index = 0;      // this PE's index in `pes`
  int n_nodes = 1;
  bool consecutive() const { return pes.back() - pes.front() + 1 == static_cast<int>(pes.size()); }
};

Status node_discover(Bootstrap &boot, NodeInfo *out);

}  // namespace nvshm
