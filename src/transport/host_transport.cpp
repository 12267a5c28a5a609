// CPU backend engine: the peers' heaps are host shared memory mapped in this process, so every
// operation is a memcpy; quiet and fence are full memory fences.
#include <atomic>
#include <cstring>

#include "common/log.hpp"
#include "transport/transport.hpp"

namespace nvshm {
namespace {

class HostTransport final : public Transport {
 public:
  Status put(void *remote, const void *local, std::size_t bytes) override {
    memcpy(remote, local, bytes);
    return Status::ok;
  }
  Status get(void *local, const void *remote, std::size_t bytes) override {
    memcpy(local, remote, bytes);
    return Status::ok;
  }
  Status put_nbi(void *remote, const void *local, std::size_t bytes) override { return put(remote, local, bytes); }
  Status get_nbi(void *local, const void *remote, std::size_t bytes) override { return get(local, remote, bytes); }
  Status quiet() override {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return Status::ok;
  }
  Status fence() override { return quiet(); }
  Status copy_on_stream(void *, const void *, std::size_t, cudaStream_t) override { return unsupported(); }
  Status order_stream(cudaStream_t) override { return unsupported(); }

 private:
  static Status unsupported() {
    log_error("stream interface",
              "the symmetric heap is in host memory (no GPU, or NVSHMEM_HEAP_KIND=SYSMEM): stream-ordered and "
              "device calls need the heap in GPU memory");
    return Status::not_supported;
  }
};
}  // namespace

std::unique_ptr<Transport> make_host_transport() {
  return std::make_unique<HostTransport>();
}

}  // namespace nvshm
