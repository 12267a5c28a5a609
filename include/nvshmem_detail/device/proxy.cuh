// SPDX-License-Identifier: BSD-3-Clause
/* The device side of the host proxy (docs/proxy.md): device RMA, atomics and signals on a PE outside the
 * mapped range become requests on this block's proxy channel (include/nvshmem_detail/proxy_ring.h), which
 * the PE's proxy thread executes with the remote engine.
 *
 * The fast path pays one check, remote_pe(): the PE against the mapped range of the device state (a
 * subtraction and a compare, then a branch that every mapped call takes the same way). The remote branch is
 * inline (proxy_call): a call in the user's loop, or a printf on its failure path, costs the loop 8-16
 * registers with -rdc (docs/proxy.md, "Fast path"). A warp or block synchronises and its rank 0 enqueues one
 * request for the group's whole transfer. Device waits have no clock (the proxy always answers); a request
 * the proxy reports failed (the channel's error word, after the proxy's message) traps the kernel.
 * Internal: names live in namespace nvshm_dev. */
#ifndef NVSHMEM_DETAIL_DEVICE_PROXY_CUH
#define NVSHMEM_DETAIL_DEVICE_PROXY_CUH

#include "nvshmem_detail/device/primitives.cuh"
#include "nvshmem_detail/proxy_ring.h"

