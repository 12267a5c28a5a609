// SPDX-License-Identifier: BSD-3-Clause
/* Device building blocks: execution scopes, PTX memory operations with explicit scope and
 * semantics (docs/memory-model.md says which operation uses which and why), symmetric-address
 * translation and the group copy loop. Internal: names live in namespace nvshm_dev. */
#ifndef NVSHMEM_DETAIL_DEVICE_PRIMITIVES_CUH
#define NVSHMEM_DETAIL_DEVICE_PRIMITIVES_CUH

#include "nvshmem_detail/device/float_atomic.cuh"
#include "nvshmem_detail/device_state.h"
#include "nvshmem_detail/types.h"

#include <cstdio>
#include <type_traits>

namespace nvshm_dev {

enum class Scope { thread, warp, block, warpgroup };

/* The threads that call a scoped operation together, and how they split work. */
template <Scope S>
struct Group;
template <>
struct Group<Scope::thread> {
  __device__ static int rank() { return 0; }
  __device__ static int size() { return 1; }
  __device__ static void sync() {}
};
template <>
struct Group<Scope::warp> {
  __device__ static int rank() {
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return static_cast<int>(lane);
  }
  __device__ static int size() { return 32; }
  __device__ static void sync() { __syncwarp(); }
};
template <>
struct Group<Scope::block> {
  /* Read through asm volatile, as the warp's lane id: the compiler can neither hoist the rank and
   * size (and the 64-bit sizes and warp offsets derived from them) out of the caller's loops nor keep
   * them in registers from one call to the next; ptxas still places the reads (docs/registers.md). */
  __device__ static int rank() {
    unsigned x, y, z, nx, ny;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(x));
    asm volatile("mov.u32 %0, %%tid.y;" : "=r"(y));
    asm volatile("mov.u32 %0, %%tid.z;" : "=r"(z));
    asm volatile("mov.u32 %0, %%ntid.x;" : "=r"(nx));
    asm volatile("mov.u32 %0, %%ntid.y;" : "=r"(ny));
    return static_cast<int>(x + nx * (y + ny * z));
  }
  __device__ static int size() {
    unsigned nx, ny, nz;
    asm volatile("mov.u32 %0, %%ntid.x;" : "=r"(nx));
    asm volatile("mov.u32 %0, %%ntid.y;" : "=r"(ny));
    asm volatile("mov.u32 %0, %%ntid.z;" : "=r"(nz));
    return static_cast<int>(nx * ny * nz);
  }
  __device__ static void sync() { __syncthreads(); }
};
/* Four warps: block ranks [128k, 128k + 128) form warpgroup k. The block size must be a multiple of
 * 128. Warpgroup k syncs on the named barrier kWarpgroupBarrier0 + k with 128 threads (barrier.sync,
 * the form of bar.sync that lets the threads of a warp arrive from divergent code):
 * ids 8..15, clear of the ids below 8 that libraries such as CUTLASS reserve for themselves; a kernel
 * must not use those ids for its own named barriers while a warpgroup operation runs. */
constexpr unsigned kWarpgroupBarrier0 = 8;
template <>
struct Group<Scope::warpgroup> {
  __device__ static int index() { return Group<Scope::block>::rank() / 128; }
  __device__ static int rank() { return Group<Scope::block>::rank() % 128; }
  __device__ static int size() { return 128; }
  __device__ static void sync() {
    asm volatile("barrier.sync %0, 128;" ::"r"(kWarpgroupBarrier0 + static_cast<unsigned>(index())) : "memory");
  }
};

__device__ __forceinline__ const nvshm_device_state &state() {
  return nvshm_device_state_d;
}

/* The state as each collective (and each remote call, proxy.cuh) reads it: the same constant memory through
 * an index the compiler cannot see is 0, so that it cannot hoist the loads out of the caller's loop and
 * keep them in registers through every call of the loop; ptxas still sees constant loads at fixed
 * addresses (docs/registers.md, rule 7). */
__device__ __forceinline__ const nvshm_device_state &call_state() {
  unsigned zero;
  asm volatile("mov.u32 %0, 0;" : "=r"(zero));
  return (&nvshm_device_state_d)[zero];
}

