// SPDX-License-Identifier: BSD-3-Clause
// Hands one file descriptor from every PE of a node to every other PE of that node, over Unix
// sockets in the abstract namespace with SCM_RIGHTS. Used for both heap kinds (CUDA VMM POSIX-fd
// handles and memfd host memory).
#pragma once
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "heap/node.hpp"

namespace nvshm {

// Collective over all PEs. On success (*fds)[i] is node PE i's descriptor (owned by the caller;
// the entry for this PE is -1). Waits at most `timeout_s` seconds, then names the missing PEs.
Status exchange_fds(Bootstrap &boot, const NodeInfo &node, int my_fd, int timeout_s, std::vector<int> *fds);

}  // namespace nvshm
