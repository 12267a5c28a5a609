// SPDX-License-Identifier: BSD-3-Clause
/* The device interface, inline (NVSHMEM docs: the CUDA kernel interface of each routine family).
 * Functions declared host+device in host_api.h get their device definition here, in the device pass
 * only; device-only functions (`_warp`, `_block`, waits, put-with-signal, atomics) are defined here.
 * Scope rules: plain names are called by one thread; `_warp` by every thread of a warp with the same
 * arguments; `_block` by every thread of the block with the same arguments. */
#ifndef NVSHMEM_DETAIL_DEVICE_API_CUH
#define NVSHMEM_DETAIL_DEVICE_API_CUH

#include "nvshmem_detail/device/primitives.cuh"
#include "nvshmem_detail/device/proxy.cuh"
#include "nvshmem_detail/host_api.h"

namespace nvshm_dev {

/* RMA regions of a block (NVSHMEM 3.8): one per block, kept in the block's shared memory (32 bytes in every
 * kernel that uses them). A record counts only for the launch that wrote it (its launch key, below), so
 * shared memory left over from an earlier kernel never looks like an open region, and no table can fill up.
 * Handles count up per block within a launch, so a closed region's handle is refused. */
constexpr uint32_t kRegionHints = NVSHMEMX_REGION_HINT_BATCH_RMA;
struct RegionSlot {
  uint64_t grid;    // launch_key() of the launch that wrote the record
  uint64_t handle;  // the open (or last) region's handle
  uint32_t hints, open;
  int status;  // the result thread 0 hands the block
};
/* Unique per launch among the processes that share the GPU: %gridid counts launches per context, so under MPS
 * the other PE's process can run the same kernel with the same %gridid, and a block of ours can find its
 * block's records in the shared memory it leaves; the state's launch_salt, random per process, tells them
 * apart. Never 0 (a released record) for grid ids below 2^31. */
__device__ __forceinline__ uint64_t launch_key() {
  uint64_t id;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(id));
  return id ^ state().launch_salt;
}
__device__ __forceinline__ RegionSlot &region_slot() {
  __shared__ RegionSlot slot;
  return slot;
}

/* The TMA data path (NVSHMEM 3.7, docs/tma.md). The shared memory a block lent with nvshmemx_give_smem is
 * recorded like a region (in the block's shared memory, valid for the launch that wrote it), so a block
 * that lent nothing, or lent it in an earlier kernel, never finds a record. */
struct SmemSlot {
  uint32_t grid;   // low half of the launch_key() of the launch that lent it
  uint32_t base;   // shared-window address, 16-byte aligned
  uint32_t bytes;  // bytes from base; 0 when NVSHMEM_TMA_POLICY leaves TMA off
};
__device__ __forceinline__ SmemSlot &smem_slot() {
  __shared__ SmemSlot slot;
  return slot;
}
/* The mbarrier (padded to 16 bytes), then two staging buffers of at least 4 KiB. */
constexpr uint32_t kTmaBarrierBytes = 16, kTmaMinBytes = kTmaBarrierBytes + 2 * 4096;

/* The block-scope puts and gets take the TMA path only in translation units compiled with
 * NVSHM_TMA_DATA_PATH defined (before including nvshmem.h): its code costs a block put loop 4 registers
 * with -rdc (52 instead of the budget's 48, docs/registers.md), so loads and stores stay the default until
 * TMA is measured faster (docs/tma.md). */
#if defined(NVSHM_TMA_DATA_PATH) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* One thread copies n bytes (addresses and n 16-byte aligned) from src to dst through the lent memory
 * with bulk copies: global to shared (completion counted on the mbarrier), then shared to global (a bulk
 * group), the two buffers in turn, so that loading a chunk overlaps storing the one before. Returns when
 * every store is complete: the source may be reused and the data is where quiet would find it. The
 * proxy fences order the bulk copies after this thread's (and, through the block barrier before, the
 * block's) earlier stores, and its later loads and stores after them. */
__device__ __forceinline__ void tma_copy(char *dst, const char *src, size_t n, uint32_t base, uint32_t bytes) {
  const uint32_t mbar = base, chunk = ((bytes - kTmaBarrierBytes) / 2) & ~15u;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mbar) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
  for (size_t off = 0, k = 0; off < n; off += chunk, ++k) {
    const uint32_t len = n - off < chunk ? static_cast<uint32_t>(n - off) : chunk;
    const uint32_t buf = base + kTmaBarrierBytes + static_cast<uint32_t>(k & 1) * chunk;
    if (k >= 2) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");  // buf's last store has read it
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar), "r"(len) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(buf),
                 "l"(src + off), "r"(len), "r"(mbar)
                 : "memory");
    uint32_t loaded = 0;  // the load of chunk k completes phase k & 1 of the mbarrier
    while (!loaded)
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
          : "=r"(loaded)
          : "r"(mbar), "r"(static_cast<uint32_t>(k & 1))
          : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + off), "r"(buf), "r"(len)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(mbar) : "memory");
}
#endif

/* A block-scope copy by TMA, when the unit has the path (above), NVSHMEM_TMA_POLICY allows it (a record
 * with bytes), the block lent at least kTmaMinBytes in this launch and dst, src and n are 16-byte aligned:
 * thread 0 copies between two block barriers, true. Otherwise false, and the caller copies by loads and
 * stores. Every thread of the block calls it with the same arguments. */
__device__ __forceinline__ bool tma_copy_block(void *dst, const void *src, size_t n) {
#if defined(NVSHM_TMA_DATA_PATH) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const SmemSlot &slot = smem_slot();
  if (slot.grid != static_cast<uint32_t>(launch_key()) || slot.bytes < kTmaMinBytes ||
      ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | n) & 15))
    return false;
  __syncthreads();  // the block's earlier stores to src are visible to thread 0's bulk loads
  if (Group<Scope::block>::rank() == 0)
    tma_copy(static_cast<char *>(dst), static_cast<const char *>(src), n, slot.base, slot.bytes);
  __syncthreads();
  return true;
#else
  (void)dst, (void)src, (void)n;
  return false;
#endif
}

/* Blocking forms end with a group sync: on return every thread may reuse the source (put) or read
 * the destination (get). The nbi gets skip it; their completion is the next quiet by each thread
 * (or by one thread after a group sync: the fence is cumulative). Puts end with the sync in both
 * forms: without it the group's warps drift apart over a run of nbi puts, and 1000 block puts of
 * 512 KiB over 128 blocks moved 369 GB/s instead of 505 (tools/probes/put_regimes.cu,
 * docs/benchmarks.md, session 10). */