/* Called by the synchronising routines (quiet, barriers) when the state says the heap is not in GPU
 * memory: the library was not initialised, the heap is in host memory (NVSHMEM_HEAP_KIND=SYSMEM), or
 * a driver-API module was loaded without nvshmemx_cumodule_init. RMA and atomics do not check (a
 * branch there costs ~40% of small-message bandwidth); their translation faults instead. */
__device__ __noinline__ static void fail_no_device_heap() {
  printf(
      "nvshmem device call on PE %d: the symmetric heap is not in GPU memory here (no nvshmem_init, a heap in "
      "host memory with NVSHMEM_HEAP_KIND=SYSMEM, or a module loaded without nvshmemx_cumodule_init)\n",
      state().my_pe);
  __trap();
}
__device__ __forceinline__ void require_device_heap() {
  if (!state().heap_on_device) fail_no_device_heap();
}

__device__ __forceinline__ char *heap_base() {
  return reinterpret_cast<char *>(state().heap_base_code ^ NVSHM_HEAP_BASE_MASK);
}

/* ---- device argument checks (docs/device-review.md), off unless the unit is compiled with
 * -DNVSHM_DEVICE_CHECKS: then every symmetric-address translation checks the PE and the address, and every
 * wait traps after NVSHM_DEVICE_WAIT_LIMIT_S seconds, each with a message naming the PE and the cause.
 * Off, the checks are not compiled at all: the register budget (docs/registers.md) is measured without them. */
#ifdef NVSHM_DEVICE_CHECKS
#ifndef NVSHM_DEVICE_WAIT_LIMIT_S
#define NVSHM_DEVICE_WAIT_LIMIT_S 60
#endif
__device__ __noinline__ static void fail_bad_pe(int pe) {
  printf("nvshmem device check on PE %d: PE %d is out of range (the job has %d PEs)\n", state().my_pe, pe,
         state().n_pes);
  __trap();
}
__device__ __noinline__ static void fail_not_symmetric(const void *sym) {
  const nvshm_device_state &st = state();
  printf("nvshmem device check on PE %d: %p is not a symmetric address (the heap here is [%p, %p))\n", st.my_pe, sym,
         static_cast<const void *>(st.my_heap), static_cast<const void *>(st.my_heap + st.heap_size));
  __trap();
}
__device__ __noinline__ static void fail_wait(const void *ivar) {
  printf("nvshmem device check on PE %d: a wait on %p did not end within %d s\n", state().my_pe, ivar,
         NVSHM_DEVICE_WAIT_LIMIT_S);
  __trap();
}
__device__ __forceinline__ void check_peer(const void *sym, int pe) {
  const nvshm_device_state &st = state();
  if (pe < 0 || pe >= st.n_pes) fail_bad_pe(pe);
  const char *p = static_cast<const char *>(sym);
  if (p < st.my_heap || p >= st.my_heap + st.heap_size) fail_not_symmetric(sym);
}
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
/* One per wait loop: check() traps once the wait has lasted longer than the limit. */
struct WaitClock {
  unsigned long long start;
  __device__ WaitClock() : start(global_ns()) {}
  __device__ void check(const void *ivar) const {
    if (global_ns() - start > NVSHM_DEVICE_WAIT_LIMIT_S * 1000000000ull) fail_wait(ivar);
  }
};
#else
__device__ __forceinline__ void check_peer(const void *, int) {}
struct WaitClock {
  __device__ WaitClock() {}
  __device__ void check(const void *) const {}
};
#endif

/* PE `pe`'s address of the symmetric address `sym`: base arithmetic, no branch (unless checked, above). */
template <typename T>
__device__ __forceinline__ T *peer_address(T *sym, int pe) {
  check_peer(sym, pe);
  const nvshm_device_state &st = state();
  const char *p = reinterpret_cast<const char *>(sym);
  return reinterpret_cast<T *>(
      const_cast<char *>(p - st.my_heap + heap_base() + static_cast<size_t>(pe) * st.heap_stride));
}

/* ---- fences ---- */
__device__ __forceinline__ void fence_acq_rel_sys() {
  asm volatile("fence.acq_rel.sys;" ::: "memory");
}
__device__ __forceinline__ void fence_sc_sys() {
  asm volatile("fence.sc.sys;" ::: "memory");
}

