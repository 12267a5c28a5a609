// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "common/env.hpp"
#include "common/log.hpp"

using nvshm::parse_size;

TEST(Env, SizeSuffixes) {
  std::size_t v = 0;
  ASSERT_TRUE(parse_size("4096", &v));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(parse_size("2k", &v));
  EXPECT_EQ(v, 2048u);
  ASSERT_TRUE(parse_size("3M", &v));
  EXPECT_EQ(v, 3u << 20);
  ASSERT_TRUE(parse_size("1g", &v));
  EXPECT_EQ(v, 1u << 30);
  ASSERT_TRUE(parse_size("1.5G", &v));
  EXPECT_EQ(v, 3u << 29);
  ASSERT_TRUE(parse_size("2t", &v));
  EXPECT_EQ(v, std::size_t{2} << 40);
  ASSERT_TRUE(parse_size("64kb", &v));
  EXPECT_EQ(v, 64u << 10);
}

TEST(Env, SizeRejectsGarbage) {
  std::size_t v = 7;
  EXPECT_FALSE(parse_size("", &v));
  EXPECT_FALSE(parse_size("abc", &v));
  EXPECT_FALSE(parse_size("12x", &v));
  EXPECT_FALSE(parse_size("-1", &v));
  EXPECT_FALSE(parse_size("1gg", &v));
  EXPECT_EQ(v, 7u);
}

TEST(Env, Bool) {
  EXPECT_FALSE(nvshm::parse_bool("0"));
  EXPECT_FALSE(nvshm::parse_bool("no"));
  EXPECT_FALSE(nvshm::parse_bool("False"));
  EXPECT_FALSE(nvshm::parse_bool(""));
  EXPECT_TRUE(nvshm::parse_bool("1"));
  EXPECT_TRUE(nvshm::parse_bool("yes"));
  EXPECT_TRUE(nvshm::parse_bool("true"));
}

TEST(Env, LoadReadsAndRejects) {
  setenv("NVSHMEM_SYMMETRIC_SIZE", "256m", 1);
  nvshm::Env env;
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  EXPECT_EQ(env.symmetric_size, std::size_t{256} << 20);
  setenv("NVSHMEM_SYMMETRIC_SIZE", "lots", 1);
  EXPECT_EQ(nvshm::env_load(&env), nvshm::Status::invalid_value);
  unsetenv("NVSHMEM_SYMMETRIC_SIZE");
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  EXPECT_EQ(env.symmetric_size, std::size_t{1} << 30);
}

TEST(Env, TableHasEveryVariable) {
  std::size_t n = 0;
  const nvshm::EnvVarInfo *t = nvshm::env_table(&n);
  ASSERT_GT(n, 5u);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(std::string(t[i].name).rfind("NVSHMEM_", 0), 0u) << t[i].name;
    EXPECT_NE(std::string(t[i].help), "");
  }
}

// Issue 33: 2147483648 used to fail as "-2147483648 s" and 4294967297 to become 1 s (an int cast).
TEST(Env, BootstrapTimeoutRange) {
  nvshm::Env env;
  for (const char *bad : {"2147483648", "4294967297", "0", "-5", "10000001", "99999999999999999999", "1.5", "10s"}) {
    setenv("NVSHMEM_BOOTSTRAP_TIMEOUT", bad, 1);
    testing::internal::CaptureStderr();
    EXPECT_EQ(nvshm::env_load(&env), nvshm::Status::invalid_value) << bad;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("NVSHMEM_BOOTSTRAP_TIMEOUT"), std::string::npos) << err;
    EXPECT_TRUE(err.find("out of range: it must be from 1 to 10000000") != std::string::npos ||
                err.find("an integer from -2147483648 to 2147483647") != std::string::npos)
        << err;
  }
  for (const char *good : {"1", "30", "10000000"}) {
    setenv("NVSHMEM_BOOTSTRAP_TIMEOUT", good, 1);
    ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok) << good;
    EXPECT_EQ(env.bootstrap_timeout, atol(good));
  }
  unsetenv("NVSHMEM_BOOTSTRAP_TIMEOUT");
}