template <Scope S, bool Blocking = true>
__device__ __forceinline__ void put(void *dest, const void *source, size_t nbytes, int pe) {
  if (remote_pe(pe)) {  // blocking: the source may be reused (local completion), docs/proxy.md
    if constexpr (S == Scope::thread) {
      // At most 8 bytes travel in the request: no copy out of GPU memory on the proxy's thread.
      if (nbytes <= 8 || !__isGlobal(source)) return proxy_put_private(dest, source, nbytes, pe);
    }
    (void)proxy_call<S>(proxy_code(NVSHM_PROXY_PUT, Blocking ? NVSHM_PROXY_DONE : 0), pe, dest, source, nbytes);
    return;
  }
  void *to = peer_address(dest, pe);
  if constexpr (S == Scope::block) {
    if (tma_copy_block(to, source, nbytes)) return;
  }
  copy_bytes_rma<S>(to, source, nbytes);
  Group<S>::sync();
}
template <Scope S, bool Blocking>
__device__ __forceinline__ void get(void *dest, const void *source, size_t nbytes, int pe) {
  if (remote_pe(pe)) {
    if constexpr (S == Scope::thread) {
      // A blocking get of at most 8 bytes returns them in the completion record, as `g`.
      if ((Blocking && nbytes <= 8) || !__isGlobal(dest)) return proxy_get_private(dest, source, nbytes, pe);
    }
    (void)proxy_call<S>(proxy_code(NVSHM_PROXY_GET, Blocking ? NVSHM_PROXY_DONE : 0), pe, source, dest, nbytes);
    return;
  }
  const void *from = peer_address(source, pe);
  if constexpr (S == Scope::block) {
    if (tma_copy_block(dest, from, nbytes)) return;
  }
  copy_bytes_rma<S>(dest, from, nbytes);
  if constexpr (Blocking) Group<S>::sync();
}

/* Strided forms (strides in elements); blocking, like put/get. */
template <Scope S, typename T>
__device__ __forceinline__ void iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
  if (remote_pe(pe)) {
    (void)proxy_call<S>(proxy_code(NVSHM_PROXY_IPUT, NVSHM_PROXY_DONE, sizeof(T)), pe, dest, source, n, 0,
                        static_cast<uint64_t>(dst * static_cast<ptrdiff_t>(sizeof(T))),
                        static_cast<uint64_t>(sst * static_cast<ptrdiff_t>(sizeof(T))));
    return;
  }
  copy_strided<S>(peer_address(dest, pe), dst, source, sst, n);
  Group<S>::sync();
}
template <Scope S, typename T>
__device__ __forceinline__ void iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
  if (remote_pe(pe)) {
    (void)proxy_call<S>(proxy_code(NVSHM_PROXY_IGET, NVSHM_PROXY_DONE, sizeof(T)), pe, source, dest, n, 0,
                        static_cast<uint64_t>(sst * static_cast<ptrdiff_t>(sizeof(T))),
                        static_cast<uint64_t>(dst * static_cast<ptrdiff_t>(sizeof(T))));
    return;
  }
  copy_strided<S>(dest, dst, peer_address(source, pe), sst, n);
  Group<S>::sync();
}

/* The signal update: release (put-with-signal: the data before it is visible to whoever sees it)
 * or relaxed (nvshmemx_signal_op: an atomic that orders nothing by itself, as in NVSHMEM; a fence or
 * quiet before it makes it a release). */
template <bool Release>
__device__ __forceinline__ void signal(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  if (remote_pe(pe)) {
    (void)proxy_call<Scope::thread>(proxy_code(NVSHM_PROXY_ATOMIC, 0, proxy_signal_op(sig_op) | 8u << 8), pe, sig_addr,
                                    nullptr, 0, signal);
    return;
  }
  uint64_t *remote = peer_address(sig_addr, pe);
  if constexpr (Release) {
    if (sig_op == NVSHMEM_SIGNAL_ADD)
      add_release(remote, signal);
    else
      store_release(remote, signal);
  } else {
    if (sig_op == NVSHMEM_SIGNAL_ADD)
      add_relaxed(remote, signal);
    else
      store_relaxed(remote, signal);
  }
}

/* Data, then the signal with release semantics: a PE that sees the signal sees the data. */
template <Scope S>
__device__ __forceinline__ void put_signal(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                           uint64_t sig, int sig_op, int pe) {
  if (remote_pe(pe)) {
    // Waited for (local completion) in the nbi forms too: they share this code, and completing early is allowed.
    (void)proxy_call<S>(proxy_code(NVSHM_PROXY_PUT_SIGNAL, NVSHM_PROXY_DONE, proxy_signal_op(sig_op)), pe, dest, source,
                        nbytes, sig, 0, slot_offset(sig_addr));
    return;
  }
  copy_bytes_rma<S>(peer_address(dest, pe), source, nbytes);
  Group<S>::sync();
  if (Group<S>::rank() == 0) signal<true>(sig_addr, sig, sig_op, pe);
  Group<S>::sync();
}

/* An atomic on `pe`'s copy of `dest`: amo() for mapped PEs, a request to the proxy for remote ones. */
template <Amo Op, typename T>
__device__ __forceinline__ T amo_pe(T *dest, T value, T cond, int pe) {
  if (remote_pe(pe)) {
    const uint64_t old = proxy_call<Scope::thread>(
        proxy_code(NVSHM_PROXY_ATOMIC, amo_fetches<Op>() ? NVSHM_PROXY_DONE : 0,
                   proxy_amo_op<Op>() | static_cast<uint32_t>(sizeof(T)) << 8),
        pe, dest, nullptr, 0, Op == Amo::inc || Op == Amo::fetch_inc ? 1 : to_bits(value), to_bits(cond));
    return amo_fetches<Op>() ? from_bits<T>(old) : T{};
  }
  return amo<Op>(dest, value, cond, pe);
}
/* A floating-point atomic add on `pe`'s copy of `dest` (the old value when Fetch). */
template <bool Fetch, typename T>
__device__ __forceinline__ T float_add_pe(T *dest, T value, int pe) {
  if (remote_pe(pe)) {
    const uint64_t old =
        proxy_call<Scope::thread>(proxy_code(NVSHM_PROXY_ATOMIC, Fetch ? NVSHM_PROXY_DONE : 0,
                                             NVSHM_PROXY_AMO_FLOAT_ADD | static_cast<uint32_t>(sizeof(T)) << 8),
                                  pe, dest, nullptr, 0, to_bits(value));
    return Fetch ? from_bits<T>(old) : T{};
  }
  return float_atomic_add_sys(peer_address(dest, pe), value);
}

/* Teams from the table src/team keeps in GPU memory (docs/teams.md); nullptr for an unused slot
 * or an id out of range. */
