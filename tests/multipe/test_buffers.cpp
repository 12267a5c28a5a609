// SPDX-License-Identifier: BSD-3-Clause
// User buffers, the multicast pointer and their errors across real processes (issue 11), on the
// CPU backend (the CTest sets NVSHMEM_HEAP_KIND=SYSMEM, so the GPU machine runs it the same way):
// registered host buffers as put sources and get destinations with real data, every registration
// error with its message, nvshmemx_buffer_register_symmetric refused on a host heap, and
// nvshmemx_mc_ptr returning NULL.
#include <nvshmemx.h>

#include <cstdlib>
#include <string>

#include "pe_test.hpp"

namespace {
using pe_test::poison_local;
using pe_test::random_bytes;
using pe_test::read_local;

// Runs `f`, returns what it printed on stderr.
template <typename F>
std::string stderr_of(F f) {
  ::testing::internal::CaptureStderr();
  f();
  return ::testing::internal::GetCapturedStderr();
}

TEST(UserBuffer, RegisteredHostBuffersAreRmaSourcesAndDestinations) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr std::size_t kBytes = 3 * 4096 + 17;  // not a page multiple, not aligned below
  char *sym = static_cast<char *>(nvshmem_malloc(2 * kBytes));
  ASSERT_NE(sym, nullptr);
  poison_local(sym, 2 * kBytes);
  std::vector<unsigned char> source = random_bytes(kBytes + 1, me, 1);
  std::vector<unsigned char> dest(kBytes + 1, 0xA5);
  ASSERT_EQ(nvshmemx_buffer_register(source.data() + 1, kBytes), 0);
  ASSERT_EQ(nvshmemx_buffer_register(dest.data() + 1, kBytes), 0);
  nvshmem_barrier_all();

  nvshmem_putmem(sym, source.data() + 1, kBytes, right);               // blocking put from a registered source
  nvshmem_putmem_nbi(sym + kBytes, source.data() + 1, kBytes, right);  // nbi put, complete at quiet
  nvshmem_quiet();
  nvshmem_barrier_all();
  nvshmem_getmem(dest.data() + 1, sym, kBytes, left);  // get into a registered destination: left's data

  const auto from_left = random_bytes(kBytes + 1, left, 1);
  const auto mine_now = read_local(sym, 2 * kBytes);
  EXPECT_EQ(memcmp(mine_now.data(), from_left.data() + 1, kBytes), 0) << "put";
  EXPECT_EQ(memcmp(mine_now.data() + kBytes, from_left.data() + 1, kBytes), 0) << "put_nbi";
  const auto from_left_of_left = random_bytes(kBytes + 1, (left + n - 1) % n, 1);
  EXPECT_EQ(memcmp(dest.data() + 1, from_left_of_left.data() + 1, kBytes), 0) << "get";
  EXPECT_EQ(dest[0], 0xA5) << "get wrote before its destination";

  EXPECT_EQ(nvshmemx_buffer_unregister(source.data() + 1), 0);
  EXPECT_EQ(nvshmemx_buffer_unregister(dest.data() + 1), 0);
  nvshmem_barrier_all();
  nvshmem_free(sym);
}