namespace nvshm_dev {

/* True when `pe` is outside the mapped range (another node, every peer under NVSHMEM_DISABLE_P2P, or a PE
 * out of range, which the proxy then reports). */
__device__ __forceinline__ bool remote_pe(int pe) {
  const nvshm_device_state &st = state();
  return static_cast<unsigned>(pe - st.node_pe_start) >= static_cast<unsigned>(st.node_n_pes);
}

/* Byte offset of symmetric address `sym` in this PE's slot (the same on every PE). */
__device__ __forceinline__ uint64_t slot_offset(const void *sym) {
  return static_cast<uint64_t>(static_cast<const char *>(sym) - call_state().my_heap);
}

/* Bits of `v` (1 to 8 bytes), zero-extended. */
template <typename T>
__device__ __forceinline__ uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8, "scalars of at most 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <typename T>
__device__ __forceinline__ T from_bits(uint64_t bits) {
  T v;
  memcpy(&v, &bits, sizeof(T));
  return v;
}

/* op | flags << 8 | aux << 16, the layout of word 0 of a request (pe apart). */
__host__ __device__ constexpr uint32_t proxy_code(uint32_t op, uint32_t flags, uint32_t aux = 0) {
  return op | flags << 8 | aux << 16;
}

/* This block's channel and its reservation counter: block b uses channel b % NVSHM_PROXY_CHANNELS. */
__device__ __forceinline__ unsigned proxy_channel_index() {
  return (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) % NVSHM_PROXY_CHANNELS;
}

/* The remote branch of every device call, inline (above), reading the state through call_state so that
 * NVVM cannot hoist the channel table out of the user's loop (docs/registers.md, rule 7). A warp or block synchronises,
 * its rank 0 enqueues one request for the whole group's transfer on the block's channel (the words one at a time, each
 * with its lap bit) and, for a request with NVSHM_PROXY_DONE, waits for the completion record; the group then
 * synchronises again. `code`: proxy_code(); `sym`: the symmetric address on the target (nullptr: none). Returns the
 * record's value (the old value of a fetching atomic, the bytes of a `g`), 0 without DONE. */
template <Scope S>
__device__ __forceinline__ uint64_t proxy_call(uint32_t code, int pe, const void *sym, const void *local,
                                               uint64_t bytes, uint64_t value = 0, uint64_t cond = 0,
                                               uint64_t extra = 0) {
  const bool done = (code >> 8) & NVSHM_PROXY_DONE;
  Group<S>::sync();
  uint64_t result = 0;
  if (Group<S>::rank() == 0) {
    const nvshm_device_state &st = call_state();
    const unsigned c = proxy_channel_index();
    nvshm_proxy_channel *ch = st.proxy_channels + c;  // NULL without a proxy: the accesses below fault
    fence_acq_rel_sys();  // the group's stores (after its sync) are visible to the proxy's copies first
    uint64_t t;
    (void)nvshm_proxy_claim(ch, &st.proxy_counters[c].reserve, &t);  // on the device: always 1
    const uint64_t offset = sym ? slot_offset(sym) : 0, at = reinterpret_cast<uint64_t>(local);
    nvshm_proxy_write(ch, t, code, pe, offset, at, bytes, value, cond, extra);
    if (done && !nvshm_proxy_wait_done(ch, t, &result)) __trap();  // the proxy logged the failed request
  }
  if (done) Group<S>::sync();
  return result;
}

/* The proxy's operation for a signal update (NVSHMEM_SIGNAL_SET or _ADD). */
__device__ __forceinline__ uint32_t proxy_signal_op(int sig_op) {
  return sig_op == NVSHMEM_SIGNAL_ADD ? NVSHM_PROXY_AMO_ADD : NVSHM_PROXY_AMO_SET;
}

/* A thread's put from, or get into, memory the proxy cannot address (the thread's local array, shared
 * memory: not in the global window, __isGlobal): 8 bytes per request, carried in the request (an inline
 * put) or in the completion record (a get of 1 to 8 bytes, waited for). */
__device__ __forceinline__ void proxy_put_private(void *dest, const void *source, size_t nbytes, int pe) {
  for (size_t off = 0; off < nbytes; off += 8) {
    const size_t n = nbytes - off < 8 ? nbytes - off : 8;
    uint64_t v = 0;
    memcpy(&v, static_cast<const char *>(source) + off, n);
    (void)proxy_call<Scope::thread>(proxy_code(NVSHM_PROXY_PUT_INLINE, 0), pe, static_cast<char *>(dest) + off, nullptr,
                                    n, v);
  }
}
__device__ __forceinline__ void proxy_get_private(void *dest, const void *source, size_t nbytes, int pe) {
  for (size_t off = 0; off < nbytes; off += 8) {
    const size_t n = nbytes - off < 8 ? nbytes - off : 8;
    const uint64_t v = proxy_call<Scope::thread>(proxy_code(NVSHM_PROXY_GET, NVSHM_PROXY_DONE), pe,
                                                 static_cast<const char *>(source) + off, nullptr, n);
    memcpy(static_cast<char *>(dest) + off, &v, n);
  }
}

/* A quiet through the proxy (nvshm_proxy_quiet: it waits for the proxy's remote completion of every channel's
 * earlier requests; concurrent quiets on the block's channel share one marker); traps when the proxy reported a
 * request of the channel failed. Only where this PE runs a proxy. */
__device__ __forceinline__ void proxy_quiet_now() {
  const nvshm_device_state &st = call_state();
  const unsigned c = proxy_channel_index();
  if (!nvshm_proxy_quiet(st.proxy_channels, st.proxy_counters, NVSHM_PROXY_CHANNELS, c)) __trap();
}
/* A fence marker (an order point of the proxy's engine) on the block's channel. Only where this PE runs a proxy. */
__device__ __forceinline__ void proxy_fence_now() {
  (void)proxy_call<Scope::thread>(proxy_code(NVSHM_PROXY_FENCE, 0), -1, nullptr, nullptr, 0);
}
/* A thread's quiet and fence, issued only where this PE runs a proxy. */
__device__ __forceinline__ void proxy_quiet() {
  if (state().proxy_channels != nullptr) proxy_quiet_now();
}
__device__ __forceinline__ void proxy_fence() {
  if (state().proxy_channels != nullptr) proxy_fence_now();
}

/* A group's quiet (Quiet: nvshmemx_flush, the qp quiet forms) or fence: the group synchronises and, where this PE
 * runs a proxy, its rank 0 issues the quiet or one fence marker for the group (every thread of a block uses the
 * block's channel, and a quiet covers every channel), then the group synchronises again. */
template <Scope S, bool Quiet>
__device__ __forceinline__ void proxy_group_order() {
  Group<S>::sync();
  if (state().proxy_channels != nullptr) {
    if (Group<S>::rank() == 0) {
      if constexpr (Quiet)
        proxy_quiet_now();
      else
        proxy_fence_now();
    }
    Group<S>::sync();
  }
}
template <Scope S>
__device__ __forceinline__ void proxy_group_quiet() {
  proxy_group_order<S, true>();
}
template <Scope S>
__device__ __forceinline__ void proxy_group_fence() {
  proxy_group_order<S, false>();
}

/* The proxy's operation code of a device AMO (Amo in primitives.cuh), and whether it returns a value. */
template <Amo Op>
__host__ __device__ constexpr uint32_t proxy_amo_op() {
  return Op == Amo::fetch                          ? NVSHM_PROXY_AMO_FETCH
         : Op == Amo::set                          ? NVSHM_PROXY_AMO_SET
         : Op == Amo::swap                         ? NVSHM_PROXY_AMO_SWAP
         : Op == Amo::compare_swap                 ? NVSHM_PROXY_AMO_COMPARE_SWAP
         : Op == Amo::and_ || Op == Amo::fetch_and ? NVSHM_PROXY_AMO_AND
         : Op == Amo::or_ || Op == Amo::fetch_or   ? NVSHM_PROXY_AMO_OR
         : Op == Amo::xor_ || Op == Amo::fetch_xor ? NVSHM_PROXY_AMO_XOR
                                                   : NVSHM_PROXY_AMO_ADD; /* inc, fetch_inc, add, fetch_add */
}
template <Amo Op>
__host__ __device__ constexpr bool amo_fetches() {
  return !(Op == Amo::inc || Op == Amo::add || Op == Amo::set || Op == Amo::and_ || Op == Amo::or_ || Op == Amo::xor_);
}

}  // namespace nvshm_dev

#endif /* NVSHMEM_DETAIL_DEVICE_PROXY_CUH */
