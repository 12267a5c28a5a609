// SPDX-License-Identifier: BSD-3-Clause
// RMA argument rules of the host and stream interfaces, on every PE:
//  - a transfer of 0 elements is a no-op whatever its pointers (OpenSHMEM 1.5 Annex C): every host
//    and stream RMA form (typed, sized, mem, nbi, iput/iget) called with NULL pointers, and with real
//    symmetric ones, to every PE, leaves every PE's random data and the local buffers as they were;
//  - a transfer of some bytes with a NULL local buffer fails with a message naming the call, the PE
//    and the argument (it used to crash with SIGSEGV).
// Runs under nvshmrun on either heap kind (the stream forms return before their heap-kind check).
#include <cuda_runtime_api.h>

#include "pe_test.hpp"

namespace {
using pe_test::random_bytes;
using pe_test::read_local;
using pe_test::write_local;

constexpr std::size_t kBytes = 4096;

// Every zero-length form from `dest`/`source` (NULL or symmetric and local) to `pe`.
void every_zero_length_form(void *sym, void *local, int pe) {
  const cudaStream_t stream = nullptr;
#define ZERO_TYPED(NAME, T)                                                                                    \
  nvshmem_##NAME##_put(static_cast<T *>(sym), static_cast<const T *>(local), 0, pe);                           \
  nvshmem_##NAME##_get(static_cast<T *>(local), static_cast<const T *>(sym), 0, pe);                           \
  nvshmem_##NAME##_put_nbi(static_cast<T *>(sym), static_cast<const T *>(local), 0, pe);                       \
  nvshmem_##NAME##_get_nbi(static_cast<T *>(local), static_cast<const T *>(sym), 0, pe);                       \
  nvshmem_##NAME##_iput(static_cast<T *>(sym), static_cast<const T *>(local), 1, 1, 0, pe);                    \
  nvshmem_##NAME##_iget(static_cast<T *>(local), static_cast<const T *>(sym), 1, 1, 0, pe);                    \
  nvshmemx_##NAME##_put_on_stream(static_cast<T *>(sym), static_cast<const T *>(local), 0, pe, stream);        \
  nvshmemx_##NAME##_get_on_stream(static_cast<T *>(local), static_cast<const T *>(sym), 0, pe, stream);        \
  nvshmemx_##NAME##_put_nbi_on_stream(static_cast<T *>(sym), static_cast<const T *>(local), 0, pe, stream);    \
  nvshmemx_##NAME##_get_nbi_on_stream(static_cast<T *>(local), static_cast<const T *>(sym), 0, pe, stream);    \
  nvshmemx_##NAME##_iput_on_stream(static_cast<T *>(sym), static_cast<const T *>(local), 1, 1, 0, pe, stream); \
  nvshmemx_##NAME##_iget_on_stream(static_cast<T *>(local), static_cast<const T *>(sym), 1, 1, 0, pe, stream);
  NVSHM_FOR_EACH_RMA_TYPE(ZERO_TYPED)
#undef ZERO_TYPED
#define ZERO_SIZED(BITS, T)                                         \
  nvshmem_put##BITS(sym, local, 0, pe);                             \
  nvshmem_get##BITS(local, sym, 0, pe);                             \
  nvshmem_put##BITS##_nbi(sym, local, 0, pe);                       \
  nvshmem_get##BITS##_nbi(local, sym, 0, pe);                       \
  nvshmem_iput##BITS(sym, local, 1, 1, 0, pe);                      \
  nvshmem_iget##BITS(local, sym, 1, 1, 0, pe);                      \
  nvshmemx_put##BITS##_on_stream(sym, local, 0, pe, stream);        \
  nvshmemx_get##BITS##_on_stream(local, sym, 0, pe, stream);        \
  nvshmemx_put##BITS##_nbi_on_stream(sym, local, 0, pe, stream);    \
  nvshmemx_get##BITS##_nbi_on_stream(local, sym, 0, pe, stream);    \
  nvshmemx_iput##BITS##_on_stream(sym, local, 1, 1, 0, pe, stream); \
  nvshmemx_iget##BITS##_on_stream(local, sym, 1, 1, 0, pe, stream);
  NVSHM_FOR_EACH_RMA_SIZE(ZERO_SIZED)
#undef ZERO_SIZED
  nvshmem_putmem(sym, local, 0, pe);
  nvshmem_getmem(local, sym, 0, pe);
  nvshmem_putmem_nbi(sym, local, 0, pe);
  nvshmem_getmem_nbi(local, sym, 0, pe);
  nvshmemx_putmem_on_stream(sym, local, 0, pe, stream);
  nvshmemx_getmem_on_stream(local, sym, 0, pe, stream);
  nvshmemx_putmem_nbi_on_stream(sym, local, 0, pe, stream);
  nvshmemx_getmem_nbi_on_stream(local, sym, 0, pe, stream);
}

TEST(ZeroLength, EveryFormIsANoOpWithAnyPointers) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  char *sym = static_cast<char *>(nvshmem_malloc(kBytes));
  ASSERT_NE(sym, nullptr);
  const auto mine = random_bytes(kBytes, me, 25);
  write_local(sym, mine.data(), kBytes);
  nvshmem_barrier_all();
  const std::vector<unsigned char> poison(kBytes, 0x5A);
  std::vector<unsigned char> local = poison;
  for (int pe = 0; pe < n; ++pe) {
    every_zero_length_form(nullptr, nullptr, pe);
    every_zero_length_form(sym + 64, nullptr, pe);
    every_zero_length_form(nullptr, local.data(), pe);
    every_zero_length_form(sym + 64, local.data(), pe);
  }
  // Past the heap and a PE out of range: a zero-length call checks neither.
  every_zero_length_form(sym + (std::size_t{1} << 40), local.data(), n);
  nvshmem_quiet();
  nvshmem_barrier_all();
  EXPECT_EQ(read_local(sym, kBytes), mine) << "a zero-length put changed PE " << me << "'s data";
  EXPECT_EQ(local, poison) << "a zero-length get wrote into the local buffer";
  nvshmem_barrier_all();
  nvshmem_free(sym);
}

