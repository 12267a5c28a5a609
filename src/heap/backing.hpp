// SPDX-License-Identifier: BSD-3-Clause
// Where the symmetric heap's bytes live. One implementation per heap kind:
//  - DeviceBacking: CUDA VMM (cuMemCreate) GPU memory exported as a POSIX fd;
//  - HostBacking:   memfd host shared memory (the CPU backend).
// Both: reserve one virtual range for all node PEs, create this PE's memory and an fd for it, map
// this PE's and the peers' memory at their slots, then release everything.
#pragma once
#include <cstddef>
#include <memory>

#include "common/status.hpp"

namespace nvshm {

enum class HeapKind { device, host };

class HeapBacking {
 public:
  virtual ~HeapBacking() = default;
  // Mapping granularity in bytes (slot sizes are multiples of it).
  virtual std::size_t granularity() const = 0;
  virtual Status reserve(std::size_t bytes, char **base) = 0;
  // Create a part of this PE's memory, `bytes` bytes; *fd is an exportable descriptor owned by the
  // caller. The GPU heap may be made of several parts (NVSHMEM_CUMEM_GRANULARITY); the host heap is one.
  virtual Status create_local(std::size_t bytes, int *fd) = 0;
  // Map the part created last at `at`.
  virtual Status map_local(char *at) = 0;
  // Map a peer's memory (its fd; closed by this call) at `at`.
  virtual Status map_peer(int fd, char *at, std::size_t bytes) = 0;
  // Make [base, base+bytes), all of it mapped, accessible.
  virtual Status enable_access(char *base, std::size_t bytes) = 0;
  // Undo a map_peer or map_local at `at`.
  virtual Status unmap(char *at, std::size_t bytes) = 0;
  // For nvshmemx_buffer_register_symmetric (`call` in messages): an exportable fd for the
  // application's own allocation that is mapped at `buf` (which must be the start of that mapping
  // and hold `bytes` bytes), and the bytes that allocation maps (*mapped: what every PE maps).
  virtual Status export_user_allocation(const void *buf, std::size_t bytes, const char *call, int *fd,
                                        std::size_t *mapped) = 0;
  // Zero this PE's memory; complete on return.
  virtual Status zero(void *at, std::size_t bytes) = 0;
  // Unmap and free everything (idempotent).
  virtual void release() = 0;
};

// device_ordinal: the CUDA device whose memory backs the heap.
std::unique_ptr<HeapBacking> make_device_backing(int device_ordinal);
std::unique_ptr<HeapBacking> make_host_backing();

}  // namespace nvshm
