// SPDX-License-Identifier: BSD-3-Clause
// Small kernels of the CUDA engine: host-initiated atomics (system-scope atomics on the peer's
// mapped word; a copy-based read-modify-write would not be atomic) and strided copies. Launched
// with the CUDA runtime in the runtime's (primary) context.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "transport/transport.hpp"

namespace nvshm {

// One thread applies `args` to `remote`; the old value goes to `old` (device-writable, e.g. mapped
// pinned host memory) when it is not null.
cudaError_t launch_atomic(void *remote, const AtomicArgs &args, uint64_t *old, cudaStream_t stream);
// One thread applies jobs[0], ..., jobs[n - 1] in order, writing each previous value to its `old`; `jobs` is
// device-accessible (mapped pinned host memory).
cudaError_t launch_atomics(AtomicJob *jobs, std::size_t n, cudaStream_t stream);
// Element i of `elem` bytes from src + i*src_stride to dst + i*dst_stride.
cudaError_t launch_strided(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride,
                           std::size_t elem, std::size_t nelems, cudaStream_t stream);
// Loads `kernels` (host stubs of __global__ functions) in the current context now. CUDA loads a kernel at
// its first launch by default (lazy loading, CUDA 12.2 and later), and loading may wait for the context's
// running kernels: a kernel the library first launches while a user's kernel spins on its effect would
// never start (docs/proxy.md, "Kernels loaded at init").
cudaError_t load_kernels(std::initializer_list<const void *> kernels);
// load_kernels of the atomic and strided copy kernels (the CUDA transport's init).
cudaError_t load_transport_kernels();
// Mapped, pinned host memory for one result word (freed with free_result_word).
cudaError_t alloc_result_word(uint64_t **word);
void free_result_word(uint64_t *word);

}  // namespace nvshm
