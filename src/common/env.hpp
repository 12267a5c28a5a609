// SPDX-License-Identifier: BSD-3-Clause
// Typed access to the runtime's environment variables (table in env_vars.def).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.hpp"

namespace nvshm {

struct Env {
#define NVSHM_ENV_FIELD_BOOL bool
#define NVSHM_ENV_FIELD_INT long
#define NVSHM_ENV_FIELD_SIZE std::size_t
#define NVSHM_ENV_FIELD_STRING std::string
#define NVSHM_ENV(field, name, kind, def, help) NVSHM_ENV_FIELD_##kind field{};
#include "common/env_vars.def"
#undef NVSHM_ENV
};

// NVSHMEM_BOOTSTRAP_TIMEOUT's largest value (seconds, about 115 days): deadlines stay far from overflow.
inline constexpr long kMaxBootstrapTimeout = 10000000;

// Describes one variable for nvshmem-info and the docs.
struct EnvVarInfo {
  const char *name;  // full name, NVSHMEM_...
  const char *kind;  // BOOL, INT, SIZE, STRING
  const char *default_value;
  const char *help;
};
const EnvVarInfo *env_table(std::size_t *count);

// Parse every variable; a malformed or out-of-range value is an error that names the variable and the value
// (INT values must fit in an int; NVSHMEM_BOOTSTRAP_TIMEOUT from 1 to kMaxBootstrapTimeout).
Status env_load(Env *out);

// Parsers, exposed for unit tests. Sizes: digits with an optional fraction and k/m/g/t suffix
// (powers of 1024), case-insensitive. Booleans: false for 0/n/N/f/F prefixes and empty, true otherwise.
bool parse_size(const char *text, std::size_t *out);
bool parse_bool(const char *text);
bool parse_int(const char *text, long *out);

}  // namespace nvshm
