// How bytes move between this PE and the mapped heaps of its peers (DESIGN.md decision 4).
// Addresses given to a transport are already translated: `remote` points into the peer's heap
// as mapped in this process. Engines: host memcpy (CPU backend), CUDA copies (GPU heap).
// May use: heap/ (for HeapKind), cuda/, common/. See src/transport/README.md.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "common/status.hpp"
#include "heap/backing.hpp"

namespace nvshm {

class Transport {
 public:
  virtual ~Transport() = default;
  // Blocking: on return `local` may be reused (put) or holds the data (get).
  virtual Status put(void *remote, const void *local, std::size_t bytes) = 0;
  virtual Status get(void *local, const void *remote, std::size_t bytes) = 0;
  // Non-blocking: complete at the next quiet().
  virtual Status put_nbi(void *remote, const void *local, std::size_t bytes) = 0;
  virtual Status get_nbi(void *local, const void *remote, std::size_t bytes) = 0;
  // Complete every operation issued through this transport.
  virtual Status quiet() = 0;
  // Order earlier puts before later ones, per target.
  virtual Status fence() = 0;
  // Stream-ordered copies (Status::not_supported where the heap is in host memory).
  virtual Status copy_on_stream(void *dst, const void *src, std::size_t bytes, cudaStream_t stream) = 0;
  // Make later work on `stream` wait for operations issued through this transport.
  virtual Status order_stream(cudaStream_t stream) = 0;
};

std::unique_ptr<Transport> make_host_transport();
Status make_cuda_transport(std::unique_ptr<Transport> *out);

}  // namespace nvshm
