// SPDX-License-Identifier: BSD-3-Clause
// User buffers, the multicast pointer and their errors across real processes (issue 11), on the
// CPU backend (the CTest sets NVSHMEM_HEAP_KIND=SYSMEM, so the GPU machine runs it the same way):
// registered host buffers as put sources and get destinations with real data (also strided, and
// put_nbi ordered before a signal; again forced remote, multipe.remote.buffers, where the remote engine
// maps them), every registration error with its message, nvshmemx_buffer_register_symmetric refused on
// a host heap, and nvshmemx_mc_ptr returning NULL.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

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

// Strided forms and put_nbi + fence + signal with registered local buffers (forced remote: every peer through the
// remote engine, which maps registered buffers; docs/remote.md).
TEST(UserBuffer, RegisteredBuffersInStridedAndSignalForms) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr std::size_t kElems = 1000;
  auto *sym = static_cast<uint32_t *>(nvshmem_malloc(3 * kElems * sizeof(uint32_t)));
  auto *signal = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  ASSERT_NE(sym, nullptr);
  ASSERT_NE(signal, nullptr);
  poison_local(sym, 3 * kElems * sizeof(uint32_t));
  std::vector<uint32_t> source(2 * kElems), dest(2 * kElems, 0xA5A5A5A5u);
  auto value = [](int pe, std::size_t i) { return static_cast<uint32_t>(pe * 1000003 + i * 7 + 1); };
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = value(me, i);
  ASSERT_EQ(nvshmemx_buffer_register(source.data(), source.size() * sizeof(uint32_t)), 0);
  ASSERT_EQ(nvshmemx_buffer_register(dest.data(), dest.size() * sizeof(uint32_t)), 0);
  nvshmem_barrier_all();

  // iput: every other source element into right's first kElems (dst stride 1); put_nbi of the first
  // kElems source elements into right's last third, fence, then right's signal set to my PE + 1.
  nvshmem_uint32_iput(sym, source.data(), 1, 2, kElems, right);
  nvshmem_putmem_nbi(sym + 2 * kElems, source.data(), kElems * sizeof(uint32_t), right);
  nvshmem_fence();
  nvshmemx_signal_op(signal, static_cast<uint64_t>(me + 1), NVSHMEM_SIGNAL_SET, right);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (nvshmem_uint64_atomic_fetch(signal, me) != static_cast<uint64_t>(left + 1)) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the signal from PE " << left << " did not come in 30 s";
    std::this_thread::yield();
  }
  // The data put before the fence has arrived with the signal (read before the barrier).
  const std::vector<unsigned char> early = read_local(sym + 2 * kElems, kElems * sizeof(uint32_t));
  EXPECT_EQ(reinterpret_cast<const uint32_t *>(early.data())[kElems - 1], value(left, kElems - 1));
  nvshmem_barrier_all();
  const std::vector<unsigned char> got = read_local(sym, 3 * kElems * sizeof(uint32_t));
  const auto *words = reinterpret_cast<const uint32_t *>(got.data());
  std::size_t wrong_iput = 0, wrong_signal = 0;
  for (std::size_t i = 0; i < kElems; ++i) {
    wrong_iput += words[i] != value(left, 2 * i);
    wrong_signal += words[2 * kElems + i] != value(left, i);
  }
  EXPECT_EQ(wrong_iput, 0u) << "iput from a registered source";
  EXPECT_EQ(wrong_signal, 0u) << "put_nbi, fence, signal from a registered source";

  // iget: right's first kElems into every other element of the registered destination.
  nvshmem_uint32_iget(dest.data(), sym, 2, 1, kElems, right);
  std::size_t wrong_iget = 0, touched = 0;
  for (std::size_t i = 0; i < kElems; ++i) {
    wrong_iget += dest[2 * i] != value(me, 2 * i);  // right holds what I put there
    touched += dest[2 * i + 1] != 0xA5A5A5A5u;
  }
  EXPECT_EQ(wrong_iget, 0u) << "iget into a registered destination";
  EXPECT_EQ(touched, 0u) << "iget wrote between its strided elements";

  EXPECT_EQ(nvshmemx_buffer_unregister_all(), 0);
  nvshmem_barrier_all();
  nvshmem_free(signal);
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
