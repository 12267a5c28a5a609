// SPDX-License-Identifier: BSD-3-Clause
#include "common/env.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <vector>

#include <strings.h>
#include <unistd.h>

#include "common/log.hpp"
#include "nvshmem_detail/device_state.h"  // bounds named in the table's checks

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
#define NVSHM_ANY \
  EnvCheck {}
#define NVSHM_RANGE(min, max) \
  EnvCheck {                  \
    true, (min), (max), ""    \
  }
#define NVSHM_AT_LEAST(min)     \
  EnvCheck {                    \
    true, (min), ULLONG_MAX, "" \
  }
#define NVSHM_ONE_OF(values) \
  EnvCheck {                 \
    false, 0, 0, values      \
  }
const EnvVarInfo kTable[] = {
#define NVSHM_ENV(field, name, kind, def, category, check, help) {"NVSHMEM_" #name, #kind, def, category, check, help},
#include "common/env_vars.def"
#undef NVSHM_ENV
};
#undef NVSHM_ANY
#undef NVSHM_RANGE
#undef NVSHM_AT_LEAST
#undef NVSHM_ONE_OF

// NVSHMEM_* names that the build, the install and the tools read, never the library: not warned about
// (NVSHMEM_HOST_LIB_DIR and NVSHMEM_HOST_LIB_PATH: the Rust crate's build script and loader).
const char *const kToolVariables[] = {"NVSHMEM_HOME",          "NVSHMEM_PREFIX",       "NVSHMEM_CMAKE_ARGS",
                                      "NVSHMEM_HOST_LIB_PATH", "NVSHMEM_HOST_LIB_DIR", "NVSHMEM_PACKAGE_TEST_DPKG",
                                      "NVSHMEM_CUDA_ARCH"};

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

// The table's checks (EnvCheck) on a parsed value.
bool passes(const EnvCheck &c, long v) {
  return !c.ranged ||
         (v >= 0 && static_cast<unsigned long long>(v) >= c.min && static_cast<unsigned long long>(v) <= c.max);
}
bool passes(const EnvCheck &c, std::size_t v) {
  return !c.ranged || (v >= c.min && v <= c.max);
}
bool passes(const EnvCheck &, bool) {
  return true;
}
bool passes(const EnvCheck &c, const std::string &v) {
  if (!*c.one_of || v.empty()) return true;
  for (const char *p = c.one_of;;) {
    const char *bar = strchr(p, '|');
    const std::size_t n = bar ? static_cast<std::size_t>(bar - p) : strlen(p);
    if (v.size() == n && strncasecmp(v.c_str(), p, n) == 0) return true;
    if (!bar) return false;
    p = bar + 1;
  }
}

// A value as NVSHMEM_INFO prints it.
std::string value_text(bool v) {
  return v ? "true" : "false";
}
std::string value_text(long v) {
  return std::to_string(v);
}
std::string value_text(std::size_t v) {
  return std::to_string(v);
}
std::string value_text(const std::string &v) {
  return v;
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
  for (const char *tool : kToolVariables)
    if (name == tool) return true;
  return false;
}

// One line for a name that is not ours, from the environment or a configuration file (`where`).
void warn_unknown(const char *where, const std::string &name) {
  log_msg(LogLevel::warn, where, "%s is not a variable of this version (did you mean %s? nvshmem-info -e lists them)",
          name.c_str(), closest_variable(name));
}

// Reads one configuration file into *values (later files overwrite earlier keys). A missing file is
// skipped unless `required` (the file NVSHMEM_CONF_FILE names); a line that is not KEY=VALUE is an error
// naming the file and line; a key that is not one of our variables gets a one-line warning and is kept
// out (NVIDIA has variables this version does not read).
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
      warn_unknown(origin.c_str(), key);
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