__device__ __forceinline__ const nvshm_team_device *team_entry(nvshmem_team_t team) {
  const nvshm_device_state &st = state();
  if (team < 0 || team >= st.max_teams || st.teams == nullptr || st.teams[team].size == 0) return nullptr;
  return &st.teams[team];
}
/* World PE of team member i. */
__device__ __forceinline__ int team_world_pe(const nvshm_team_device &t, int i) {
  return t.world_pes ? t.world_pes[i] : t.start + i * t.stride;
}
__device__ __forceinline__ int team_my_pe(nvshmem_team_t team) {
  const nvshm_team_device *t = team_entry(team);
  return t ? t->my_pe : -1;
}
__device__ __forceinline__ int team_n_pes(nvshmem_team_t team) {
  const nvshm_team_device *t = team_entry(team);
  return t ? t->size : -1;
}
__device__ __forceinline__ int team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team) {
  const nvshm_team_device *s = team_entry(src_team), *d = team_entry(dest_team);
  if (!s || !d || src_pe < 0 || src_pe >= s->size) return -1;
  const int world = team_world_pe(*s, src_pe);
  if (d->world_pes) {
    for (int i = 0; i < d->size; ++i)
      if (d->world_pes[i] == world) return i;
    return -1;
  }
  const int offset = world - d->start;
  if (offset < 0 || offset % d->stride != 0 || offset / d->stride >= d->size) return -1;
  return offset / d->stride;
}

}  // namespace nvshm_dev

/* ======================= host+device functions: device definitions ======================= */
#if defined(__CUDA_ARCH__)
#define NVSHM_HD_DEF extern "C" __host__ __device__ inline

NVSHM_HD_DEF int nvshmem_my_pe(void) {
  return nvshm_dev::state().my_pe;
}
NVSHM_HD_DEF int nvshmem_n_pes(void) {
  return nvshm_dev::state().n_pes;
}
NVSHM_HD_DEF int nvshmem_team_my_pe(nvshmem_team_t team) {
  return nvshm_dev::team_my_pe(team);
}
NVSHM_HD_DEF int nvshmem_team_n_pes(nvshmem_team_t team) {
  return nvshm_dev::team_n_pes(team);
}
NVSHM_HD_DEF int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team) {
  return nvshm_dev::team_translate_pe(src_team, src_pe, dest_team);
}
NVSHM_HD_DEF void nvshmem_info_get_version(int *major, int *minor) {
  *major = NVSHMEM_MAJOR_VERSION;
  *minor = NVSHMEM_MINOR_VERSION;
}
/* The version of these headers (the library that wrote the state is checked to match at init). */
NVSHM_HD_DEF void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch) {
  *major = NVSHMEM_VENDOR_MAJOR_VERSION;
  *minor = NVSHMEM_VENDOR_MINOR_VERSION;
  *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}
NVSHM_HD_DEF void nvshmem_info_get_name(char *name) {
  const char vendor[] = NVSHMEM_VENDOR_STRING;
  for (size_t i = 0; i < sizeof vendor; ++i) name[i] = vendor[i];
}
/* Ends the job with `status`. Where this PE runs a host proxy (it has remote peers), the proxy ends the process
 * as the host's nvshmem_global_exit does (under nvshmrun every PE then stops with the status); without one,
 * or if the process has not ended within the channel's timeout, the kernel traps (the host sees the launch
 * fail). */
NVSHM_HD_DEF void nvshmem_global_exit(int status) {
  printf("nvshmem_global_exit(%d) called on the device by PE %d\n", status, nvshm_dev::state().my_pe);
  if (nvshm_dev::state().proxy_channels != nullptr)
    (void)nvshm_dev::proxy_call<nvshm_dev::Scope::thread>(
        nvshm_dev::proxy_code(NVSHM_PROXY_GLOBAL_EXIT, NVSHM_PROXY_DONE), -1, nullptr, nullptr, 0,
        static_cast<uint32_t>(status));
  __trap();
}

NVSHM_HD_DEF void *nvshmem_ptr(const void *dest, int pe) {
  const nvshm_device_state &st = nvshm_dev::state();
  if (!st.initialized || !st.heap_on_device || pe < 0 || pe >= st.n_pes || nvshm_dev::remote_pe(pe)) return nullptr;
  const size_t offset = static_cast<size_t>(static_cast<const char *>(dest) - st.my_heap);
  if (offset >= st.heap_size) return nullptr;
  return nvshm_dev::heap_base() + static_cast<size_t>(pe) * st.heap_stride + offset;
}

NVSHM_HD_DEF void *nvshmemx_mc_ptr(nvshmem_team_t, const void *) {
  return nullptr;  // no multicast objects in this version
}

#define NVSHM_DEFINE_DEVICE_RMA(NAME, T)                                                                          \
  NVSHM_HD_DEF void nvshmem_##NAME##_p(T *dest, const T value, int pe) {                                          \
    if (nvshm_dev::remote_pe(pe))                                                                                 \
      (void)nvshm_dev::proxy_call<nvshm_dev::Scope::thread>(nvshm_dev::proxy_code(NVSHM_PROXY_PUT_INLINE, 0), pe, \
                                                            dest, nullptr, sizeof(T), nvshm_dev::to_bits(value)); \
    else                                                                                                          \
      nvshm_dev::store_scalar(nvshm_dev::peer_address(dest, pe), value);                                          \
  }                                                                                                               \
  NVSHM_HD_DEF T nvshmem_##NAME##_g(const T *source, int pe) {                                                    \
    if (nvshm_dev::remote_pe(pe))                                                                                 \
      return nvshm_dev::from_bits<T>(nvshm_dev::proxy_call<nvshm_dev::Scope::thread>(                             \
          nvshm_dev::proxy_code(NVSHM_PROXY_GET, NVSHM_PROXY_DONE), pe, source, nullptr, sizeof(T)));             \
    return nvshm_dev::load<nvshm_dev::Load::weak>(nvshm_dev::peer_address(source, pe));                           \
  }                                                                                                               \
  NVSHM_HD_DEF void nvshmem_##NAME##_put(T *dest, const T *source, size_t nelems, int pe) {                       \
    nvshm_dev::put<nvshm_dev::Scope::thread>(dest, source, nelems * sizeof(T), pe);                               \
  }                                                                                                               \
  NVSHM_HD_DEF void nvshmem_##NAME##_get(T *dest, const T *source, size_t nelems, int pe) {                       \
    nvshm_dev::get<nvshm_dev::Scope::thread, true>(dest, source, nelems * sizeof(T), pe);                         \
  }                                                                                                               \
  NVSHM_HD_DEF void nvshmem_##NAME##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {                   \
    nvshm_dev::put<nvshm_dev::Scope::thread, false>(dest, source, nelems * sizeof(T), pe);                        \
  }                                                                                                               \
  NVSHM_HD_DEF void nvshmem_##NAME##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {                   \
    nvshm_dev::get<nvshm_dev::Scope::thread, false>(dest, source, nelems * sizeof(T), pe);                        \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DEFINE_DEVICE_RMA)
