// SPDX-License-Identifier: BSD-3-Clause
// Which PEs share this PE's node (same host name and network namespace, and clique where NVSHMEM_NUM_CLIQUES
// splits hosts) and their process ids, from one bootstrap allgather.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"

namespace nvshm {

struct NodeInfo {
  std::vector<int> pes;  // world PE ids on this node, ascending
  int my_index = 0;      // this PE's index in `pes`
  int host_index = 0;    // this PE's index among the PEs of its host (my_index but where NVSHMEM_NUM_CLIQUES splits it)
  int host_pes = 1;      // the PEs of its host (pes.size() but where NVSHMEM_NUM_CLIQUES or node_self splits it)
  int n_nodes = 1;
  // For every world PE, the index of its group: its node (numbered in the order of their first PE), or
  // for node_self's info the PE itself (each PE a group of one). Whoever is in this PE's group is in `pes`.
  std::vector<int> group_of;
  // Process id of each node PE (same order as `pes`) where it shares this PE's pid namespace, else 0.
  std::vector<int64_t> pids;
  bool consecutive() const { return pes.back() - pes.front() + 1 == static_cast<int>(pes.size()); }
  // True when node PE `index` is known to have exited (its process is gone or a zombie); false when
  // it runs or cannot be checked (pid unknown).
  bool has_exited(int index) const;
};

// `cliques` (NVSHMEM_NUM_CLIQUES, at least 1): each host's PEs split into that many nodes of consecutive PEs,
// for tests of several nodes on one machine.
Status node_discover(Bootstrap &boot, int cliques, NodeInfo *out);
// This PE alone as a node (the heap maps only its own slot: NVSHMEM_DISABLE_P2P); n_nodes is kept, and
// every PE is a group of its own.
NodeInfo node_self(const NodeInfo &node);

}  // namespace nvshm