// Issue 30: the table's checks (range, one of) refuse a value with a message naming the variable, the value
// and what it accepts; every default passes its own check; the names are case-insensitive.
TEST(Env, TableChecks) {
  nvshm::Env env;
  struct Case {
    const char *name, *value, *message;
  };
  for (const Case &c :
       {Case{"NVSHMEM_COLL_MAX_BLOCKS", "129", "NVSHMEM_COLL_MAX_BLOCKS=129 is out of range: it must be from 1 to 128"},
        Case{"NVSHMEM_COLL_MAX_BLOCKS", "0", "it must be from 1 to 128"},
        Case{"NVSHMEM_SYMMETRIC_SIZE", "0", "NVSHMEM_SYMMETRIC_SIZE=0 is out of range: it must be at least 1"},
        Case{"NVSHMEM_REDUCE_LL_MAX", "2m", "it must be from 0 to 1048576"},
        Case{"NVSHMEM_HEAP_KIND", "gpu", "NVSHMEM_HEAP_KIND='gpu' is not one of DEVICE, VIDMEM, SYSMEM, HOST"},
        Case{"NVSHMEM_REMOTE_PROGRESS", "poll", "is not one of spin, event, auto"}}) {
    setenv(c.name, c.value, 1);
    testing::internal::CaptureStderr();
    EXPECT_EQ(nvshm::env_load(&env), nvshm::Status::invalid_value) << c.name << "=" << c.value;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(c.message), std::string::npos) << err;
    unsetenv(c.name);
  }
  setenv("NVSHMEM_HEAP_KIND", "sysmem", 1);
  setenv("NVSHMEM_REDUCE_LL_MAX", "1m", 1);
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  EXPECT_EQ(env.heap_kind, "sysmem");
  EXPECT_EQ(env.reduce_ll_max, std::size_t{1} << 20);
  unsetenv("NVSHMEM_HEAP_KIND");
  unsetenv("NVSHMEM_REDUCE_LL_MAX");
  std::size_t n = 0;
  const nvshm::EnvVarInfo *t = nvshm::env_table(&n);
  std::set<std::string> categories_done;
  for (std::size_t i = 0; i < n; ++i) {  // the defaults (no variable set) pass their checks
    EXPECT_NE(std::string(t[i].category), "") << t[i].name;
    if (i > 0 && std::string(t[i].category) != t[i - 1].category) categories_done.insert(t[i - 1].category);
    EXPECT_EQ(categories_done.count(t[i].category), 0u) << t[i].name << ": its category's variables stay together";
    if (t[i].check.ranged) {
      EXPECT_LE(t[i].check.min, t[i].check.max) << t[i].name;
    }
  }
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
}