#undef NVSHM_DEFINE_DEVICE_RMA

#define NVSHM_DEFINE_DEVICE_SIZED_RMA(BITS, T)                                                       \
  NVSHM_HD_DEF void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe) {       \
    nvshm_dev::put<nvshm_dev::Scope::thread>(dest, source, nelems * sizeof(T), pe);                  \
  }                                                                                                  \
  NVSHM_HD_DEF void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe) {       \
    nvshm_dev::get<nvshm_dev::Scope::thread, true>(dest, source, nelems * sizeof(T), pe);            \
  }                                                                                                  \
  NVSHM_HD_DEF void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    nvshm_dev::put<nvshm_dev::Scope::thread, false>(dest, source, nelems * sizeof(T), pe);           \
  }                                                                                                  \
  NVSHM_HD_DEF void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    nvshm_dev::get<nvshm_dev::Scope::thread, false>(dest, source, nelems * sizeof(T), pe);           \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DEFINE_DEVICE_SIZED_RMA)
#undef NVSHM_DEFINE_DEVICE_SIZED_RMA

NVSHM_HD_DEF void nvshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  nvshm_dev::put<nvshm_dev::Scope::thread>(dest, source, nbytes, pe);
}
NVSHM_HD_DEF void nvshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  nvshm_dev::get<nvshm_dev::Scope::thread, true>(dest, source, nbytes, pe);
}
NVSHM_HD_DEF void nvshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  nvshm_dev::put<nvshm_dev::Scope::thread, false>(dest, source, nbytes, pe);
}
NVSHM_HD_DEF void nvshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  nvshm_dev::get<nvshm_dev::Scope::thread, false>(dest, source, nbytes, pe);
}

#define NVSHM_DEFINE_DEVICE_STRIDED(NAME, T)                                                                     \
  NVSHM_HD_DEF void nvshmem_##NAME##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                          int pe) {                                                              \
    nvshm_dev::iput<nvshm_dev::Scope::thread>(dest, source, dst, sst, nelems, pe);                               \
  }                                                                                                              \
  NVSHM_HD_DEF void nvshmem_##NAME##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                          int pe) {                                                              \
    nvshm_dev::iget<nvshm_dev::Scope::thread>(dest, source, dst, sst, nelems, pe);                               \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DEFINE_DEVICE_STRIDED)
#undef NVSHM_DEFINE_DEVICE_STRIDED
#define NVSHM_DEFINE_DEVICE_SIZED_STRIDED(BITS, T)                                                                  \
  NVSHM_HD_DEF void nvshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                       int pe) {                                                                    \
    nvshm_dev::iput<nvshm_dev::Scope::thread>(static_cast<T *>(dest), static_cast<const T *>(source), dst, sst,     \
                                              nelems, pe);                                                          \
  }                                                                                                                 \
  NVSHM_HD_DEF void nvshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                       int pe) {                                                                    \
    nvshm_dev::iget<nvshm_dev::Scope::thread>(static_cast<T *>(dest), static_cast<const T *>(source), dst, sst,     \
                                              nelems, pe);                                                          \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DEFINE_DEVICE_SIZED_STRIDED)
#undef NVSHM_DEFINE_DEVICE_SIZED_STRIDED

/* Signals: SET a relaxed store, ADD a relaxed reduction on the peer's word; ordering comes from a fence or
 * quiet before it (docs/memory-model.md). */
NVSHM_HD_DEF void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  nvshm_dev::signal<false>(sig_addr, signal, sig_op, pe);
}
NVSHM_HD_DEF uint64_t nvshmem_signal_fetch(uint64_t *sig_addr) {
  return nvshm_dev::load_relaxed(sig_addr);
}

/* Atomics: every family and type from the AMO tables, including the longlong/int64/ptrdiff add and
 * inc forms. fetch/set/swap take zero<T>(), which half has with __CUDA_NO_HALF_CONVERSIONS__ too. */
#define NVSHM_DEFINE_DEVICE_AMO_ARITH(NAME, T)                                                           \
  NVSHM_HD_DEF void nvshmem_##NAME##_atomic_inc(T *dest, int pe) {                                       \
    (void)nvshm_dev::amo_pe<nvshm_dev::Amo::inc>(dest, static_cast<T>(0), static_cast<T>(0), pe);        \
  }                                                                                                      \
  NVSHM_HD_DEF T nvshmem_##NAME##_atomic_fetch_inc(T *dest, int pe) {                                    \
    return nvshm_dev::amo_pe<nvshm_dev::Amo::fetch_inc>(dest, static_cast<T>(0), static_cast<T>(0), pe); \
  }                                                                                                      \
  NVSHM_HD_DEF void nvshmem_##NAME##_atomic_add(T *dest, T value, int pe) {                              \
    (void)nvshm_dev::amo_pe<nvshm_dev::Amo::add>(dest, value, static_cast<T>(0), pe);                    \
  }                                                                                                      \
  NVSHM_HD_DEF T nvshmem_##NAME##_atomic_fetch_add(T *dest, T value, int pe) {                           \
    return nvshm_dev::amo_pe<nvshm_dev::Amo::fetch_add>(dest, value, static_cast<T>(0), pe);             \
  }                                                                                                      \
  NVSHM_HD_DEF T nvshmem_##NAME##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                \
    return nvshm_dev::amo_pe<nvshm_dev::Amo::compare_swap>(dest, value, cond, pe);                       \
  }
NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM_DEFINE_DEVICE_AMO_ARITH)
#undef NVSHM_DEFINE_DEVICE_AMO_ARITH
#define NVSHM_DEFINE_DEVICE_AMO_FETCH(NAME, T)                                                     \
  NVSHM_HD_DEF T nvshmem_##NAME##_atomic_fetch(const T *source, int pe) {                          \
    return nvshm_dev::amo_pe<nvshm_dev::Amo::fetch>(const_cast<T *>(source), nvshm_dev::zero<T>(), \
                                                    nvshm_dev::zero<T>(), pe);                     \
  }                                                                                                \
  NVSHM_HD_DEF void nvshmem_##NAME##_atomic_set(T *dest, T value, int pe) {                        \
    (void)nvshm_dev::amo_pe<nvshm_dev::Amo::set>(dest, value, nvshm_dev::zero<T>(), pe);           \
  }                                                                                                \
  NVSHM_HD_DEF T nvshmem_##NAME##_atomic_swap(T *dest, T value, int pe) {                          \
    return nvshm_dev::amo_pe<nvshm_dev::Amo::swap>(dest, value, nvshm_dev::zero<T>(), pe);         \
  }
