// SPDX-License-Identifier: BSD-3-Clause
// The remote engine: reaches PEs whose heaps this process has not mapped (other nodes, or every peer
// under NVSHMEM_DISABLE_P2P), addressed by (PE, byte offset in that PE's heap slot), never by pointers
// (docs/remote.md). One engine today: UCX (ucx_engine.cpp, libucp loaded at run time).
// May use: transport/ (AtomicArgs), heap/, bootstrap/, common/. See src/remote/README.md.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "transport/transport.hpp"

namespace nvshm {

class RemoteEngine {
 public:
  virtual ~RemoteEngine() = default;
  virtual const char *name() const = 0;
  // Blocking put: on return the data is in `pe`'s heap (remote completion, stronger than NVSHMEM asks:
  // the runtime's synchronisations rely on blocking operations being complete, as on mapped peers).
  virtual Status put(int pe, std::size_t offset, const void *local, std::size_t bytes) = 0;
  // Blocking get: on return `local` holds the data.
  virtual Status get(void *local, int pe, std::size_t offset, std::size_t bytes) = 0;
  // Returns when `local` may be reused (local completion); the data arrives by the next quiet().
  virtual Status put_local(int pe, std::size_t offset, const void *local, std::size_t bytes) = 0;
  // Non-blocking: complete at the next quiet(); `local` must stay valid until then.
  virtual Status put_nbi(int pe, std::size_t offset, const void *local, std::size_t bytes) = 0;
  virtual Status get_nbi(void *local, int pe, std::size_t offset, std::size_t bytes) = 0;
  // Blocking atomic on the word at `offset` of `pe`'s heap, atomic with the target's own atomics on a
  // host heap; *old (if not null) receives the previous value, zero-extended.
  virtual Status atomic(int pe, std::size_t offset, const AtomicArgs &args, uint64_t *old) = 0;
  // Non-fetching atomic (NVSHMEM's non-fetching AMOs: set, add, and, or, xor; a device signal) that
  // completes at the next quiet() (remote completion) and is ordered after earlier puts and atomics to
  // `pe` by fence(), as a put_nbi. Its failure is reported by the next quiet(). The proxy issues atomics
  // that the device does not wait for with it. The default: atomic(), complete on return.
  virtual Status atomic_nbi(int pe, std::size_t offset, const AtomicArgs &args) {
    return atomic(pe, offset, args, nullptr);
  }
  // One write of a batch to set_words: the 8-byte word at `offset` of `pe`'s heap becomes `value`.
  struct WordWrite {
    int pe;
    std::size_t offset;
    uint64_t value;
  };
  // Writes each word atomically (as atomic() with AtomicOp::set), all in flight at once: returns when
  // every write is complete (remote completion), about one round trip for the batch. The words are
  // distinct (no order among the writes). Every write is waited for also when one fails; the first
  // failure is returned.
  virtual Status set_words(const std::vector<WordWrite> &writes) = 0;
  // Order earlier puts and atomics before later ones, per target PE.
  virtual Status fence() = 0;
  // Complete every operation issued through this engine (remote completion).
  virtual Status quiet() = 0;
  // A local buffer registered with nvshmemx_buffer_register, as the local side (source of a put,
  // destination of a get) of later operations: an engine that needs registered memory for them maps it
  // here (UCX: ucp_mem_map, whose handle the operations inside it then pass). Fails only when the
  // engine cannot use the buffer at all; `call` names the caller in messages. The default: nothing to do.
  virtual Status register_local(void *addr, std::size_t bytes, const char *call) {
    (void)addr, (void)bytes, (void)call;
    return Status::ok;
  }
  // Undoes register_local for the buffer that starts at `addr` (operations on it are complete: the
  // caller quieted). Unknown addresses are ignored.
  virtual void unregister_local(void *addr) { (void)addr; }
  // Whether operations whose local side is [addr, addr + bytes) use a registration of the engine (this
  // PE's slot or a register_local buffer that holds all of it); for tests.
  virtual bool registered_local(const void *addr, std::size_t bytes) const {
    (void)addr, (void)bytes;
    return false;
  }
  // Whether `pe` has been reported unreachable (its process or the network failed): waits on words that
  // PE would write can give up at once.
  virtual bool unreachable(int pe) const {
    (void)pe;
    return false;
  }
  // How many PEs have been reported unreachable so far (each once; none after prepare_finalize()): the
  // proxy fails the device's waits when it grows.
  virtual int unreachable_count() const { return 0; }
  // How many operations that no one waits for (atomic_nbi; on the staged path also puts and get_nbi) have
  // failed so far. Each is also reported by the next quiet on its PE, whichever thread makes it; the proxy
  // watches this count, so that the device's waits fail also when another thread's quiet took the report.
  virtual uint64_t unwaited_failures() const { return 0; }
  // Every PE calls it at finalize before the last barrier: after it, a peer that goes away is expected
  // (its endpoints closing are not reported as failures).
  virtual void prepare_finalize() = 0;
};

// Engine settings from the environment (NVSHMEM_REMOTE_*), resolved by the runtime.
struct RemoteOptions {
  bool spin_progress = false;  // progress thread polls; otherwise it sleeps on the worker's events
  int timeout_s = 120;         // NVSHMEM_BOOTSTRAP_TIMEOUT: every wait of the engine is bounded by it
  // Staged path (docs/remote.md, "GPU heap"): no one-sided access to peers' slots; every operation is
  // a message that the target's engine executes on its own slot through its mapped transport. Needed
  // where UCX cannot register the heap (GPU memory without a CUDA-aware UCX); NVSHMEM_REMOTE_HEAP_PATH.
  bool staged = false;
  CUcontext context = nullptr;  // made current on the progress thread (GPU heap), else nullptr
  std::string hca_list;         // NVSHMEM_HCA_LIST: empty, or the devices for UCX_NET_DEVICES
  std::string hca_pe_mapping;   // NVSHMEM_HCA_PE_MAPPING: empty, or device:port:count entries
  bool nic_pe_mapping = false;  // NVSHMEM_ENABLE_NIC_PE_MAPPING: one device of hca_list per PE
  int local_rank = 0;           // this PE's index among its node's PEs (the mappings above)
  // NVSHMEM_IB_GID_INDEX, NVSHMEM_IB_SL, NVSHMEM_IB_TRAFFIC_CLASS: empty, or the value for UCX_IB_*.
  std::string ib_gid_index, ib_sl, ib_traffic_class;
  std::string cpu_affinity;  // NVSHMEM_CPU_AFFINITY: AUTO, or the progress thread's CPU list
};

// NVSHMEM_HCA_LIST (device[:port] entries, commas; ^ before every entry or before the list excludes)
// as a UCX_NET_DEVICES value; invalid_value (logged, naming the variable) when it mixes included and
// excluded entries or names none.
Status ucx_net_devices(const std::string &hca_list, std::string *out);
// NVIDIA's NIC-to-PE mapping for the PE of `local_rank` on its node: NVSHMEM_HCA_PE_MAPPING (device:port:count
// entries, in order, `count` PEs each, round again after the last; an empty port names a device without
// one: eth0::2), else with `enable` (NVSHMEM_ENABLE_NIC_PE_MAPPING) and a list naming devices, the (local_rank
// mod n)-th device of *hca_list. *hca_list receives this PE's device, or stays as it is when neither
// applies; invalid_value (logged, naming the variable) on a malformed mapping.
Status map_nic_to_pe(const std::string &pe_mapping, bool enable, int local_rank, std::string *hca_list);
// NVSHMEM_CPU_AFFINITY: the CPUs of a Linux CPU list (3, 0-3,8), ascending; empty for AUTO (any case);
// invalid_value (logged, naming the variable) when malformed.
Status parse_cpu_list(const std::string &list, std::vector<int> *cpus);

// Collective over all PEs (every PE calls it, also those that reach no PE through it, so that the
// exchange of addresses completes). Registers this PE's slot [slot, slot + slot_bytes) (unless staged)
// and exchanges worker addresses, slot bases and remote keys through `boot`. `local` is the transport
// that reaches this PE's own slot: the staged path executes peers' operations with it. Fails with a
// message naming the package when libucp cannot be loaded.
Status make_ucx_engine(Bootstrap &boot, void *slot, std::size_t slot_bytes, Transport &local,
                       const RemoteOptions &options, std::unique_ptr<RemoteEngine> *out);

}  // namespace nvshm
