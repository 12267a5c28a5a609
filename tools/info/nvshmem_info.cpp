// SPDX-License-Identifier: BSD-3-Clause
// nvshmem-info: what this NVSHMEM is, how it was built, and which environment variables it reads.
//   -a everything (the default), -n version, -b build options, -e environment variables.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/env.hpp"
#include "nvshmem_info_build_options.h"

namespace {

// Our release (semantic version: SONAME, packages) and the NVSHMEM interface level (what NVSHMEM code gates
// on), of the library loaded and of the headers this tool was built with (docs/versioning.md).
void print_version() {
  int major = 0, minor = 0, patch = 0, rel_major = 0, rel_minor = 0, rel_patch = 0, spec_major = 0, spec_minor = 0;
  char name[NVSHMEM_MAX_NAME_LEN] = {};
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  nvshm_get_release_version(&rel_major, &rel_minor, &rel_patch);
  nvshmem_info_get_version(&spec_major, &spec_minor);
  nvshmem_info_get_name(name);
  std::printf("Version\n");
  std::printf("  %-28s %s\n", "library", name);
  std::printf("  %-28s %d.%d.%d\n", "library release", rel_major, rel_minor, rel_patch);
  std::printf("  %-28s %d.%d.%d\n", "library NVSHMEM API level", major, minor, patch);
  std::printf("  %-28s %s (package %d), NVSHMEM API level %d.%d.%d\n", "headers of this tool", NVSHM_RELEASE_STRING,
              NVSHM_RELEASE_PACKAGE, NVSHMEM_VENDOR_MAJOR_VERSION, NVSHMEM_VENDOR_MINOR_VERSION,
              NVSHMEM_VENDOR_PATCH_VERSION);
  std::printf("  %-28s %d.%d\n", "OpenSHMEM specification", spec_major, spec_minor);
}

void print_build() {
  std::printf("Build options\n");
#define X(name, value) std::printf("  %-36s %s\n", name, value);
  NVSHM_INFO_BUILD_OPTIONS
#undef X
}

const char *default_of(const nvshm::EnvVarInfo &v) {
  return v.default_value[0] ? v.default_value : "\"\"";
}

// The table by category: name, type, default, the values it accepts, help.
void print_env() {
  std::size_t count = 0;
  const nvshm::EnvVarInfo *table = nvshm::env_table(&count);
  int width = 7;  // "default"
  for (std::size_t i = 0; i < count; ++i) width = std::max(width, static_cast<int>(std::strlen(default_of(table[i]))));
  std::printf("Environment variables (%zu)\n", count);
  const char *category = "";
  for (std::size_t i = 0; i < count; ++i) {
    const nvshm::EnvVarInfo &v = table[i];
    if (std::strcmp(category, v.category) != 0) {
      category = v.category;
      std::printf("  %s:\n    %-40s %-7s %-*s %s\n", category, "name", "type", width, "default", "help");
    }
    const std::string check = nvshm::env_check_text(v.check);
    std::printf("    %-40s %-7s %-*s %s%s%s\n", v.name, v.kind, width, default_of(v),
                check.empty() ? "" : "Valid: ", check.c_str(),
                check.empty() ? v.help : (std::string(". ") + v.help).c_str());
  }
}

// docs/environment.md: the same table as a Markdown page (unit.env_docs compares the committed page).
void print_env_markdown() {
  std::size_t count = 0;
  const nvshm::EnvVarInfo *table = nvshm::env_table(&count);
  std::printf(
      "<!-- Generated from src/common/env_vars.def by `nvshmem-info --env-markdown`; the test unit.env_docs\n"
      "     fails when this page and the table differ. Edit the table, then regenerate this page. -->\n"
      "# Environment variables\n\n"
      "Every variable the library reads, from one table (`src/common/env_vars.def`). A value in a configuration\n"
      "file (`/etc/nvshmem.conf`, `~/.nvshmem.conf`, then `NVSHMEM_CONF_FILE`) overrides the environment.\n"
      "A value its check refuses fails `nvshmem_init` with a message naming the variable; an `NVSHMEM_*`\n"
      "variable that is not here gets a one-line warning naming the closest one that is. `NVSHMEM_INFO=1`\n"
      "prints the values in force at init (PE 0); `nvshmem-info -e` prints this table.\n");
  const char *category = "";
  for (std::size_t i = 0; i < count; ++i) {
    const nvshm::EnvVarInfo &v = table[i];
    if (std::strcmp(category, v.category) != 0) {
      category = v.category;
      std::printf("\n## %s\n\n| variable | type | default | valid | what |\n|---|---|---|---|---|\n", category);
    }
    std::string help = v.help;
    for (std::size_t at = help.find('|'); at != std::string::npos; at = help.find('|', at + 2))
      help.replace(at, 1, "\\|");
    std::printf("| `%s` | %s | `%s` | %s | %s |\n", v.name, v.kind, default_of(v),
                nvshm::env_check_text(v.check).c_str(), help.c_str());
  }
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"nvshmem-info: version, build options and environment variables of this NVSHMEM"};
  bool all = false, version = false, build = false, env = false;
  app.add_flag("-a,--all", all, "Print everything (the default)");
  app.add_flag("-n,--version", version, "Print the version");
  app.add_flag("-b,--build", build, "Print the build options");
  app.add_flag("-e,--env", env, "Print every environment variable with its type, default, check and help");
  bool markdown = false;
  app.add_flag("--env-markdown", markdown, "Print the environment table as docs/environment.md");
  CLI11_PARSE(app, argc, argv);
  if (markdown) return print_env_markdown(), EXIT_SUCCESS;
  if (!version && !build && !env) all = true;
  bool first = true;
  auto section = [&first]() {
    if (!first) std::printf("\n");
    first = false;
  };
  if (all || version) section(), print_version();
  if (all || build) section(), print_build();
  if (all || env) section(), print_env();
  return EXIT_SUCCESS;
}