NVSHM_FOR_EACH_AMO_FETCH_TYPE(NVSHM_DEFINE_DEVICE_AMO_FETCH)
#undef NVSHM_DEFINE_DEVICE_AMO_FETCH
#define NVSHM_DEFINE_DEVICE_AMO_LOGIC(NAME, T)                                               \
  NVSHM_HD_DEF void nvshmem_##NAME##_atomic_and(T *dest, T value, int pe) {                  \
    (void)nvshm_dev::amo_pe<nvshm_dev::Amo::and_>(dest, value, static_cast<T>(0), pe);       \
  }                                                                                          \
  NVSHM_HD_DEF T nvshmem_##NAME##_atomic_fetch_and(T *dest, T value, int pe) {               \
    return nvshm_dev::amo_pe<nvshm_dev::Amo::fetch_and>(dest, value, static_cast<T>(0), pe); \
  }                                                                                          \
  NVSHM_HD_DEF void nvshmem_##NAME##_atomic_or(T *dest, T value, int pe) {                   \
    (void)nvshm_dev::amo_pe<nvshm_dev::Amo::or_>(dest, value, static_cast<T>(0), pe);        \
  }                                                                                          \
  NVSHM_HD_DEF T nvshmem_##NAME##_atomic_fetch_or(T *dest, T value, int pe) {                \
    return nvshm_dev::amo_pe<nvshm_dev::Amo::fetch_or>(dest, value, static_cast<T>(0), pe);  \
  }                                                                                          \
  NVSHM_HD_DEF void nvshmem_##NAME##_atomic_xor(T *dest, T value, int pe) {                  \
    (void)nvshm_dev::amo_pe<nvshm_dev::Amo::xor_>(dest, value, static_cast<T>(0), pe);       \
  }                                                                                          \
  NVSHM_HD_DEF T nvshmem_##NAME##_atomic_fetch_xor(T *dest, T value, int pe) {               \
    return nvshm_dev::amo_pe<nvshm_dev::Amo::fetch_xor>(dest, value, static_cast<T>(0), pe); \
  }
NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM_DEFINE_DEVICE_AMO_LOGIC)
#undef NVSHM_DEFINE_DEVICE_AMO_LOGIC

/* Quiet and fence: a system fence for mapped peers, and, where this PE runs a proxy, a quiet marker (waited
 * for: the proxy's remote completion of every channel's earlier requests) or a fence marker (an order point
 * of the proxy's engine) on the block's channel (docs/proxy.md). */
NVSHM_HD_DEF void nvshmem_quiet(void) {
  nvshm_dev::fence_sc_sys();
  nvshm_dev::proxy_quiet();
}
NVSHM_HD_DEF void nvshmem_fence(void) {
  nvshm_dev::fence_acq_rel_sys();
  nvshm_dev::proxy_fence();
}
/* A thread's puts to mapped PEs read their whole source before they return (loads and stores, no engine),
 * so the sources are already reusable (docs/compatibility.md, "NVSHMEM 3.5 to 3.8"); where this PE runs a
 * proxy, its nbi requests may not have read theirs yet: a quiet marker waits for them. */
NVSHM_HD_DEF void nvshmemx_flush(void) {
  nvshm_dev::proxy_quiet();
}

/* NVSHMEM 3.7 floating-point atomic add: system-scope, relaxed, on the peer's word. */
#define NVSHM_DEFINE_DEVICE_FLOAT_AMO(NAME, T)                                  \
  NVSHM_HD_DEF void nvshmemx_##NAME##_atomic_add(T *dest, T value, int pe) {    \
    (void)nvshm_dev::float_add_pe<false>(dest, value, pe);                      \
  }                                                                             \
  NVSHM_HD_DEF T nvshmemx_##NAME##_atomic_fetch_add(T *dest, T value, int pe) { \
    return nvshm_dev::float_add_pe<true>(dest, value, pe);                      \
  }
NVSHM_DEFINE_DEVICE_FLOAT_AMO(float, float)
NVSHM_DEFINE_DEVICE_FLOAT_AMO(double, double)
NVSHM_DEFINE_DEVICE_FLOAT_AMO(half, __half)
#undef NVSHM_DEFINE_DEVICE_FLOAT_AMO

NVSHM_HD_DEF int nvshmemx_ask_smem(nvshmemx_smem_amount_t flag) {
  return NVSHM_TMA_SMEM_BYTES(flag);
}

NVSHM_HD_DEF int nvshmemx_region_is_active(uint32_t hints, int *active) {
  if (!active || (hints & ~nvshm_dev::kRegionHints)) return NVSHMEMX_ERROR_INVALID_VALUE;
  const nvshm_dev::RegionSlot &slot = nvshm_dev::region_slot();
  *active = slot.grid == nvshm_dev::launch_key() && slot.open && (slot.hints & hints) == hints;
  return NVSHMEMX_SUCCESS;
}

NVSHM_HD_DEF void nvshmemx_signal_counted_reset(uint64_t *signal_addr) {
  nvshm_dev::store_relaxed(signal_addr, uint64_t{0});
}

#undef NVSHM_HD_DEF
#endif /* __CUDA_ARCH__ */

/* ============================== device-only functions ============================== */
#define NVSHM_DEV_DEF extern "C" __device__ inline

/* nvshmemx_flush for a warp / block: every thread calls it; the group's puts to mapped PEs already read their
 * sources, so the group synchronises (NVSHMEM documents the group sync as part of these calls), plus a quiet
 * marker where this PE runs a proxy. */
NVSHM_DEV_DEF void nvshmemx_flush_warp(void) {
  nvshm_dev::proxy_group_quiet<nvshm_dev::Scope::warp>();
}
NVSHM_DEV_DEF void nvshmemx_flush_block(void) {
  nvshm_dev::proxy_group_quiet<nvshm_dev::Scope::block>();
}

/* RMA regions of a block (NVSHMEM 3.8, "Regions"): collective over the block, every thread gets the same
 * handle and status. Start: NVSHMEMX_ERROR_INVALID_VALUE for a NULL handle, unknown hint bits or a region
 * already open in the block; stop: for a handle that is not the block's open region. Inside a region the
 * block's nonblocking RMA keeps its semantics; nothing is batched (loads and stores need none). */