// An NVSHMEM_* variable that is not in the table: one line naming the closest one that is; the tools'
// variables (NVSHMEM_PREFIX, the Rust crate's NVSHMEM_HOST_LIB_DIR, ...) are not warned about.
TEST(Env, UnknownVariableNamesTheClosest) {
  EXPECT_STREQ(nvshm::closest_variable("NVSHMEM_SYMMETRIC_SIZ"), "NVSHMEM_SYMMETRIC_SIZE");
  EXPECT_STREQ(nvshm::closest_variable("NVSHMEM_BOOTSTRAP_TIMOUT"), "NVSHMEM_BOOTSTRAP_TIMEOUT");
  nvshm::Env env;
  setenv("NVSHMEM_SYMMETRIC_SIZ", "2g", 1);
  setenv("NVSHMEM_PREFIX", "/opt/nvshmem", 1);
  setenv("NVSHMEM_HOST_LIB_DIR", "/opt/nvshmem/lib", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("NVSHMEM_SYMMETRIC_SIZ is not a variable of this version (did you mean NVSHMEM_SYMMETRIC_SIZE?"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "one line: " << err;
  unsetenv("NVSHMEM_SYMMETRIC_SIZ");
  unsetenv("NVSHMEM_PREFIX");
  unsetenv("NVSHMEM_HOST_LIB_DIR");
}

// NVSHMEM_DEBUG has one reader, env_load, which sets the log level; NVSHMEM_INFO's listing has every variable.
TEST(Env, DebugLevelAndInfoListing) {
  nvshm::Env env;
  setenv("NVSHMEM_DEBUG", "INFO", 1);
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  EXPECT_TRUE(nvshm::log_enabled(nvshm::LogLevel::info));
  unsetenv("NVSHMEM_DEBUG");
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  EXPECT_FALSE(nvshm::log_enabled(nvshm::LogLevel::warn));
  char *text = nullptr;
  std::size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  nvshm::env_print(env, out);
  fclose(out);
  const std::string listing(text, size);
  free(text);
  std::size_t n = 0;
  const nvshm::EnvVarInfo *t = nvshm::env_table(&n);
  for (std::size_t i = 0; i < n; ++i) EXPECT_NE(listing.find(std::string("  ") + t[i].name + "="), std::string::npos);
  EXPECT_NE(listing.find("NVSHMEM_SYMMETRIC_SIZE=1073741824"), std::string::npos) << listing;
}

TEST(Env, IntOutsideIntRangeIsRejected) {
  nvshm::Env env;
  setenv("NVSHMEM_MAX_TEAMS", "4294967328", 1);  // would become 32 through an int cast
  EXPECT_EQ(nvshm::env_load(&env), nvshm::Status::invalid_value);
  unsetenv("NVSHMEM_MAX_TEAMS");
}

// NVSHMEM 3.6 configuration files: ~/.nvshmem.conf, then NVSHMEM_CONF_FILE; a later file overrides an
// earlier one and a file's value overrides the environment; comments, blanks and spaces are ignored; a
// line that is not KEY=VALUE and a missing NVSHMEM_CONF_FILE are errors; unknown keys are ignored.
namespace {
std::string write_file(const std::string &path, const std::string &text) {
  FILE *f = fopen(path.c_str(), "w");
  EXPECT_NE(f, nullptr) << path;
  fputs(text.c_str(), f);
  fclose(f);
  return path;
}
}  // namespace

TEST(Env, ConfigFilesOverrideTheEnvironmentInOrder) {
  char dir[] = "/tmp/nvshm_conf_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string home = dir, old_home = getenv("HOME") ? getenv("HOME") : "";
  setenv("HOME", dir, 1);
  write_file(home + "/.nvshmem.conf",
             "# home file\n  NVSHMEM_SYMMETRIC_SIZE = 48m  # trailing comment\n\nNVSHMEM_MAX_TEAMS=40\n"
             "NVSHMEM_NOT_A_VARIABLE_OF_OURS=1\nNVSHMEM_BOOTSTRAP_TIMEOUT=33\n");
  const std::string conf = write_file(home + "/job.conf", "NVSHMEM_MAX_TEAMS=77\nNVSHMEM_DEBUG=INFO\n");
  setenv("NVSHMEM_MAX_TEAMS", "9", 1);            // both files override it
  setenv("NVSHMEM_COLL_MAX_BLOCKS", "17", 1);     // in no file: the environment's value
  setenv("NVSHMEM_BOOTSTRAP_TIMEOUT", "999", 1);  // the home file overrides it
  nvshm::Env env;
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  EXPECT_EQ(env.symmetric_size, std::size_t{48} << 20);
  EXPECT_EQ(env.max_teams, 40);
  EXPECT_EQ(env.bootstrap_timeout, 33);
  EXPECT_EQ(env.coll_max_blocks, 17);
  setenv("NVSHMEM_CONF_FILE", conf.c_str(), 1);
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  EXPECT_EQ(env.max_teams, 77) << "NVSHMEM_CONF_FILE is read last";
  EXPECT_EQ(env.debug, "INFO");
  EXPECT_EQ(env.symmetric_size, std::size_t{48} << 20) << "keys of earlier files stay";
  write_file(conf, "NVSHMEM_MAX_TEAMS 77\n");
  EXPECT_EQ(nvshm::env_load(&env), nvshm::Status::invalid_value) << "not a KEY=VALUE line";
  write_file(conf, "NVSHMEM_MAX_TEAMS=many\n");
  EXPECT_EQ(nvshm::env_load(&env), nvshm::Status::invalid_value) << "a bad value from a file";
  setenv("NVSHMEM_CONF_FILE", (home + "/missing.conf").c_str(), 1);
  EXPECT_EQ(nvshm::env_load(&env), nvshm::Status::invalid_value) << "NVSHMEM_CONF_FILE names a missing file";
  unsetenv("NVSHMEM_CONF_FILE");
  unsetenv("NVSHMEM_MAX_TEAMS");
  unsetenv("NVSHMEM_COLL_MAX_BLOCKS");
  unsetenv("NVSHMEM_BOOTSTRAP_TIMEOUT");
  remove(conf.c_str());
  remove((home + "/.nvshmem.conf").c_str());
  rmdir(dir);
  if (old_home.empty())
    unsetenv("HOME");
  else
    setenv("HOME", old_home.c_str(), 1);
  ASSERT_EQ(nvshm::env_load(&env), nvshm::Status::ok);
  EXPECT_EQ(env.max_teams, 128) << "NVSHMEM 3.5's default";
}
