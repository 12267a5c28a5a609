// SPDX-License-Identifier: BSD-3-Clause
// The transport seam (docs/remote.md): every host-side operation on another PE's heap names the PE
// and a symmetric address, and goes to the mapped transport (loads/stores, copies: the heap maps that
// PE, as on one node) or to the remote engine (addressed by PE and slot offset). quiet() and fence()
// cover both. The mapped branch is one pointer test on top of the heap's translation, which the host
// entry points did before this seam as well.
// May use: transport/, heap/, bootstrap/, common/. See src/remote/README.md.
#pragma once
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "heap/symmetric_heap.hpp"
#include "remote/engine.hpp"
#include "transport/transport.hpp"

namespace nvshm {

// A symmetric address on one PE: where this process maps it (nullptr when the PE is remote) and its
// byte offset in the PE's slot (the same on every PE, decision 2 of docs/architecture.md).
struct Target {
  int pe;
  void *mapped;
  std::size_t offset;
};

class Peers {
 public:
  // `remote` may be null when every PE is mapped.
  Peers(const SymmetricHeap &heap, Transport &mapped, std::unique_ptr<RemoteEngine> remote)
      : heap_(heap), mapped_(mapped), remote_(std::move(remote)) {}

  // `sym` lies in this PE's heap or registered buffers (callers check it).
  Target target(const void *sym, int pe) const {
    return {pe, heap_.translate(sym, pe), static_cast<std::size_t>(static_cast<const char *>(sym) - heap_.local())};
  }
  Transport &mapped() const { return mapped_; }
  // The engine for remote PEs, nullptr when the job has none.
  RemoteEngine *remote() const { return remote_.get(); }
  // Whether the remote engine has reported `pe` unreachable (never for a mapped PE).
  bool unreachable(int pe) const { return remote_ && remote_->unreachable(pe); }

  // As Transport's operations of the same name (blocking put: the data has arrived when it returns).
  Status put(const Target &t, const void *local, std::size_t bytes) {
    return t.mapped ? mapped_.put(t.mapped, local, bytes) : remote_->put(t.pe, t.offset, local, bytes);
  }
  Status get(void *local, const Target &t, std::size_t bytes) {
    return t.mapped ? mapped_.get(local, t.mapped, bytes) : remote_->get(local, t.pe, t.offset, bytes);
  }
  // As Transport::get_words: polled synchronisation words, each read whole.
  Status get_words(uint64_t *local, const Target &t, std::size_t n) {
    return t.mapped ? mapped_.get_words(local, static_cast<const uint64_t *>(t.mapped), n)
                    : remote_->get(local, t.pe, t.offset, n * sizeof(uint64_t));
  }
  Status put_nbi(const Target &t, const void *local, std::size_t bytes) {
    return t.mapped ? mapped_.put_nbi(t.mapped, local, bytes) : remote_->put_nbi(t.pe, t.offset, local, bytes);
  }
  Status get_nbi(void *local, const Target &t, std::size_t bytes) {
    return t.mapped ? mapped_.get_nbi(local, t.mapped, bytes) : remote_->get_nbi(local, t.pe, t.offset, bytes);
  }
  Status atomic(const Target &t, const AtomicArgs &args, uint64_t *old) {
    return t.mapped ? mapped_.atomic(t.mapped, args, old) : remote_->atomic(t.pe, t.offset, args, old);
  }
  // Sets the 8-byte word at each target to its value, atomically (as atomic() with AtomicOp::set): the
  // mapped ones in turn, the remote ones as one batch in flight at once (RemoteEngine::set_words).
  // Returns when every write is complete (a failure is logged naming the PE by the engine or transport).
  Status set_words(const std::vector<std::pair<Target, uint64_t>> &writes);
  // Blocking strided copy between `t` (element stride `remote_stride` bytes) and local memory
  // (`local_stride`): a put when `is_put`, else a get.
  Status strided(bool is_put, const Target &t, std::ptrdiff_t remote_stride, void *local, std::ptrdiff_t local_stride,
                 std::size_t elem_bytes, std::size_t nelems);
  // Complete every operation to every PE; order puts per target.
  Status quiet();
  Status fence();

 private:
  const SymmetricHeap &heap_;
  Transport &mapped_;
  std::unique_ptr<RemoteEngine> remote_;
};

}  // namespace nvshm
