// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/rounds.hpp"

#include <cstring>

#include "bootstrap/pmi1.hpp"
#include "bootstrap/wire.hpp"
#include "common/log.hpp"

namespace nvshm::boot {

Status check_contribution(const char *where, std::size_t bytes) {
  if (bytes <= kMaxBlob) return Status::ok;
  log_error(where, "%zu bytes per PE is more than the bootstrap's limit (%llu)", bytes,
            static_cast<unsigned long long>(kMaxBlob));
  return Status::invalid_value;
}

Status check_same_size(const char *where, int peer, std::size_t theirs, int rank, std::size_t bytes) {
  if (theirs == bytes) return Status::ok;
  log_error(where, "PE %d passed %zu bytes but PE %d passed %zu bytes to the same bootstrap round", peer, theirs, rank,
            bytes);
  return Status::symmetry;
}

Status kvs_allgather(const char *where, const KvsOps &kvs, const std::string &prefix, int rank, int size,
                     const void *in, void *out, std::size_t bytes) {
  NVSHM_TRY(check_contribution(where, bytes));
  const std::string all = hex_encode(&bytes, sizeof bytes) + hex_encode(in, bytes);
  const std::size_t chunks = (all.size() + kvs.value_chars - 1) / kvs.value_chars;
  auto key = [&](int r, std::size_t c) { return prefix + "." + std::to_string(r) + "." + std::to_string(c); };
  for (std::size_t c = 0; c < chunks; ++c)
    NVSHM_TRY(kvs.put(key(rank, c), all.substr(c * kvs.value_chars, kvs.value_chars)));
  NVSHM_TRY(kvs.fence());
  for (int r = 0; r < size; ++r) {
    if (r == rank) {
      if (bytes) memcpy(static_cast<char *>(out) + r * bytes, in, bytes);
      continue;
    }
    std::string text;
    for (std::size_t c = 0; c < chunks; ++c) {
      std::string value;
      NVSHM_TRY(kvs.get(key(r, c), &value));
      text += value;
      if (c > 0) continue;
      std::size_t theirs = 0;
      if (text.size() < 16 || !hex_decode(text.substr(0, 16), &theirs, sizeof theirs)) {
        log_error(where, "PE %d's contribution in the %s key-value space is corrupt", r, kvs.space);
        return Status::peer_failed;
      }
      NVSHM_TRY(check_same_size(where, r, theirs, rank, bytes));
    }
    if (!hex_decode(text.substr(16), static_cast<char *>(out) + r * bytes, bytes)) {
      log_error(where, "PE %d's contribution in the %s key-value space is corrupt (%zu hex digits for %zu bytes)", r,
                kvs.space, text.size() - 16, bytes);
      return Status::peer_failed;
    }
  }
  return Status::ok;
}

}  // namespace nvshm::boot
