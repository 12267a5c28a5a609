// SPDX-License-Identifier: BSD-3-Clause
#include "host/version_check.hpp"

#include <mutex>

#include "common/log.hpp"
#include "host/runtime.hpp"
#include "nvshmem_detail/version_registration.h"

namespace nvshm {
namespace {
// The distinct header versions seen, each with the number of units currently registered. A plain
// array (no destructor), so that units unregistering at exit find it intact.
struct Registered {
  int major, minor, patch;
  long units;
};
constexpr int kMaxVersions = 32;
Registered g_versions[kMaxVersions];
int g_count = 0;
bool g_overflow = false;
std::mutex g_mutex;

void report(const char *call, const Registered &v) {
  log_error(call,
            "this program (or a library it loaded) was compiled with NVSHMEM headers of release %d.%d.%d, but "
            "libnvshmem_host.so is release %d.%d.%d; headers need the library's MAJOR version and a MINOR version "
            "not newer than the library's (docs/versioning.md): rebuild against this library's headers or "
            "run with a library at least as new as the headers",
            v.major, v.minor, v.patch, NVSHM_RELEASE_MAJOR, NVSHM_RELEASE_MINOR, NVSHM_RELEASE_PATCH);
}
}  // namespace

bool header_version_compatible(int major, int minor) {
  return major == NVSHM_RELEASE_MAJOR && minor <= NVSHM_RELEASE_MINOR;
}

Status check_header_versions(const char *call) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Status st = Status::ok;
  for (int i = 0; i < g_count; ++i) {
    if (g_versions[i].units > 0 && !header_version_compatible(g_versions[i].major, g_versions[i].minor)) {
      report(call, g_versions[i]);
      st = Status::invalid_value;
    }
  }
  if (g_overflow)
    NVSHM_WARN(call, "more than %d distinct header versions registered; some were not checked", kMaxVersions);
  return st;
}

}  // namespace nvshm

extern "C" {

NVSHM_API void nvshm_register_header_version(int major, int minor, int patch) {
  using namespace nvshm;
  Registered *entry = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (int i = 0; i < g_count && !entry; ++i)
      if (g_versions[i].major == major && g_versions[i].minor == minor && g_versions[i].patch == patch)
        entry = &g_versions[i];
    if (!entry && g_count < kMaxVersions) {
      entry = &g_versions[g_count++];
      *entry = Registered{major, minor, patch, 0};
    }
    if (!entry) {
      g_overflow = true;
      return;
    }
    ++entry->units;
  }
  // A unit loaded after init (dlopen) cannot make init fail any more: refuse it here.
  if (runtime() && !header_version_compatible(major, minor)) {
    report("nvshmem (library loaded after nvshmem_init)", *entry);
    fatal("nvshmem", "incompatible NVSHMEM header version %d.%d.%d", major, minor, patch);
  }
}

NVSHM_API void nvshm_get_release_version(int *major, int *minor, int *patch) {
  *major = NVSHM_RELEASE_MAJOR;
  *minor = NVSHM_RELEASE_MINOR;
  *patch = NVSHM_RELEASE_PATCH;
}

NVSHM_API void nvshm_unregister_header_version(int major, int minor, int patch) {
  using namespace nvshm;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (int i = 0; i < g_count; ++i)
    if (g_versions[i].major == major && g_versions[i].minor == minor && g_versions[i].patch == patch &&
        g_versions[i].units > 0)
      --g_versions[i].units;
}

}  // extern "C"
