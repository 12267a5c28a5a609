// SPDX-License-Identifier: BSD-3-Clause
// Libraries reached at run time with dlopen (MPI, PMIx, UCX), so that libnvshmem_host.so has no
// link-time dependency on them: one open whose failure message says what to install, and typed
// binding of a library's functions that names the first one missing.
#pragma once
#include <dlfcn.h>

#include <string>

namespace nvshm {

// dlopen(library, RTLD_NOW | RTLD_GLOBAL). On failure logs, under `where`, "cannot load the <what>
// library '<library>': <dlerror>; <advice>" and returns nullptr. The caller never closes it (MPI and
// UCX do not support being unloaded).
void *dl_open(const std::string &library, const char *where, const char *what, const char *advice);

// Binds function pointers from one library: bind(&fn, "name") for each; missing() names the first
// required one that was absent (empty when all were found).
class DlBinder {
 public:
  explicit DlBinder(void *handle) : handle_(handle) {}
  template <class Fn>
  void operator()(Fn **fn, const char *name, bool required = true) {
    void *p = dlsym(handle_, name);
    if (!p && required && missing_.empty()) missing_ = name;
    *fn = reinterpret_cast<Fn *>(p);
  }
  const std::string &missing() const { return missing_; }

 private:
  void *handle_;
  std::string missing_;
};

}  // namespace nvshm