/* ---- scalar loads and stores with explicit semantics at system scope ---- */
__device__ __forceinline__ uint32_t load_relaxed(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.relaxed.sys.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint64_t load_relaxed(const uint64_t *p) {
  uint64_t v;
  asm volatile("ld.relaxed.sys.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed(uint32_t *p, uint32_t v) {
  asm volatile("st.relaxed.sys.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void store_relaxed(uint64_t *p, uint64_t v) {
  asm volatile("st.relaxed.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void store_release(uint64_t *p, uint64_t v) {
  asm volatile("st.release.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void max_relaxed(uint64_t *p, uint64_t v) {
  asm volatile("red.relaxed.sys.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void max_release(uint64_t *p, uint64_t v) {
  asm volatile("red.release.sys.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void add_relaxed(uint64_t *p, uint64_t v) {
  asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void add_release(uint64_t *p, uint64_t v) {
  asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* Scalar loads of 1-, 2-, 4- or 8-byte values with explicit semantics:
 * - weak: a plain `ld.global` the hardware may overlap with its neighbours (nvshmem_g); in an asm
 *   statement so that the compiler never merges or hoists it out of a loop;
 * - relaxed: `ld.relaxed.sys`, a strong load (atomic_fetch);
 * - acquire: `ld.acquire.sys`, the polling load of every wait and test: reading a value that a
 *   release (or an atomic after it) wrote makes the writer's earlier stores visible, without the
 *   cost of a separate system fence. */
enum class Load { weak, relaxed, acquire };
#define NVSHM_LOAD_ASM_(SUFFIX, REG, VAR)                                                            \
  do {                                                                                               \
    if constexpr (L == Load::weak)                                                                   \
      asm volatile("ld.global." SUFFIX " %0, [%1];" : "=" REG(VAR) : "l"(p));                        \
    else if constexpr (L == Load::relaxed)                                                           \
      asm volatile("ld.relaxed.sys.global." SUFFIX " %0, [%1];" : "=" REG(VAR) : "l"(p) : "memory"); \
    else                                                                                             \
      asm volatile("ld.acquire.sys.global." SUFFIX " %0, [%1];" : "=" REG(VAR) : "l"(p) : "memory"); \
  } while (0)
template <Load L, typename T>
__device__ __forceinline__ T load(const T *p) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "scalar of 1-8 bytes");
  T v;
  if constexpr (sizeof(T) == 1) {
    uint16_t bits;
    NVSHM_LOAD_ASM_("u8", "h", bits);
    const uint8_t byte = static_cast<uint8_t>(bits);
    memcpy(&v, &byte, 1);
  } else if constexpr (sizeof(T) == 2) {
    uint16_t bits;
    NVSHM_LOAD_ASM_("b16", "h", bits);
    memcpy(&v, &bits, 2);
  } else if constexpr (sizeof(T) == 4) {
    uint32_t bits;
    NVSHM_LOAD_ASM_("b32", "r", bits);
    memcpy(&v, &bits, 4);
  } else {
    uint64_t bits;
    NVSHM_LOAD_ASM_("b64", "l", bits);
    memcpy(&v, &bits, 8);
  }
  return v;
}
#undef NVSHM_LOAD_ASM_

/* A strong (relaxed, system-scope) store of a 4- or 8-byte value, used by `p` so that a later
 * release or fence orders it like any other store. Other sizes use a plain store. */
template <typename T>
__device__ __forceinline__ void store_scalar(T *p, T v) {
  if constexpr (sizeof(T) == 4) {
    uint32_t bits;
    memcpy(&bits, &v, 4);
    store_relaxed(reinterpret_cast<uint32_t *>(p), bits);
  } else if constexpr (sizeof(T) == 8) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    store_relaxed(reinterpret_cast<uint64_t *>(p), bits);
  } else {
    *reinterpret_cast<volatile T *>(p) = v;
  }
}

/* ---- group copy: the group moves n words, each thread U words in flight ----
 * A thread moves chunks of U consecutive words, both pointers advancing by a chunk: a chunk's loads wait on
 * one 64-bit add, not on an index scaled and added to each base (behind the remote check's inline branch the
 * indexed loop took 4 % more per chunk than without that branch: a thread's 512 B-32 KiB put + quiet,
 * docs/history/benchmarks.md, session 40). A warp, warpgroup or block moves chunks of U * 32 words: lane l of
 * a chunk moves its words l, l + 32, ..., so every load and store of a warp covers 32 consecutive words
 * (coalesced), and the U accesses of a lane sit at fixed offsets from one source and one destination pointer
 * (immediate offsets, no address per word). A group's warps take chunks in turn; the words after the last
 * whole chunk go one per thread. This keeps the loop near 30 registers (docs/registers.md). Threads of a
 * partial last warp (a block size that is not a multiple of 32) take part in the tail only; a block of fewer
 * than 32 threads copies word by word. */
template <typename W, int U>
__device__ __forceinline__ void copy_words_thread(W *dst, const W *src, size_t n) {
  const W *s = src;
  W *d = dst;
#pragma unroll 1
  for (size_t chunks = n / U; chunks != 0; --chunks, s += U, d += U) {
    W v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = s[u];
#pragma unroll
    for (int u = 0; u < U; ++u) d[u] = v[u];
  }
  const size_t tail = n % U;
#pragma unroll 1
  for (size_t i = 0; i < tail; ++i) d[i] = s[i];
}
template <Scope S, typename W, int U = 4>
__device__ __forceinline__ void copy_words(W *dst, const W *src, size_t n) {
  if constexpr (S == Scope::thread) {
    copy_words_thread<W, U>(dst, src, n);
  } else {
    constexpr int L = 32;
    constexpr size_t kChunk = static_cast<size_t>(U) * L;
    const int rank = Group<S>::rank(), size = Group<S>::size();
    const int units = size / L;
    // A block of fewer than 32 threads has no whole warp: every word goes by the tail loop.
    const size_t whole = units > 0 ? n / kChunk * kChunk : 0;
    const size_t step = static_cast<size_t>(units) * kChunk;
#pragma unroll 1
    for (size_t i = rank < units * L ? static_cast<size_t>(rank / L) * kChunk + rank % L : whole; i < whole;
         i += step) {
      W v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = src[i + u * L];
#pragma unroll
      for (int u = 0; u < U; ++u) dst[i + u * L] = v[u];
    }
    // The tail: shorter than a chunk, except in a block of fewer than 32 threads (all of it).
    const W *const src_tail = src + whole;
    W *const dst_tail = dst + whole;
    const size_t tail = n - whole;
#pragma unroll 1
    for (size_t i = static_cast<size_t>(rank); i < tail; i += static_cast<size_t>(size)) dst_tail[i] = src_tail[i];
  }
}

/* A copy whose pointers or size are not all 16-byte aligned: a byte head up to the first aligned word
 * of the destination, the widest word both pointers share and the size holds (16, 8, 4 or 1 bytes), a
 * byte tail. So a transfer shorter than 16 bytes between aligned buffers (an 8-byte put: a double, a
 * signal word) is one 8- or 4-byte access, not a byte loop: at thread scope each byte is a load and a
 * store in turn. One word per thread is in flight: the loops stay within the aligned path's registers
 * (docs/registers.md). */
template <Scope S>
__device__ __forceinline__ void copy_unaligned(char *d, const char *s, size_t n) {
  const uintptr_t mis = reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(s);
  const size_t word = (mis & 15) == 0 && n >= 16 ? 16 : (mis & 7) == 0 && n >= 8 ? 8 : (mis & 3) == 0 && n >= 4 ? 4 : 1;
  size_t head = 0, words = 0;
  if (word > 1) {  // e.g. 8 bytes at an 8-byte boundary: one word, not 8 bytes one by one
    head = (word - (reinterpret_cast<uintptr_t>(d) & (word - 1))) & (word - 1);
    if (head > n) head = n;
    words = (n - head) / word;
  }
  copy_words<S, char, 1>(d, s, head);
  char *wd = d + head;
  const char *ws = s + head;
  switch (word) {
    case 16:
      copy_words<S, int4, 1>(reinterpret_cast<int4 *>(wd), reinterpret_cast<const int4 *>(ws), words);
      break;
    case 8:
      copy_words<S, uint64_t, 1>(reinterpret_cast<uint64_t *>(wd), reinterpret_cast<const uint64_t *>(ws), words);
      break;
    case 4:
      copy_words<S, uint32_t, 1>(reinterpret_cast<uint32_t *>(wd), reinterpret_cast<const uint32_t *>(ws), words);
      break;
    default:
      break;
  }
  const size_t done = head + words * word;
  copy_words<S, char, 1>(d + done, s + done, n - done);
}

/* Copy n bytes, U words in flight per thread: 16-byte words when both pointers and the size are
 * 16-byte aligned (the common case: symmetric buffers are); a thread's copy whose pointers and size are
 * 8-byte aligned (a double, a long, a signal word) in 8-byte words, without copy_unaligned's head and word
 * choice, which a put behind the remote check computes on every call of the caller's loop: a thread's
 * 8-byte put + quiet took 0.81 us so, 0.92 through copy_unaligned (docs/registers.md, session 27); else
 * copy_unaligned. */
template <Scope S, int U = 4>
__device__ __forceinline__ void copy_bytes(void *dst, const void *src, size_t n) {
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  const uintptr_t bits = reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s) | n;
  if ((bits & 15) == 0)
    copy_words<S, int4, U>(reinterpret_cast<int4 *>(d), reinterpret_cast<const int4 *>(s), n / 16);
  else if (S == Scope::thread && (bits & 7) == 0)
    copy_words<S, uint64_t, 1>(reinterpret_cast<uint64_t *>(d), reinterpret_cast<const uint64_t *>(s), n / 8);
  else
    copy_unaligned<S>(d, s, n);
}

/* The group's rank read so that the compiler may hoist it out of the caller's loop (threadIdx and
 * blockDim, not Group<block>'s asm volatile reads): point-to-point fast paths use it, where a loop of
 * block puts otherwise reads five special registers on every call before its first access
 * (docs/registers.md, rule 8). */
template <Scope S>
__device__ __forceinline__ int hoistable_rank() {
  if constexpr (S == Scope::block)
    return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  else if constexpr (S == Scope::warpgroup)
    return hoistable_rank<Scope::block>() % 128;
  else
    return Group<S>::rank();
}

/* copy_bytes for point-to-point RMA: a group's aligned transfer of at most one 16-byte word per thread
 * (a small put or get of a warp or block) is one access per thread, without the chunk arithmetic that
 * every thread of the group would otherwise run on every call (docs/registers.md, rule 8); a thread's
 * 8-byte-aligned transfer of 8 bytes (a double, a long, a signal word) is one 8-byte access (6% off a
 * thread's 8-byte put + quiet, docs/history/benchmarks.md, session 28). The test is
 * one predicate (`&`, not `&&`: one branch a call). In a whole-program build the block size is read so
 * that the compiler computes the test before the caller's loop; with -rdc that cost block put loops 5
 * registers (53, over the budget), so there it stays an asm volatile read. Keeping copy_words' four
 * words in flight for transfers under one word per thread, or moving longer ones with the rank and size
 * hoisted, measured slower (docs/history/benchmarks.md, session 20). */
template <Scope S>
__device__ __forceinline__ void copy_bytes_rma(void *dst, const void *src, size_t n) {
  if constexpr (S != Scope::thread) {
    const size_t words = n / 16, rank = static_cast<size_t>(hoistable_rank<S>());
    const bool aligned = ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | n) & 15) == 0;
#ifdef __CUDACC_RDC__
    const size_t size = static_cast<size_t>(Group<S>::size());
#else
    const size_t size = S == Scope::block ? static_cast<size_t>(blockDim.x * blockDim.y * blockDim.z)
                                          : static_cast<size_t>(Group<S>::size());
#endif
    if (__builtin_expect(aligned & (words <= size), 1)) {
      if (rank < words) static_cast<int4 *>(dst)[rank] = static_cast<const int4 *>(src)[rank];
      return;
    }
  } else if ((((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 7) | (n ^ 8)) == 0) {
    *static_cast<uint64_t *>(dst) = *static_cast<const uint64_t *>(src);
    return;
  }
  copy_bytes<S>(dst, src, n);
}

/* ---- comparisons for wait and test (the host's waits on a host heap use it too) ---- */
template <typename T>
__host__ __device__ __forceinline__ bool compare(T value, int cmp, T target) {
  switch (cmp) {
    case NVSHMEM_CMP_EQ:
      return value == target;
    case NVSHMEM_CMP_NE:
      return value != target;
    case NVSHMEM_CMP_GT:
      return value > target;
    case NVSHMEM_CMP_LE:
      return value <= target;
    case NVSHMEM_CMP_LT:
      return value < target;
    case NVSHMEM_CMP_GE:
      return value >= target;
    default:
      return false;
  }
}

/* Spin on a local word with acquire loads until the comparison holds: later reads see what the
 * writer released before its store. Returns the value seen. */
template <typename T>
__device__ __forceinline__ T wait_until(T *ivar, int cmp, T target) {
  T value;
  const WaitClock clock;
  while (!compare(value = load<Load::acquire>(ivar), cmp, target)) clock.check(ivar);
  return value;
}

/* ---- strided group copy: element i moves src[i * sst] to dst[i * dst_stride] ---- */
template <Scope S, typename T>
__device__ __forceinline__ void copy_strided(T *dst, ptrdiff_t dst_stride, const T *src, ptrdiff_t src_stride,
                                             size_t n) {
  for (size_t i = static_cast<size_t>(Group<S>::rank()); i < n; i += static_cast<size_t>(Group<S>::size()))
    dst[static_cast<ptrdiff_t>(i) * dst_stride] = src[static_cast<ptrdiff_t>(i) * src_stride];
}

/* ---- atomics: every AMO type is 4 or 8 bytes, but half (2 bytes: fetch, set and swap only); the
 * operation runs on the unsigned word of that size (two's complement makes add, and/or/xor and
 * compare-swap the same for signed types) ---- */
template <typename T>
using amo_word_t =
    typename std::conditional<sizeof(T) == 2, unsigned short,
                              typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type>::type;
template <typename T>
__device__ __forceinline__ amo_word_t<T> to_word(T v) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "AMO types are 2, 4 or 8 bytes");
  amo_word_t<T> w;
  memcpy(&w, &v, sizeof(T));
  return w;
}
template <typename T>
__device__ __forceinline__ T from_word(amo_word_t<T> w) {
  T v;
  memcpy(&v, &w, sizeof(T));
  return v;
}

/* T's zero, for every AMO type: value-initialised, so half needs no conversion from int (it compiles
 * with __CUDA_NO_HALF_CONVERSIONS__). */
template <typename T>
__device__ __forceinline__ T zero() {
  return T{};
}

enum class Amo {
  inc,
  fetch_inc,
  add,
  fetch_add,
  compare_swap,
  fetch,
  set,
  swap,
  and_,
  fetch_and,
  or_,
  fetch_or,
  xor_,
  fetch_xor
};

/* A non-fetching atomic update: `red.relaxed.sys`, which the issuing thread does not wait for. */
template <Amo Op, typename W>
__device__ __forceinline__ void reduce_relaxed(W *p, W v) {
  static_assert(sizeof(W) == 4 || sizeof(W) == 8, "AMO words are 4 or 8 bytes");
#define NVSHM_RED_(OPNAME)                                                                                 \
  if constexpr (sizeof(W) == 4)                                                                            \
    asm volatile("red.relaxed.sys.global." OPNAME "32 [%0], %1;" ::"l"(p), "r"(static_cast<uint32_t>(v))); \
  else                                                                                                     \
    asm volatile("red.relaxed.sys.global." OPNAME "64 [%0], %1;" ::"l"(p), "l"(static_cast<uint64_t>(v)))
  if constexpr (Op == Amo::inc || Op == Amo::add) {
    NVSHM_RED_("add.u");
  } else if constexpr (Op == Amo::and_) {
    NVSHM_RED_("and.b");
  } else if constexpr (Op == Amo::or_) {
    NVSHM_RED_("or.b");
  } else {
    static_assert(Op == Amo::xor_, "non-fetching operations only");
    NVSHM_RED_("xor.b");
  }
#undef NVSHM_RED_
}

/* One atomic on `pe`'s copy of `dest`: system-scope and relaxed. Non-fetching forms are `red` (or a
 * relaxed store for set) and return T{}; fetching forms are `atom`. */
template <Amo Op, typename T>
__device__ __forceinline__ T amo(T *dest, T value, T cond, int pe) {
  using W = amo_word_t<T>;
  W *p = reinterpret_cast<W *>(peer_address(dest, pe));
  const W v = to_word(value);
  if constexpr (Op == Amo::inc) {
    reduce_relaxed<Op>(p, W(1));
    return T{};
  } else if constexpr (Op == Amo::add || Op == Amo::and_ || Op == Amo::or_ || Op == Amo::xor_) {
    reduce_relaxed<Op>(p, v);
    return T{};
  } else if constexpr (Op == Amo::set) {
    store_scalar(p, v);
    return T{};
  } else if constexpr (Op == Amo::fetch_inc) {
    return from_word<T>(atomicAdd_system(p, W(1)));
  } else if constexpr (Op == Amo::fetch_add) {
    return from_word<T>(atomicAdd_system(p, v));
  } else if constexpr (Op == Amo::compare_swap) {
    return from_word<T>(atomicCAS_system(p, to_word(cond), v));
  } else if constexpr (Op == Amo::fetch) {
    return load<Load::relaxed>(reinterpret_cast<const T *>(p));
  } else if constexpr (Op == Amo::swap) {
    if constexpr (sizeof(T) == 2)
      return from_word<T>(exchange16_sys(p, v));
    else
      return from_word<T>(atomicExch_system(p, v));
  } else if constexpr (Op == Amo::fetch_and) {
    return from_word<T>(atomicAnd_system(p, v));
  } else if constexpr (Op == Amo::fetch_or) {
    return from_word<T>(atomicOr_system(p, v));
  } else {
    static_assert(Op == Amo::fetch_xor, "every AMO is handled");
    return from_word<T>(atomicXor_system(p, v));
  }
}

/* ---- wait and test over arrays: `status` NULL means every element is active, a non-zero entry
 * excludes its element; the target is one value or one per element ---- */
template <typename T>
struct OneTarget {
  T value;
  __device__ T operator()(size_t) const { return value; }
};
template <typename T>
struct EachTarget {
  const T *values;
  __device__ T operator()(size_t i) const { return values[i]; }
};
__device__ __forceinline__ bool active(const int *status, size_t i) {
  return status == nullptr || status[i] == 0;
}

/* Test and wait are acquire operations: every word is read with an acquire load
 * (docs/memory-model.md). */
template <typename T>
__device__ __forceinline__ int test(T *ivar, int cmp, T target) {
  return compare(load<Load::acquire>(ivar), cmp, target) ? 1 : 0;
}
template <typename T, typename Target>
__device__ __forceinline__ int test_all(T *ivars, size_t n, const int *status, int cmp, Target target) {
  for (size_t i = 0; i < n; ++i)
    if (active(status, i) && !compare(load<Load::acquire>(ivars + i), cmp, target(i))) return 0;
  return 1;
}
template <typename T, typename Target>
__device__ __forceinline__ size_t test_any(T *ivars, size_t n, const int *status, int cmp, Target target) {
  for (size_t i = 0; i < n; ++i) {
    if (active(status, i) && compare(load<Load::acquire>(ivars + i), cmp, target(i))) return i;
  }
  return SIZE_MAX;
}
template <typename T, typename Target>
__device__ __forceinline__ size_t test_some(T *ivars, size_t n, size_t *indices, const int *status, int cmp,
                                            Target target) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i)
    if (active(status, i) && compare(load<Load::acquire>(ivars + i), cmp, target(i))) indices[count++] = i;
  return count;
}
__device__ __forceinline__ bool any_active(const int *status, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (active(status, i)) return true;
  return false;
}
template <typename T, typename Target>
__device__ __forceinline__ void wait_all(T *ivars, size_t n, const int *status, int cmp, Target target) {
  const WaitClock clock;
  for (size_t i = 0; i < n; ++i)
    if (active(status, i))
      while (!compare(load<Load::acquire>(ivars + i), cmp, target(i))) clock.check(ivars + i);
}
template <typename T, typename Target>
__device__ __forceinline__ size_t wait_any(T *ivars, size_t n, const int *status, int cmp, Target target) {
  if (!any_active(status, n)) return SIZE_MAX;
  size_t i;
  const WaitClock clock;
  while ((i = test_any(ivars, n, status, cmp, target)) == SIZE_MAX) clock.check(ivars);
  return i;
}
template <typename T, typename Target>
__device__ __forceinline__ size_t wait_some(T *ivars, size_t n, size_t *indices, const int *status, int cmp,
                                            Target target) {
  if (!any_active(status, n)) return 0;
  size_t count;
  const WaitClock clock;
  while ((count = test_some(ivars, n, indices, status, cmp, target)) == 0) clock.check(ivars);
  return count;
}

}  // namespace nvshm_dev

#endif /* NVSHMEM_DETAIL_DEVICE_PRIMITIVES_CUH */
