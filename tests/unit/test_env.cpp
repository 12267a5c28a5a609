// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/env.hpp"

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
