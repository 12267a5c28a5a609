// SPDX-License-Identifier: BSD-3-Clause
// Typed access to the runtime's environment variables (table in env_vars.def).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/status.hpp"

namespace nvshm {

struct Env {
#define NVSHM_ENV_FIELD_BOOL bool
#define NVSHM_ENV_FIELD_INT long
#define NVSHM_ENV_FIELD_SIZE std::size_t
#define NVSHM_ENV_FIELD_STRING std::string
#define NVSHM_ENV(field, name, kind, def, category, check, help) NVSHM_ENV_FIELD_##kind field{};
#include "common/env_vars.def"
#undef NVSHM_ENV
};

// NVSHMEM_BOOTSTRAP_TIMEOUT's largest value (seconds, about 115 days): deadlines stay far from overflow.
inline constexpr long kMaxBootstrapTimeout = 10000000;

// A variable's validation (the check column of env_vars.def): a range for INT and SIZE (`ranged`), or
// the values a STRING may take ("A|B", case-insensitive; empty: any).
struct EnvCheck {
  bool ranged = false;
  unsigned long long min = 0, max = 0;
  const char *one_of = "";
};

// Describes one variable for the parser, NVSHMEM_INFO, nvshmem-info and the docs.
struct EnvVarInfo {
  const char *name;  // full name, NVSHMEM_...
  const char *kind;  // BOOL, INT, SIZE, STRING
  const char *default_value;
  const char *category;
  EnvCheck check;
  const char *help;
};
const EnvVarInfo *env_table(std::size_t *count);
// The check in words ("1 to 128", "at least 1", "one of spin, event, auto"); empty for none.
std::string env_check_text(const EnvCheck &check);

// Parse every variable, then set the log level from NVSHMEM_DEBUG (its one reader). A malformed value, or one
// its check refuses, is an error that names the variable and the value (INT values must also fit in an int).
// An NVSHMEM_* variable of the environment that is not in the table gets a one-line warning naming the
// closest one that is.
Status env_load(Env *out);

// NVSHMEM_INFO=1: every variable with its value in `env`, by category, with type, default and help.
void env_print(const Env &env, std::FILE *out);

// The variable of the table whose name is closest to `name` (fewest single-character edits).
const char *closest_variable(const std::string &name);

// Parsers, exposed for unit tests. Sizes: digits with an optional fraction and k/m/g/t suffix
// (powers of 1024), case-insensitive. Booleans: false for 0/n/N/f/F prefixes and empty, true otherwise.
bool parse_size(const char *text, std::size_t *out);
bool parse_bool(const char *text);
bool parse_int(const char *text, long *out);

}  // namespace nvshm
