// SPDX-License-Identifier: BSD-3-Clause
#include "common/env.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

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

// A value from a configuration file, with where it was read ("<file>:<line>") for messages.
struct FileValue {
  std::string value, origin;
};
using FileValues = std::map<std::string, FileValue>;

std::string trim(const std::string &s) {
  const char *space = " \t\r";
  const std::size_t b = s.find_first_not_of(space);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(space) - b + 1);
}

bool known_variable(const std::string &name) {
  for (const EnvVarInfo &v : kTable)
    if (name == v.name) return true;
  return false;
}

// Reads one configuration file into *values (later files overwrite earlier keys). A missing file is
// skipped unless `required` (the file NVSHMEM_CONF_FILE names); a line that is not KEY=VALUE is an error
// naming the file and line; a key that is not one of our variables is reported under NVSHMEM_DEBUG=WARN
// and kept out (NVIDIA has variables this version does not read).
Status read_conf_file(const std::string &path, bool required, FileValues *values) {
  std::ifstream in(path);
  if (!in) {
    if (!required) return Status::ok;
    log_error("environment", "NVSHMEM_CONF_FILE=%s cannot be opened: %s", path.c_str(), strerror(errno));
    return Status::invalid_value;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const std::size_t eq = line.find('=');
    const std::string key = eq == std::string::npos ? "" : trim(line.substr(0, eq));
    const std::string origin = path + ":" + std::to_string(number);
    if (key.empty()) {
      log_error("environment",
                "%s: '%s' is not a KEY=VALUE line (a configuration file holds NVSHMEM_<NAME>=<value> "
                "lines and # comments)",
                origin.c_str(), line.c_str());
      return Status::invalid_value;
    }
    if (!known_variable(key)) {
      NVSHM_WARN("environment", "%s: %s is not a variable of this version (nvshmem-info -e lists them); ignored",
                 origin.c_str(), key.c_str());
      continue;
    }
    (*values)[key] = FileValue{trim(line.substr(eq + 1)), origin};
  }
  return Status::ok;
}

// The configuration files in NVSHMEM's order: /etc/nvshmem.conf, ~/.nvshmem.conf, then the file named by
// NVSHMEM_CONF_FILE (environment only); a later file overrides an earlier one.
Status read_conf_files(FileValues *values) {
  NVSHM_TRY(read_conf_file("/etc/nvshmem.conf", false, values));
  if (const char *home = getenv("HOME"); home && *home)
    NVSHM_TRY(read_conf_file(std::string(home) + "/.nvshmem.conf", false, values));
  if (const char *file = getenv("NVSHMEM_CONF_FILE"); file && *file) NVSHM_TRY(read_conf_file(file, true, values));
  return Status::ok;
}

// Variables accepted for compatibility that change nothing here start their help with this.
constexpr const char kNoEffect[] = "Accepted, no effect";
}  // namespace

const EnvVarInfo *env_table(std::size_t *count) {
  *count = sizeof kTable / sizeof kTable[0];
  return kTable;
}

Status env_load(Env *out) {
  Env env;
  FileValues files;
  NVSHM_TRY(read_conf_files(&files));
  // A key found in a configuration file overrides the environment variable (NVSHMEM 3.6's precedence).
#define NVSHM_ENV(field, name, kind, def, help)                                                                    \
  {                                                                                                                \
    assign(&env.field, def);                                                                                       \
    const auto file = files.find("NVSHMEM_" #name);                                                                \
    const char *v = file != files.end() ? file->second.value.c_str() : getenv("NVSHMEM_" #name);                   \
    const char *from = file != files.end() ? file->second.origin.c_str() : "environment";                          \
    if (v && *v && !assign(&env.field, v)) {                                                                       \
      log_error(from, "NVSHMEM_" #name "='%s' is not a valid %s value%s (%s)", v, #kind, kind_range(#kind), help); \
      return Status::invalid_value;                                                                                \
    }                                                                                                              \
    if (v && *v && strncmp(help, kNoEffect, sizeof kNoEffect - 1) == 0)                                            \
      NVSHM_INFO(from, "NVSHMEM_" #name "=%s: %s", v, help);                                                       \
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
