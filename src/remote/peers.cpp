// SPDX-License-Identifier: BSD-3-Clause
#include "remote/peers.hpp"

namespace nvshm {

Status Peers::strided(bool is_put, const Target &t, std::ptrdiff_t remote_stride, void *local,
                      std::ptrdiff_t local_stride, std::size_t elem_bytes, std::size_t nelems) {
  if (t.mapped)
    return is_put ? mapped_.strided(t.mapped, remote_stride, local, local_stride, elem_bytes, nelems)
                  : mapped_.strided(local, local_stride, t.mapped, remote_stride, elem_bytes, nelems);
  // One non-blocking operation per element, then one completion for all of them.
  char *l = static_cast<char *>(local);
  for (std::size_t i = 0; i < nelems; ++i) {
    const std::size_t at = t.offset + i * static_cast<std::size_t>(remote_stride);
    void *elem = l + static_cast<std::ptrdiff_t>(i) * local_stride;
    NVSHM_TRY(is_put ? remote_->put_nbi(t.pe, at, elem, elem_bytes) : remote_->get_nbi(elem, t.pe, at, elem_bytes));
  }
  return remote_->quiet();
}

Status Peers::set_words(const std::vector<std::pair<Target, uint64_t>> &writes) {
  std::vector<RemoteEngine::WordWrite> remote;
  for (const auto &[t, value] : writes) {
    if (!t.mapped) {
      remote.push_back({t.pe, t.offset, value});
      continue;
    }
    NVSHM_TRY(mapped_.atomic(t.mapped, AtomicArgs{AtomicOp::set, 8, value, 0}, nullptr));
  }
  return remote.empty() ? Status::ok : remote_->set_words(remote);
}

Status Peers::quiet() {
  NVSHM_TRY(mapped_.quiet());
  return remote_ ? remote_->quiet() : Status::ok;
}

Status Peers::fence() {
  NVSHM_TRY(mapped_.fence());
  return remote_ ? remote_->fence() : Status::ok;
}

}  // namespace nvshm