TEST(NullLocalBufferDeathTest, FailsWithAMessageNamingCallPeAndArgument) {
  GTEST_FLAG_SET(death_test_style, "fast");
  const int me = nvshmem_my_pe(), peer = (me + 1) % nvshmem_n_pes();
  char *sym = static_cast<char *>(nvshmem_malloc(kBytes));
  ASSERT_NE(sym, nullptr);
  const std::string pe = "PE " + std::to_string(me) + "\\) in ";
  EXPECT_DEATH(nvshmem_putmem(sym, nullptr, 16, peer),
               pe + "nvshmem_putmem: source is NULL \\(a transfer of 16 bytes needs a local buffer\\)");
  EXPECT_DEATH(nvshmem_getmem_nbi(nullptr, sym, 8, peer), pe + "nvshmem_getmem_nbi: dest is NULL");
  EXPECT_DEATH(nvshmem_int_put(reinterpret_cast<int *>(sym), nullptr, 4, peer),
               pe + "nvshmem_int_put: source is NULL \\(a transfer of 16 bytes");
  EXPECT_DEATH(nvshmem_double_iget(nullptr, reinterpret_cast<double *>(sym), 1, 2, 3, peer),
               pe + "nvshmem_double_iget: dest is NULL \\(a transfer of 24 bytes");
  // The symmetric side is still checked first, as before.
  EXPECT_DEATH(nvshmem_putmem(nullptr, nullptr, 16, peer),
               pe + "nvshmem_putmem: dest=\\(nil\\) \\(16 bytes\\) is not inside");
  nvshmem_barrier_all();
  nvshmem_free(sym);
}

}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
