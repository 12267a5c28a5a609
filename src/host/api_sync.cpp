// Host ordering and synchronisation: quiet, fence, barrier_all, sync_all.
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

extern "C" {

void nvshmem_quiet(void) {
  Runtime &rt = require_init("nvshmem_quiet");
  ContextGuard guard(rt.context);
  require_ok(rt.transport->quiet(), "nvshmem_quiet");
}

void nvshmem_fence(void) {
  Runtime &rt = require_init("nvshmem_fence");
  ContextGuard guard(rt.context);
  require_ok(rt.transport->fence(), "nvshmem_fence");
}

void nvshmem_barrier_all(void) {
  Runtime &rt = require_init("nvshmem_barrier_all");
  ContextGuard guard(rt.context);
  require_ok(rt.transport->quiet(), "nvshmem_barrier_all");
  require_ok(rt.boot->barrier(), "nvshmem_barrier_all");
}

void nvshmem_sync_all(void) {
  Runtime &rt = require_init("nvshmem_sync_all");
  require_ok(rt.boot->barrier(), "nvshmem_sync_all");
}

}  // extern "C"
