// SPDX-License-Identifier: BSD-3-Clause
// Registry of every CUDA translation unit's copy of the device state (see
// include/nvshmem_detail/device_state.h) and the code that writes the runtime's state into them.
#include <algorithm>
#include <mutex>
#include <set>
#include <vector>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"

namespace nvshm {
namespace {
struct Registry {
  std::mutex mutex;
  std::vector<nvshm_state_address_fn> units;
  bool published = false;
  nvshm_device_state state{};
  CUcontext context = nullptr;
};
// Never destroyed: units unregister from static destructors that may run after ours.
Registry &registry() {
  static Registry *r = new Registry();
  return *r;
}

// Caller holds the mutex.
Status write_all(Registry &r, const std::vector<nvshm_state_address_fn> &units) {
  ContextGuard guard(r.context);
  std::set<void *> written;
  for (nvshm_state_address_fn fn : units) {
    void *address = fn();
    if (!address) {
      NVSHM_WARN("device state", "a CUDA translation unit has no loadable device state (built for another GPU?)");
      continue;
    }
    if (!written.insert(address).second) continue;  // -rdc: units share one copy
    NVSHM_CU("device state", cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(address), &r.state, sizeof r.state));
  }
  return Status::ok;
}
}  // namespace

Status publish_device_state(const nvshm_device_state &state, CUcontext ctx) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.state = state;
  r.context = ctx;
  r.published = true;
  return write_all(r, r.units);
}

void withdraw_device_state() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.published) return;
  r.state = nvshm_device_state{};
  (void)write_all(r, r.units);
  r.published = false;
  r.context = nullptr;
}

}  // namespace nvshm

using nvshm::registry;

extern "C" NVSHM_API void nvshm_register_device_state(nvshm_state_address_fn fn) {
  auto &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.units.push_back(fn);
  if (r.published) (void)nvshm::write_all(r, {fn});  // a unit loaded after init (dlopen)
}

extern "C" NVSHM_API void nvshm_unregister_device_state(nvshm_state_address_fn fn) {
  auto &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.units.erase(std::remove(r.units.begin(), r.units.end(), fn), r.units.end());
}
