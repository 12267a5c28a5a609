// SPDX-License-Identifier: BSD-3-Clause
// What every bootstrap method's allgather checks, written once: the contribution's size limit, the
// agreement of all PEs on the size, and the allgather over a PMI key-value space (PMI-1 and PMI-2).
// Internal to src/bootstrap.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "common/status.hpp"

namespace nvshm::boot {

// Status::invalid_value (with a message naming `where`) when `bytes` is more than one PE may contribute.
Status check_contribution(const char *where, std::size_t bytes);

// Status::symmetry (with a message naming both PEs and sizes) when PE `peer` contributed `theirs` bytes
// to the round in which PE `rank` (this PE) contributed `bytes`.
Status check_same_size(const char *where, int peer, std::size_t theirs, int rank, std::size_t bytes);

// A PMI key-value space as the allgather uses it: put a value under a key, fence (every PE's puts become
// visible to every PE), get another PE's value (false: missing, with the method's message logged).
struct KvsOps {
  std::function<Status(const std::string &key, const std::string &value)> put;
  std::function<Status()> fence;
  std::function<Status(const std::string &key, std::string *value)> get;
  std::size_t value_chars;  // the longest value the space takes
  const char *space;        // its name in messages ("PMI", "PMI-2")
};

// Allgather of `bytes` per PE through the space: each PE puts its size (16 hex digits) and blob as hex,
// split into values under "<prefix>.<rank>.<chunk>", fences, then reads every other PE's chunks.
Status kvs_allgather(const char *where, const KvsOps &kvs, const std::string &prefix, int rank, int size,
                     const void *in, void *out, std::size_t bytes);

}  // namespace nvshm::boot