NVSHM_DEV_DEF int nvshmemx_region_start_block(nvshmemx_region_handle_t *handle, const nvshmemx_region_attrs_t *attrs) {
  nvshm_dev::RegionSlot &slot = nvshm_dev::region_slot();
  __syncthreads();  // every thread has read the slot's previous state (is_active) before it changes
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const uint64_t grid = nvshm_dev::launch_key();
    const uint32_t hints = attrs ? attrs->hints : 0u;
    const bool mine = slot.grid == grid;
    if (!handle || (hints & ~nvshm_dev::kRegionHints) || (mine && slot.open)) {
      slot.status = NVSHMEMX_ERROR_INVALID_VALUE;
      if (!mine) slot = nvshm_dev::RegionSlot{grid, 0, 0, 0, NVSHMEMX_ERROR_INVALID_VALUE};
    } else {
      slot = nvshm_dev::RegionSlot{grid, mine ? slot.handle + 1 : 1, hints, 1, NVSHMEMX_SUCCESS};
    }
  }
  __syncthreads();
  const int status = slot.status;
  if (status == NVSHMEMX_SUCCESS) *handle = slot.handle;
  return status;
}
NVSHM_DEV_DEF int nvshmemx_region_stop_block(nvshmemx_region_handle_t handle) {
  nvshm_dev::RegionSlot &slot = nvshm_dev::region_slot();
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const bool open = slot.grid == nvshm_dev::launch_key() && slot.open && slot.handle == handle;
    slot.status = open ? NVSHMEMX_SUCCESS : NVSHMEMX_ERROR_INVALID_VALUE;
    if (open) slot.open = 0;
  }
  __syncthreads();
  return slot.status;
}

/* Shared memory lent to NVSHMEM's TMA path (NVSHMEM 3.7, docs/tma.md): from one thread or from every
 * thread of the block (they record the same values; no barrier inside: the block synchronises before its
 * first put, as NVSHMEM requires). The start is rounded up to 16 bytes; memory that is not shared, or too
 * little to stage (less than 8 KiB and 16 bytes), is recorded as nothing lent. release ends the loan (as
 * NVSHMEM requires before the block exits, after its puts completed). */
NVSHM_DEV_DEF void nvshmemx_give_smem(void *smem, size_t size) {
  nvshm_dev::SmemSlot &slot = nvshm_dev::smem_slot();
  const bool shared = __isShared(smem);
  const uint32_t base = shared ? static_cast<uint32_t>(__cvta_generic_to_shared(smem)) : 0;
  const uint32_t start = (base + 15u) & ~15u, skip = start - base;
  slot.base = start;
  const bool used = shared && size > skip && nvshm_dev::state().tma_policy;
  slot.bytes = used ? static_cast<uint32_t>(size - skip < UINT32_MAX ? size - skip : UINT32_MAX) : 0;
  slot.grid = static_cast<uint32_t>(nvshm_dev::launch_key());
}
NVSHM_DEV_DEF void nvshmemx_release_smem(void) {
  nvshm_dev::smem_slot().grid = 0;
}

/* ---- NVSHMEM 3.8 counted signals (class C3: docs/compatibility.md) ----
 * Counted writes need CUDA fabric (CFT) operations: sm_100 or newer, CUDA 13.3 or newer and a logical
 * endpoint. This version has none of them, so the write is refused as NVIDIA refuses it where they are
 * missing: NVSHMEMX_ERROR_NOT_SUPPORTED, with no fallback to put-with-signal (the counter would never
 * move). Thread 0 of the block prints why; every thread gets the status. Collective over the block. */
NVSHM_DEV_DEF int nvshmemx_putmem_signal_counted_nbi_block(void *dest, const void *source, size_t bytes,
                                                           uint64_t *signal_addr, int pe) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
    printf(
        "nvshmem error (PE %d) in nvshmemx_putmem_signal_counted_nbi_block: counted writes are not supported: "
        "they need CUDA fabric (CFT) operations (sm_100+, CUDA 13.3+), which this version does not use "
        "(%zu bytes to PE %d, dest %p, counter %p, source %p not moved); use nvshmemx_putmem_signal_nbi_block\n",
        nvshm_dev::state().my_pe, bytes, pe, dest, static_cast<void *>(signal_addr), source);
  return NVSHMEMX_ERROR_NOT_SUPPORTED;
}
/* The counter's current value: a relaxed system-scope load of this PE's word. */
NVSHM_DEV_DEF uint64_t nvshmemx_signal_counted_load(const uint64_t *signal_addr) {
  return nvshm_dev::load_relaxed(signal_addr);
}
/* Spin until this PE's counter has reached `expected` (wrap-around safe: the signed difference), then
 * acquire. Nothing here increments counters (the counted write is refused), so only a counter the
 * application moves itself (signal_op, atomics) ends the wait. */
NVSHM_DEV_DEF void nvshmemx_signal_counted_wait_until(const uint64_t *signal_addr, uint64_t expected) {
  const nvshm_dev::WaitClock clock;
  while (static_cast<int64_t>(nvshm_dev::load_relaxed(signal_addr) - expected) < 0) clock.check(signal_addr);
  nvshm_dev::fence_acq_rel_sys();
}

/* Thread-group RMA: every thread of the warp/block calls with the same arguments. */
#define NVSHM_DEFINE_GROUP_RMA_SCOPE(NAME, T, SUFFIX, SCOPE)                                               \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_put_##SUFFIX(T *dest, const T *source, size_t nelems, int pe) {     \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE>(dest, source, nelems * sizeof(T), pe);                         \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_get_##SUFFIX(T *dest, const T *source, size_t nelems, int pe) {     \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, true>(dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_put_nbi_##SUFFIX(T *dest, const T *source, size_t nelems, int pe) { \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, false>(dest, source, nelems * sizeof(T), pe);                  \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_get_nbi_##SUFFIX(T *dest, const T *source, size_t nelems, int pe) { \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, false>(dest, source, nelems * sizeof(T), pe);                  \
  }
#define NVSHM_DEFINE_GROUP_RMA(NAME, T)             \
  NVSHM_DEFINE_GROUP_RMA_SCOPE(NAME, T, warp, warp) \
  NVSHM_DEFINE_GROUP_RMA_SCOPE(NAME, T, block, block)
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DEFINE_GROUP_RMA)
#undef NVSHM_DEFINE_GROUP_RMA

/* Sized group forms are spelled nvshmemx_put<BITS>_warp, not nvshmemx_<BITS>_put_warp. */
#define NVSHM_DEFINE_SIZED_GROUP_SCOPE(BITS, T, SUFFIX, SCOPE)                                                  \
  NVSHM_DEV_DEF void nvshmemx_put##BITS##_##SUFFIX(void *dest, const void *source, size_t nelems, int pe) {     \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE>(dest, source, nelems * sizeof(T), pe);                              \
  }                                                                                                             \
  NVSHM_DEV_DEF void nvshmemx_get##BITS##_##SUFFIX(void *dest, const void *source, size_t nelems, int pe) {     \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, true>(dest, source, nelems * sizeof(T), pe);                        \
  }                                                                                                             \
  NVSHM_DEV_DEF void nvshmemx_put##BITS##_nbi_##SUFFIX(void *dest, const void *source, size_t nelems, int pe) { \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, false>(dest, source, nelems * sizeof(T), pe);                       \
  }                                                                                                             \
  NVSHM_DEV_DEF void nvshmemx_get##BITS##_nbi_##SUFFIX(void *dest, const void *source, size_t nelems, int pe) { \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, false>(dest, source, nelems * sizeof(T), pe);                       \
  }
