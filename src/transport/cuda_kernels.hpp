// SPDX-License-Identifier: BSD-3-Clause
// Small kernels of the CUDA engine: host-initiated atomics (system-scope atomics on the peer's
// mapped word; a copy-based read-modify-write would not be atomic) and strided copies. Launched
// with the CUDA runtime in the runtime's (primary) context.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "transport/transport.hpp"

namespace nvshm {

// One thread applies `args` to `remote`; the old value goes to `old` (device-writable, e.g. mapped
// pinned host memory) when it is not null.
cudaError_t launch_atomic(void *remote, const AtomicArgs &args, uint64_t *old, cudaStream_t stream);
// Element i of `elem` bytes from src + i*src_stride to dst + i*dst_stride.
cudaError_t launch_strided(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride,
                           std::size_t elem, std::size_t nelems, cudaStream_t stream);
// Mapped, pinned host memory for one result word (freed with free_result_word).
cudaError_t alloc_result_word(uint64_t **word);
void free_result_word(uint64_t *word);

}  // namespace nvshm
