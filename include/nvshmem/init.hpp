// SPDX-License-Identifier: BSD-3-Clause
// How the runtime finds its PEs: nvshmem::InitMethod, nvshmem::UniqueId, nvshmem::MpiComm
// (docs/cpp.md; NVSHMEM docs: "Library Setup", nvshmemx_init_attr).
// Host code only.
#pragma once

#include <nvshmem_host.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

#include "nvshmem/error.hpp"

namespace nvshmem {

/// The 128-byte id of a unique-id bootstrap (nvshmemx_uniqueid_t). A value type: copyable, no
/// resources of its own (the rendezvous server it names lives in the process that generated it,
/// until that process finalizes its runtime). Thread safety: as a plain struct.
class UniqueId {
 public:
  /// Size in bytes of the raw id (bytes(), from_bytes()).
  static constexpr std::size_t size = sizeof(nvshmemx_uniqueid_t);

  /// An all-zero id with the current version field: not usable for init until filled.
  UniqueId() noexcept : id_(NVSHMEMX_UNIQUEID_INITIALIZER) {}
  /// Wrap a C id (from nvshmemx_get_uniqueid or received from the generating process); not checked.
  explicit UniqueId(const nvshmemx_uniqueid_t &raw) noexcept : id_(raw) {}

  /// Start a rendezvous server in this process and describe it (nvshmemx_get_uniqueid). Called by
  /// exactly one process of the job (any thread), before the job's init; the id is then spread by the
  /// application's own means (bytes()/from_bytes()). Throws Error with the library's status on failure.
  [[nodiscard]] static UniqueId generate() {
    nvshmemx_uniqueid_t raw = NVSHMEMX_UNIQUEID_INITIALIZER;
    detail::check(nvshmemx_get_uniqueid(&raw), "nvshmemx_get_uniqueid", "could not start a rendezvous server");
    return UniqueId(raw);
  }

  /// The raw bytes (UniqueId::size of them), to send to the other processes. Local; never throws.
  std::array<unsigned char, size> bytes() const noexcept {
    std::array<unsigned char, size> out{};
    std::memcpy(out.data(), &id_, size);
    return out;
  }
  /// Rebuild an id from `nbytes` raw bytes received from the generating process. Throws
  /// Error(NVSHMEMX_ERROR_INVALID_VALUE) when `nbytes` is not UniqueId::size or `data` is null.
  [[nodiscard]] static UniqueId from_bytes(const void *data, std::size_t nbytes) {
    if (!data || nbytes != size)
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, "UniqueId::from_bytes",
                  "expected " + std::to_string(size) + " bytes, got " + std::to_string(data ? nbytes : 0));
    UniqueId id;
    std::memcpy(&id.id_, data, size);
    return id;
  }

  /// The C struct, for nvshmemx_set_attr_uniqueid_args.
  const nvshmemx_uniqueid_t &raw() const noexcept { return id_; }

  /// Byte-wise comparison of the whole id.
  friend bool operator==(const UniqueId &a, const UniqueId &b) noexcept {
    return std::memcmp(&a.id_, &b.id_, size) == 0;
  }
  friend bool operator!=(const UniqueId &a, const UniqueId &b) noexcept { return !(a == b); }

 private:
  nvshmemx_uniqueid_t id_;
};

/// A non-owning handle on an MPI communicator for InitMethod::mpi_comm: a copyable pointer wrapper,
/// local (no MPI call), never throws.
class MpiComm {
 public:
  /// `mpi_comm` points to an initialised `MPI_Comm` (the address of the communicator variable, as
  /// nvshmemx_init_attr_t::mpi_comm expects). Preconditions, not checked: the runtime loads the same
  /// MPI library as the application, and both the communicator and the variable it is read from
  /// outlive the Runtime initialised with it. A null pointer is accepted here and rejected at init.
  static MpiComm from_raw(void *mpi_comm) noexcept { return MpiComm(mpi_comm); }
  /// The pointer given to from_raw.
  void *raw() const noexcept { return comm_; }
  /// Same pointer (not MPI_Comm_compare).
  friend bool operator==(const MpiComm &a, const MpiComm &b) noexcept { return a.comm_ == b.comm_; }

 private:
  explicit MpiComm(void *comm) noexcept : comm_(comm) {}
  void *comm_;
};

