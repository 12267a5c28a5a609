// SPDX-License-Identifier: BSD-3-Clause
#include "common/dl.hpp"

#include "common/log.hpp"

namespace nvshm {

void *dl_open(const std::string &library, const char *where, const char *what, const char *advice) {
  void *h = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) log_error(where, "cannot load the %s library '%s': %s; %s", what, library.c_str(), dlerror(), advice);
  return h;
}

}  // namespace nvshm
