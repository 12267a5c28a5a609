// SPDX-License-Identifier: BSD-3-Clause
#include "common/env.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/log.hpp"

namespace nvshm {

bool parse_size(const char *text, std::size_t *out) {
  if (!text || !*text) return false;
  errno = 0;
  char *end = nullptr;
  double value = strtod(text, &end);
  if (errno || end == text || value < 0 || !std::isfinite(value)) return false;
  double scale = 1;
  if (*end) {
    switch (tolower(static_cast<unsigned char>(*end))) {
      case 'k':
        scale = 1024.0;
        break;
      case 'm':
        scale = 1024.0 * 1024;
        break;
      case 'g':
        scale = 1024.0 * 1024 * 1024;
        break;
      case 't':
        scale = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        return false;
    }
    ++end;
    if (*end == 'b' || *end == 'B') ++end;
    if (*end) return false;
  }
  double bytes = value * scale;
  if (bytes >= 18446744073709551615.0) return false;
  *out = static_cast<std::size_t>(bytes);
  return true;
}

bool parse_bool(const char *text) {
  if (!text || !*text) return false;
  return !strchr("0nNfF", text[0]);
}

bool parse_int(const char *text, long *out) {
  if (!text || !*text) return false;
  errno = 0;
  char *end = nullptr;
  long v = strtol(text, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

namespace {
const EnvVarInfo kTable[] = {
#define NVSHM_ENV(field, name, kind, def, help) {"NVSHMEM_" #name, #kind, def, help},
#include "common/env_vars.def"
#undef NVSHM_ENV
};

bool assign(bool *field, const char *v) {
  *field = parse_bool(v);
  return true;
}
// INT variables are used as int: a value outside int's range is an error, never truncated.
bool assign(long *field, const char *v) {
  long value = 0;
  if (!parse_int(v, &value) || value < INT_MIN || value > INT_MAX) return false;
  *field = value;
  return true;
}
bool assign(std::size_t *field, const char *v) {
  return parse_size(v, field);
}
bool assign(std::string *field, const char *v) {
  *field = v;
  return true;
}
const char *kind_range(const char *kind) {
  return strcmp(kind, "INT") == 0 ? ": an integer from -2147483648 to 2147483647" : "";
}
}  // namespace

const EnvVarInfo *env_table(std::size_t *count) {
  *count = sizeof kTable / sizeof kTable[0];
  return kTable;
}

Status env_load(Env *out) {
  Env env;
#define NVSHM_ENV(field, name, kind, def, help)                                                                      \
  {                                                                                                                  \
    assign(&env.field, def);                                                                                         \
    const char *v = getenv("NVSHMEM_" #name);                                                                        \
    if (v && *v && !assign(&env.field, v)) {                                                                         \
      log_error("environment", "NVSHMEM_" #name "='%s' is not a valid %s value%s (%s)", v, #kind, kind_range(#kind), \
                help);                                                                                               \
      return Status::invalid_value;                                                                                  \
    }                                                                                                                \
  }
#include "common/env_vars.def"
#undef NVSHM_ENV
  if (env.bootstrap_timeout < 1 || env.bootstrap_timeout > kMaxBootstrapTimeout) {
    log_error("environment", "NVSHMEM_BOOTSTRAP_TIMEOUT=%ld is out of range: it must be from 1 to %ld seconds",
              env.bootstrap_timeout, kMaxBootstrapTimeout);
    return Status::invalid_value;
  }
  *out = env;
  return Status::ok;
}

}  // namespace nvshm