// Sets *field from the configuration files, else the environment, else the default, and checks it; notes
// the variables that change nothing here for NVSHMEM_DEBUG=INFO.
template <class T>
bool load_one(const EnvVarInfo &var, T *field, const FileValues &files, std::vector<std::string> *notes) {
  assign(field, var.default_value);
  const auto file = files.find(var.name);
  const char *v = file != files.end() ? file->second.value.c_str() : getenv(var.name);
  if (!v || !*v) return true;
  const char *from = file != files.end() ? file->second.origin.c_str() : "environment";
  if (!assign(field, v)) {
    log_error(from, "%s='%s' is not a valid %s value%s (%s)", var.name, v, var.kind, kind_range(var.kind), var.help);
    return false;
  }
  if (!passes(var.check, *field)) {
    log_error(from, var.check.ranged ? "%s=%s is out of range: it must be %s (%s)" : "%s='%s' is not %s (%s)", var.name,
              v, env_check_text(var.check).c_str(), var.help);
    return false;
  }
  if (strncmp(var.help, kNoEffect, sizeof kNoEffect - 1) == 0)
    notes->push_back(std::string(var.name) + "=" + v + ": " + var.help);
  return true;
}
}  // namespace

const EnvVarInfo *env_table(std::size_t *count) {
  *count = sizeof kTable / sizeof kTable[0];
  return kTable;
}

std::string env_check_text(const EnvCheck &c) {
  if (c.ranged)
    return c.max == ULLONG_MAX ? "at least " + std::to_string(c.min)
                               : "from " + std::to_string(c.min) + " to " + std::to_string(c.max);
  if (!*c.one_of) return "";
  std::string text = "one of ";
  for (const char *p = c.one_of; *p; ++p) text += *p == '|' ? std::string(", ") : std::string(1, *p);
  return text;
}

const char *closest_variable(const std::string &name) {
  const char *best = kTable[0].name;
  std::size_t best_distance = SIZE_MAX;
  std::vector<std::size_t> row, next;
  for (const EnvVarInfo &v : kTable) {
    // Levenshtein distance, one row at a time.
    const std::size_t n = strlen(v.name);
    row.resize(n + 1);
    next.resize(n + 1);
    for (std::size_t j = 0; j <= n; ++j) row[j] = j;
    for (std::size_t i = 1; i <= name.size(); ++i) {
      next[0] = i;
      for (std::size_t j = 1; j <= n; ++j)
        next[j] = std::min({row[j] + 1, next[j - 1] + 1, row[j - 1] + (name[i - 1] == v.name[j - 1] ? 0 : 1)});
      row.swap(next);
    }
    if (row[n] < best_distance) {
      best_distance = row[n];
      best = v.name;
    }
  }
  return best;
}

Status env_load(Env *out) {
  Env env;
  FileValues files;
  NVSHM_TRY(read_conf_files(&files));
  // A key found in a configuration file overrides the environment variable (NVSHMEM 3.6's precedence).
  std::vector<std::string> notes;
  std::size_t index = 0;
#define NVSHM_ENV(field, name, kind, def, category, check, help) \
  if (!load_one(kTable[index++], &env.field, files, &notes)) return Status::invalid_value;
#include "common/env_vars.def"
#undef NVSHM_ENV
  log_configure(env.debug.c_str());
  for (const std::string &note : notes) NVSHM_INFO("environment", "%s", note.c_str());
  for (char **e = environ; *e; ++e) {
    if (strncmp(*e, "NVSHMEM_", 8) != 0) continue;
    const std::string name(*e, strcspn(*e, "="));
    if (!known_variable(name)) warn_unknown("environment", name);
  }
  *out = env;
  return Status::ok;
}

void env_print(const Env &env, std::FILE *out) {
  std::size_t index = 0;
  const char *category = "";
  auto print = [&](const EnvVarInfo &var, const std::string &value) {
    if (strcmp(category, var.category) != 0) {
      fprintf(out, "%s%s:\n", *category ? "\n" : "", var.category);
      category = var.category;
    }
    const std::string check = env_check_text(var.check);
    fprintf(out, "  %s=%s\n      %s, default '%s'%s%s. %s\n", var.name, value.c_str(), var.kind, var.default_value,
            check.empty() ? "" : ", ", check.c_str(), var.help);
  };
  fprintf(out, "nvshmem environment (NVSHMEM_INFO=1), the values in force:\n");
#define NVSHM_ENV(field, name, kind, def, category, check, help) print(kTable[index++], value_text(env.field));
#include "common/env_vars.def"
#undef NVSHM_ENV
  fflush(out);
}

}  // namespace nvshm