/// How Runtime::init finds the other PEs, plus an optional CUDA device. A value type: copyable,
/// comparable (same() is what Runtime::init compares), owns nothing. Thread safety: as a plain struct.
/// Making one is local and never throws; bad values surface as Error from Runtime::init.
class InitMethod {
 public:
  /// Which factory made the method (from_environment, unique_id, single_pe, mpi_comm).
  enum class Kind { environment, unique_id, single_pe, mpi_comm };

  /// As nvshmem_init: the launcher's environment (nvshmrun), or a 1-PE job when started without one.
  static InitMethod from_environment() noexcept { return InitMethod(Kind::environment); }
  /// Unique-id bootstrap: every one of `nranks` processes passes the same id and its own `rank`
  /// (0 <= rank < nranks; checked at init, Error(NVSHMEMX_ERROR_INVALID_VALUE)).
  static InitMethod unique_id(const UniqueId &id, int rank, int nranks) noexcept {
    InitMethod m(Kind::unique_id);
    m.id_ = id;
    m.rank_ = rank;
    m.nranks_ = nranks;
    return m;
  }
  /// A job of this process alone, whatever the environment says (a unique-id bootstrap of 1 rank,
  /// generated at init).
  static InitMethod single_pe() noexcept { return InitMethod(Kind::single_pe); }
  /// MPI communicator bootstrap (NVSHMEMX_INIT_WITH_MPI_COMM): the communicator's ranks are the PEs.
  /// See MpiComm::from_raw for the preconditions. Where the library has no MPI bootstrap, init throws
  /// Error with the library's status (NVSHMEMX_ERROR_NOT_SUPPORTED).
  static InitMethod mpi_comm(MpiComm comm) noexcept {
    InitMethod m(Kind::mpi_comm);
    m.comm_ = comm.raw();
    return m;
  }

  /// This method with CUDA device `device` (the runtime's nvshmemx_init_args_t::cuda_device_id);
  /// -1, the default, lets the library pick.
  InitMethod with_device(int device) const noexcept {
    InitMethod m = *this;
    m.device_ = device;
    return m;
  }

  /// The fields Runtime::init reads: the kind, the CUDA device (-1: the library picks), rank, nranks
  /// and id (meaningful for unique_id; 0, 1 and an empty id otherwise) and the communicator pointer
  /// (mpi_comm; null otherwise). Local; never throw.
  Kind kind() const noexcept { return kind_; }
  int device() const noexcept { return device_; }
  int rank() const noexcept { return rank_; }
  int nranks() const noexcept { return nranks_; }
  const UniqueId &id() const noexcept { return id_; }
  void *comm() const noexcept { return comm_; }

  /// True when `other` names the same bootstrap and device (for unique_id: same id, rank and size; for
  /// mpi_comm: same communicator pointer).
  bool same(const InitMethod &other) const noexcept {
    if (kind_ != other.kind_ || device_ != other.device_) return false;
    switch (kind_) {
      case Kind::unique_id:
        return id_ == other.id_ && rank_ == other.rank_ && nranks_ == other.nranks_;
      case Kind::mpi_comm:
        return comm_ == other.comm_;
      default:
        return true;
    }
  }

  /// One line for messages: "from_environment", "unique_id(rank 1 of 4)", "single_pe",
  /// "mpi_comm(0x...)", each followed by ", CUDA device N" when a device was chosen. Local; may throw
  /// std::bad_alloc only.
  std::string describe() const {
    std::string s;
    switch (kind_) {
      case Kind::environment:
        s = "from_environment";
        break;
      case Kind::unique_id:
        s = "unique_id(rank " + std::to_string(rank_) + " of " + std::to_string(nranks_) + ")";
        break;
      case Kind::single_pe:
        s = "single_pe";
        break;
      case Kind::mpi_comm: {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%p", comm_);
        s = std::string("mpi_comm(") + buf + ")";
        break;
      }
    }
    if (device_ >= 0) s += ", CUDA device " + std::to_string(device_);
    return s;
  }

 private:
  explicit InitMethod(Kind kind) noexcept : kind_(kind) {}
  Kind kind_;
  int device_ = -1;
  UniqueId id_;
  int rank_ = 0;
  int nranks_ = 1;
  void *comm_ = nullptr;
};

}  // namespace nvshmem