#define NVSHM_DEFINE_SIZED_GROUP(BITS, T) \
  NVSHM_DEFINE_SIZED_GROUP_SCOPE(BITS, T, warp, warp) NVSHM_DEFINE_SIZED_GROUP_SCOPE(BITS, T, block, block)
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DEFINE_SIZED_GROUP)
#undef NVSHM_DEFINE_SIZED_GROUP
#undef NVSHM_DEFINE_SIZED_GROUP_SCOPE
#undef NVSHM_DEFINE_GROUP_RMA_SCOPE

#define NVSHM_DEFINE_MEM_GROUP(SUFFIX, SCOPE)                                                              \
  NVSHM_DEV_DEF void nvshmemx_putmem_##SUFFIX(void *dest, const void *source, size_t nbytes, int pe) {     \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE>(dest, source, nbytes, pe);                                     \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_getmem_##SUFFIX(void *dest, const void *source, size_t nbytes, int pe) {     \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, true>(dest, source, nbytes, pe);                               \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_putmem_nbi_##SUFFIX(void *dest, const void *source, size_t nbytes, int pe) { \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, false>(dest, source, nbytes, pe);                              \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_getmem_nbi_##SUFFIX(void *dest, const void *source, size_t nbytes, int pe) { \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, false>(dest, source, nbytes, pe);                              \
  }
NVSHM_DEFINE_MEM_GROUP(warp, warp)
NVSHM_DEFINE_MEM_GROUP(block, block)
#undef NVSHM_DEFINE_MEM_GROUP

/* Thread-group strided RMA. */
#define NVSHM_DEFINE_GROUP_STRIDED_SCOPE(NAME, T, SUFFIX)                                                    \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_iput_##SUFFIX(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                     size_t nelems, int pe) {                                \
    nvshm_dev::iput<nvshm_dev::Scope::SUFFIX>(dest, source, dst, sst, nelems, pe);                           \
  }                                                                                                          \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_iget_##SUFFIX(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                     size_t nelems, int pe) {                                \
    nvshm_dev::iget<nvshm_dev::Scope::SUFFIX>(dest, source, dst, sst, nelems, pe);                           \
  }
#define NVSHM_DEFINE_GROUP_STRIDED(NAME, T) \
  NVSHM_DEFINE_GROUP_STRIDED_SCOPE(NAME, T, warp) NVSHM_DEFINE_GROUP_STRIDED_SCOPE(NAME, T, block)
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DEFINE_GROUP_STRIDED)
#undef NVSHM_DEFINE_GROUP_STRIDED
#define NVSHM_DEFINE_SIZED_GROUP_STRIDED_SCOPE(BITS, T, SUFFIX)                                                   \
  NVSHM_DEV_DEF void nvshmemx_iput##BITS##_##SUFFIX(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                    size_t nelems, int pe) {                                      \
    nvshm_dev::iput<nvshm_dev::Scope::SUFFIX>(static_cast<T *>(dest), static_cast<const T *>(source), dst, sst,   \
                                              nelems, pe);                                                        \
  }                                                                                                               \
  NVSHM_DEV_DEF void nvshmemx_iget##BITS##_##SUFFIX(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                    size_t nelems, int pe) {                                      \
    nvshm_dev::iget<nvshm_dev::Scope::SUFFIX>(static_cast<T *>(dest), static_cast<const T *>(source), dst, sst,   \
                                              nelems, pe);                                                        \
  }
#define NVSHM_DEFINE_SIZED_GROUP_STRIDED(BITS, T) \
  NVSHM_DEFINE_SIZED_GROUP_STRIDED_SCOPE(BITS, T, warp) NVSHM_DEFINE_SIZED_GROUP_STRIDED_SCOPE(BITS, T, block)
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DEFINE_SIZED_GROUP_STRIDED)
#undef NVSHM_DEFINE_SIZED_GROUP_STRIDED
#undef NVSHM_DEFINE_SIZED_GROUP_STRIDED_SCOPE
#undef NVSHM_DEFINE_GROUP_STRIDED_SCOPE

/* Put-with-signal ("Signaling Operations"): the data, then the signal (SET or ADD) on `pe` with
 * release semantics, so a PE that sees the signal sees the data. The nbi forms complete at the next
 * quiet; here they complete on return as well (peer stores are done when issued). Thread scope has
 * no suffix and the nvshmem_ prefix; warp/block scope the nvshmemx_ prefix and a suffix. */
#define NVSHM_PUT_SIGNAL_ARGS(T) \
  T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe
#define NVSHM_DEFINE_PUT_SIGNAL_AS(FN, T, SCOPE, ELEM)                                                           \
  NVSHM_DEV_DEF void FN(NVSHM_PUT_SIGNAL_ARGS(T)) {                                                              \
    nvshm_dev::put_signal<nvshm_dev::Scope::SCOPE>(dest, source, nelems * (ELEM), sig_addr, signal, sig_op, pe); \
  }
#define NVSHM_DEFINE_TYPED_PUT_SIGNAL(NAME, T)                                          \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmem_##NAME##_put_signal, T, thread, sizeof(T))         \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmem_##NAME##_put_signal_nbi, T, thread, sizeof(T))     \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_##NAME##_put_signal_warp, T, warp, sizeof(T))     \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_##NAME##_put_signal_nbi_warp, T, warp, sizeof(T)) \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_##NAME##_put_signal_block, T, block, sizeof(T))   \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_##NAME##_put_signal_nbi_block, T, block, sizeof(T))
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DEFINE_TYPED_PUT_SIGNAL)
#undef NVSHM_DEFINE_TYPED_PUT_SIGNAL
/* Sized forms, including the put16 warp/block forms; put6 is NVIDIA's misspelling of put16, kept
 * as an alias so code written against its headers builds. */