TEST(UserBuffer, RegistrationErrorsNameTheCallAndCause) {
  std::vector<char> buf(1000);
  char *p = buf.data() + 100;
  std::string err = stderr_of([&] { EXPECT_NE(nvshmemx_buffer_register(nullptr, 64), 0); });
  EXPECT_NE(err.find("nvshmemx_buffer_register"), std::string::npos) << err;
  EXPECT_NE(err.find("non-NULL"), std::string::npos) << err;
  err = stderr_of([&] { EXPECT_NE(nvshmemx_buffer_register(p, 0), 0); });
  EXPECT_NE(err.find("length=0"), std::string::npos) << err;

  ASSERT_EQ(nvshmemx_buffer_register(p, 100), 0);
  for (char *q : {p, p + 50, p - 10, p + 99}) {
    err = stderr_of([&] { EXPECT_NE(nvshmemx_buffer_register(q, 20), 0) << static_cast<void *>(q); });
    EXPECT_NE(err.find("overlaps the registered buffer"), std::string::npos) << err;
  }
  EXPECT_NE(nvshmemx_buffer_register(p - 100, 800), 0) << "a range around a registered one";
  EXPECT_EQ(nvshmemx_buffer_register(p + 100, 10), 0) << "the adjacent range is free";
  EXPECT_EQ(nvshmemx_buffer_register(p - 10, 10), 0) << "the adjacent range is free";

  err = stderr_of([&] { EXPECT_NE(nvshmemx_buffer_unregister(p + 1), 0); });
  EXPECT_NE(err.find("nvshmemx_buffer_unregister"), std::string::npos) << err;
  EXPECT_NE(err.find("not the start of a buffer registered"), std::string::npos) << err;
  EXPECT_EQ(nvshmemx_buffer_unregister(p), 0);
  EXPECT_NE(nvshmemx_buffer_unregister(p), 0) << "unregistered twice";
  EXPECT_EQ(nvshmemx_buffer_register(p + 10, 20), 0) << "the range is free again";

  EXPECT_EQ(nvshmemx_buffer_unregister_all(), 0);
  EXPECT_NE(nvshmemx_buffer_unregister(p + 100), 0) << "unregister_all dropped it";
  EXPECT_NE(nvshmemx_buffer_unregister(p - 10), 0) << "unregister_all dropped it";
  EXPECT_NE(nvshmemx_buffer_unregister(p + 10), 0) << "unregister_all dropped it";

  void *sym = nvshmem_malloc(256);
  ASSERT_NE(sym, nullptr);
  err = stderr_of([&] { EXPECT_NE(nvshmemx_buffer_register(sym, 256), 0); });
  EXPECT_NE(err.find("symmetric heap"), std::string::npos) << err;
  nvshmem_free(sym);
}

TEST(UserBuffer, RegisterSymmetricNeedsTheGpuHeap) {
  std::vector<char> buf(1 << 16);
  void *alias = nullptr;
  std::string err = stderr_of([&] { alias = nvshmemx_buffer_register_symmetric(buf.data(), buf.size(), 0); });
  EXPECT_EQ(alias, nullptr);
  EXPECT_NE(err.find("nvshmemx_buffer_register_symmetric"), std::string::npos) << err;
  EXPECT_NE(err.find("GPU memory"), std::string::npos) << err;
  err = stderr_of([&] { alias = nvshmemx_buffer_register_symmetric(buf.data(), buf.size(), 1); });
  EXPECT_EQ(alias, nullptr);
  EXPECT_NE(err.find("flags=1"), std::string::npos) << err;
  err = stderr_of([&] { EXPECT_NE(nvshmemx_buffer_unregister_symmetric(buf.data(), buf.size()), 0); });
  EXPECT_NE(err.find("not a buffer registered with nvshmemx_buffer_register_symmetric"), std::string::npos) << err;
  // The job still works after the refusals.
  void *sym = nvshmem_malloc(64);
  EXPECT_NE(sym, nullptr);
  nvshmem_free(sym);
}

// With NVSHMEM_DEBUG=INFO (the multipe.buffers.mc_ptr_info test) the call says why it is NULL.
TEST(Multicast, McPtrIsNullAndSaysWhy) {
  void *sym = nvshmem_malloc(128);
  ASSERT_NE(sym, nullptr);
  const std::string err = stderr_of([&] {
    EXPECT_EQ(nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, sym), nullptr);
    EXPECT_EQ(nvshmemx_mc_ptr(NVSHMEMX_TEAM_NODE, sym), nullptr);
  });
  const char *debug = getenv("NVSHMEM_DEBUG");
  const char *nvls = getenv("NVSHMEM_DISABLE_NVLS");
  if (debug && std::string(debug) == "INFO") {
    EXPECT_NE(err.find("nvshmemx_mc_ptr"), std::string::npos) << err;
    const bool disabled =
        nvls && nvls[0] != '0' && nvls[0] != 'n' && nvls[0] != 'N' && nvls[0] != 'f' && nvls[0] != 'F';
    EXPECT_NE(err.find(disabled ? "disabled by NVSHMEM_DISABLE_NVLS" : "does not use NVLink multicast"),
              std::string::npos)
        << err;
  }
  nvshmem_free(sym);
}
}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