#define NVSHM_DEFINE_SIZED_PUT_SIGNAL_NAMED(BITS, T)                                      \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_put##BITS##_signal_warp, void, warp, sizeof(T))     \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_put##BITS##_signal_nbi_warp, void, warp, sizeof(T)) \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_put##BITS##_signal_block, void, block, sizeof(T))   \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_put##BITS##_signal_nbi_block, void, block, sizeof(T))
#define NVSHM_DEFINE_SIZED_PUT_SIGNAL(BITS, T)                                        \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmem_put##BITS##_signal, void, thread, sizeof(T))     \
  NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmem_put##BITS##_signal_nbi, void, thread, sizeof(T)) \
  NVSHM_DEFINE_SIZED_PUT_SIGNAL_NAMED(BITS, T)
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DEFINE_SIZED_PUT_SIGNAL)
NVSHM_DEFINE_SIZED_PUT_SIGNAL_NAMED(6, uint16_t)
#undef NVSHM_DEFINE_SIZED_PUT_SIGNAL
#undef NVSHM_DEFINE_SIZED_PUT_SIGNAL_NAMED
/* Byte forms (nelems counts bytes). */
NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmem_putmem_signal, void, thread, 1)
NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmem_putmem_signal_nbi, void, thread, 1)
NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_putmem_signal_warp, void, warp, 1)
NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_putmem_signal_nbi_warp, void, warp, 1)
NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_putmem_signal_block, void, block, 1)
NVSHM_DEFINE_PUT_SIGNAL_AS(nvshmemx_putmem_signal_nbi_block, void, block, 1)
#undef NVSHM_DEFINE_PUT_SIGNAL_AS
#undef NVSHM_PUT_SIGNAL_ARGS

/* Wait until this PE's signal word satisfies `cmp` against `cmp_value` (acquire); returns the value
 * seen. */
NVSHM_DEV_DEF uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return nvshm_dev::wait_until(sig_addr, cmp, cmp_value);
}

/* Point-to-point synchronisation ("Point-To-Point Synchronization"), called by one thread on this
 * PE's symmetric variables. wait_* block until the condition holds, test_* check once; both are
 * acquire operations when the condition holds. `status` NULL: every element takes part; entries
 * that are non-zero exclude their element. _any returns an index (SIZE_MAX when every element is
 * excluded, or for test_any when none satisfies); _some stores the indices that satisfy into
 * `indices` and returns their count (0 when every element is excluded). _vector forms compare
 * element i with cmp_values[i]. */
#define NVSHM_DEFINE_WAIT(NAME, T)                                                                                    \
  NVSHM_DEV_DEF void nvshmem_##NAME##_wait_until(T *ivar, int cmp, T cmp_value) {                                     \
    (void)nvshm_dev::wait_until(ivar, cmp, cmp_value);                                                                \
  }                                                                                                                   \
  NVSHM_DEV_DEF void nvshmem_##NAME##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,             \
                                                     T cmp_value) {                                                   \
    nvshm_dev::wait_all(ivars, nelems, status, cmp, nvshm_dev::OneTarget<T>{cmp_value});                              \
  }                                                                                                                   \
  NVSHM_DEV_DEF size_t nvshmem_##NAME##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,           \
                                                       T cmp_value) {                                                 \
    return nvshm_dev::wait_any(ivars, nelems, status, cmp, nvshm_dev::OneTarget<T>{cmp_value});                       \
  }                                                                                                                   \
  NVSHM_DEV_DEF size_t nvshmem_##NAME##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status,  \
                                                        int cmp, T cmp_value) {                                       \
    return nvshm_dev::wait_some(ivars, nelems, indices, status, cmp, nvshm_dev::OneTarget<T>{cmp_value});             \
  }                                                                                                                   \
  NVSHM_DEV_DEF void nvshmem_##NAME##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,      \
                                                            T *cmp_values) {                                          \
    nvshm_dev::wait_all(ivars, nelems, status, cmp, nvshm_dev::EachTarget<T>{cmp_values});                            \
  }                                                                                                                   \
  NVSHM_DEV_DEF size_t nvshmem_##NAME##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                                              T *cmp_values) {                                        \
    return nvshm_dev::wait_any(ivars, nelems, status, cmp, nvshm_dev::EachTarget<T>{cmp_values});                     \
  }                                                                                                                   \
  NVSHM_DEV_DEF size_t nvshmem_##NAME##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,              \
                                                               const int *status, int cmp, T *cmp_values) {           \
    return nvshm_dev::wait_some(ivars, nelems, indices, status, cmp, nvshm_dev::EachTarget<T>{cmp_values});           \
  }                                                                                                                   \
  NVSHM_DEV_DEF int nvshmem_##NAME##_test(T *ivar, int cmp, T cmp_value) {                                            \
    return nvshm_dev::test(ivar, cmp, cmp_value);                                                                     \
  }                                                                                                                   \
  NVSHM_DEV_DEF int nvshmem_##NAME##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {     \
    return nvshm_dev::test_all(ivars, nelems, status, cmp, nvshm_dev::OneTarget<T>{cmp_value});                       \
  }                                                                                                                   \
  NVSHM_DEV_DEF size_t nvshmem_##NAME##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {  \
    return nvshm_dev::test_any(ivars, nelems, status, cmp, nvshm_dev::OneTarget<T>{cmp_value});                       \
  }                                                                                                                   \
  NVSHM_DEV_DEF size_t nvshmem_##NAME##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,        \
                                                  int cmp, T cmp_value) {                                             \
    return nvshm_dev::test_some(ivars, nelems, indices, status, cmp, nvshm_dev::OneTarget<T>{cmp_value});             \
  }                                                                                                                   \
  NVSHM_DEV_DEF int nvshmem_##NAME##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,             \
                                                     T *cmp_values) {                                                 \
    return nvshm_dev::test_all(ivars, nelems, status, cmp, nvshm_dev::EachTarget<T>{cmp_values});                     \
  }                                                                                                                   \
  NVSHM_DEV_DEF size_t nvshmem_##NAME##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,          \
                                                        T *cmp_values) {                                              \
    return nvshm_dev::test_any(ivars, nelems, status, cmp, nvshm_dev::EachTarget<T>{cmp_values});                     \
  }                                                                                                                   \
  NVSHM_DEV_DEF size_t nvshmem_##NAME##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                                         int cmp, T *cmp_values) {                                    \
    return nvshm_dev::test_some(ivars, nelems, indices, status, cmp, nvshm_dev::EachTarget<T>{cmp_values});           \
  }
NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_DEFINE_WAIT)
#undef NVSHM_DEFINE_WAIT

#undef NVSHM_DEV_DEF

/* Collectives over teams: barrier, team_sync (and barrier_all, sync_all: their NVSHMEM_TEAM_WORLD
 * case), broadcast, fcollect, alltoall, reduce, reducescatter. */
#include "nvshmem_detail/device/collectives_api.cuh"
/* The same RMA and ordering with a queue-pair handle (NVSHMEM 3.5): forwards to the forms above. */
#include "nvshmem_detail/device/qp_api.cuh"

#endif /* NVSHMEM_DETAIL_DEVICE_API_CUH */
