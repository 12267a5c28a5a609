/* SPDX-License-Identifier: BSD-3-Clause */
/* Proxy channels (docs/proxy.md): how device code (and the host producer of the unit tests) hands
 * operations on remote PEs to the host proxy thread. One header for both sides, so that the producer
 * and the proxy share one encoding.
 *
 * A channel is a ring of NVSHM_PROXY_ENTRIES requests of 8 words, plus one completion record per
 * entry, in pinned host memory that the device maps. A producer takes a ticket from the channel's
 * reservation counter (GPU memory on the device side), waits until the entry is free (`released`,
 * written by the proxy), and stores the 8 words. Each word carries 63 bits of payload and, in bit 63,
 * the parity of the ticket's lap around the ring, so the proxy sees a word as written when its bit
 * matches: no fence between the words, and no "valid" word. Zeroed memory is lap 1's "unwritten". */
#ifndef NVSHMEM_DETAIL_PROXY_RING_H
#define NVSHMEM_DETAIL_PROXY_RING_H

#include <stdint.h>
#if !defined(__CUDACC_RTC__) /* the host producer's yield and clock (NVRTC has no C library) */
#include <sched.h>
#include <time.h>
#endif

#include "nvshmem_detail/macros.h"

#define NVSHM_PROXY_ENTRIES 256u /* requests per channel (a power of two) */
#define NVSHM_PROXY_WORDS 8u     /* words per request */
#define NVSHM_PROXY_CHANNELS 8u  /* channels per PE (a power of two): block b uses channel b % 8 */

/* What a request asks. */
enum nvshm_proxy_op {
  NVSHM_PROXY_PUT = 1,          /* bytes from `local` to (pe, offset) */
  NVSHM_PROXY_GET = 2,          /* bytes from (pe, offset) to `local`; `local` 0 (`g`, DONE): 1 to 8 bytes
                                   returned in the completion record's value */
  NVSHM_PROXY_PUT_INLINE = 3,   /* `bytes` (1 to 8) bytes of `value` to (pe, offset) */
  NVSHM_PROXY_ATOMIC = 4,       /* aux: nvshm_proxy_amo | width << 8; operand `value`, compare `cond`;
                                   DONE: the old value returned */
  NVSHM_PROXY_PUT_SIGNAL = 5,   /* a put, then the 8-byte signal at offset `extra` (aux: NVSHM_PROXY_AMO_SET
                                   or _ADD, operand `value`), ordered after the data */
  NVSHM_PROXY_IPUT = 6,         /* strided put: nelems in `bytes`, element bytes in aux, strides in bytes:
                                   remote in `cond`, local in `extra` */
  NVSHM_PROXY_IGET = 7,         /* strided get, as IPUT */
  NVSHM_PROXY_FENCE = 8,        /* order this channel's earlier requests before its later ones, per PE */
  NVSHM_PROXY_QUIET = 9,        /* complete (remotely) this channel's earlier requests; always DONE */
  NVSHM_PROXY_GLOBAL_EXIT = 10, /* end the job with status `value` (nvshmem_global_exit on the device): the
                                   proxy's process exits, so its record never comes */
  NVSHM_PROXY_COLLECTIVE = 11   /* a device collective on a team with remote members, run by the host one of the
                                   same name: aux nvshm_proxy_coll | index << 3 (reductions: the (op, type) index
                                   of NVSHM_FOR_EACH_REDUCE_OP_TYPE), `pe` the team, `local` dest, `extra`
                                   source (addresses in this process), `bytes` per member (reductions: elements),
                                   `value` the root (broadcast); always DONE */
};
/* The collectives of NVSHM_PROXY_COLLECTIVE (3 bits). */
enum nvshm_proxy_coll {
  NVSHM_PROXY_COLL_BROADCAST,
  NVSHM_PROXY_COLL_FCOLLECT,
  NVSHM_PROXY_COLL_ALLTOALL,
  NVSHM_PROXY_COLL_REDUCE,
  NVSHM_PROXY_COLL_REDUCESCATTER,
  NVSHM_PROXY_COLL_TILE_PUSH /* tile_broadcast to a team with remote members, from its root alone: `extra` the
                                root's packed tile (a header of NVSHM_PROXY_TILE_HEADER_WORDS words, then the
                                elements in box order), `local` dst, `bytes` the elements' bytes, `value` 1
                                when the root's own dst is written too */
};
/* The packed tile's header: word 0 dims (8 bits) | element bytes << 8, then the extents and the destination strides
 * (elements) of each dimension, innermost first; a tile of at most 7 dimensions. */
#define NVSHM_PROXY_TILE_HEADER_WORDS 16u
/* Atomic operations (the order of the runtime's nvshm::AtomicOp, which the proxy checks). */
enum nvshm_proxy_amo {
  NVSHM_PROXY_AMO_FETCH,
  NVSHM_PROXY_AMO_SET,
  NVSHM_PROXY_AMO_SWAP,
  NVSHM_PROXY_AMO_COMPARE_SWAP,
  NVSHM_PROXY_AMO_ADD,
  NVSHM_PROXY_AMO_AND,
  NVSHM_PROXY_AMO_OR,
  NVSHM_PROXY_AMO_XOR,
  NVSHM_PROXY_AMO_FLOAT_ADD
};
/* The producer waits for the request's completion record: local completion for puts (the source may
 * be reused), the data for gets, the old value for atomics, remote completion for quiet. Without it,
 * a request completes at the next quiet of its channel. */
#define NVSHM_PROXY_DONE 1u

struct nvshm_proxy_request {
  uint32_t op;                   /* enum nvshm_proxy_op */
  uint32_t flags;                /* NVSHM_PROXY_DONE */
  uint32_t aux;                  /* 16 bits: see the ops */
  int32_t pe;                    /* target PE (world), 0 to 2^31 - 1 */
  uint64_t offset, local, bytes; /* below 2^63: slot offset, address in this process, byte or element count */
  uint64_t value, cond, extra;   /* any 64 bits */
};

/* A completion record: the proxy stores `value`, then `tag` = ticket + 1; the producer reads the
 * value and stores 0, which frees the entry for a later lap. */
struct nvshm_proxy_done {
  uint64_t tag;
  uint64_t value;
};

/* In pinned host memory mapped to the device; zero at creation. */
struct nvshm_proxy_channel {
  uint64_t entries[NVSHM_PROXY_ENTRIES][NVSHM_PROXY_WORDS];
  struct nvshm_proxy_done done[NVSHM_PROXY_ENTRIES];
  uint64_t released;   /* proxy: entries of tickets below this one may be written again */
  uint64_t error;      /* proxy: nonzero once a request of this channel failed (the proxy logged it) */
  uint64_t timeout_ns; /* runtime: how long a producer waits for space or a completion (NVSHMEM_BOOTSTRAP_TIMEOUT) */
};

/* A channel's counters, in GPU memory for device producers (their atomics): the reservation counter, and
 * the two words by which concurrent quiets share one QUIET marker (nvshm_proxy_quiet). Zero at creation. */
struct nvshm_proxy_counters {
  unsigned long long reserve;      /* tickets taken so far */
  unsigned long long quiet_wanted; /* 1 + the `reserve` value read by the latest quiet that issues a marker */
  unsigned long long quiet_done;   /* 1 + the largest ticket of a QUIET marker whose record came back */
  unsigned long long unused;       /* pads the counters to 32 bytes, one L2 sector */
};

NVSHM_HOSTDEVICE static inline uint64_t nvshm_proxy_lap_bit(uint64_t ticket) {
  return ((ticket / NVSHM_PROXY_ENTRIES + 1) & 1) << 63;
}

/* Word `i` of a request taken with `ticket`, from its fields (`code`: op | flags << 8 | aux << 16;
 * `offset`, `local` and `bytes` below 2^63, as in the struct). Word 0: code and pe; 1-6: offset, local,
 * bytes, value, cond, extra (low 63 bits); 7: bit 63 of value, cond and extra; every word carries the
 * ticket's lap bit. One word at a time, so that a device producer keeps the fields in registers and stores
 * the words one by one (docs/registers.md). */
NVSHM_HOSTDEVICE static inline uint64_t nvshm_proxy_word(unsigned i, uint32_t code, int32_t pe, uint64_t offset,
                                                         uint64_t local, uint64_t bytes, uint64_t value, uint64_t cond,
                                                         uint64_t extra, uint64_t ticket) {
  const uint64_t low = ~(1ull << 63), lap = nvshm_proxy_lap_bit(ticket);
  switch (i) {
    case 0:
      return ((code | (uint64_t)(uint32_t)pe << 32) & low) | lap;
    case 1:
      return offset | lap;
    case 2:
      return local | lap;
    case 3:
      return bytes | lap;
    case 4:
      return (value & low) | lap;
    case 5:
      return (cond & low) | lap;
    case 6:
      return (extra & low) | lap;
    default:
      return (value >> 63 | (cond >> 63) << 1 | (extra >> 63) << 2) | lap;
  }
}
/* The code of word 0 for request `r`. */
NVSHM_HOSTDEVICE static inline uint32_t nvshm_proxy_request_code(const struct nvshm_proxy_request *r) {
  return (r->op & 0xff) | (r->flags & 0xff) << 8 | (r->aux & 0xffff) << 16;
}
/* The words of request `r` taken with `ticket`. */
NVSHM_HOSTDEVICE static inline void nvshm_proxy_encode(const struct nvshm_proxy_request *r, uint64_t ticket,
                                                       uint64_t w[NVSHM_PROXY_WORDS]) {
  for (unsigned i = 0; i < NVSHM_PROXY_WORDS; ++i)
    w[i] = nvshm_proxy_word(i, nvshm_proxy_request_code(r), r->pe, r->offset, r->local, r->bytes, r->value, r->cond,
                            r->extra, ticket);
}

/* Decodes the entry of `ticket` into *r: 0 while a word still belongs to an earlier lap. */
NVSHM_HOSTDEVICE static inline int nvshm_proxy_decode(const volatile uint64_t *entry, uint64_t ticket,
                                                      struct nvshm_proxy_request *r) {
  const uint64_t low = ~(1ull << 63), lap = nvshm_proxy_lap_bit(ticket);
  uint64_t w[NVSHM_PROXY_WORDS];
  for (unsigned i = 0; i < NVSHM_PROXY_WORDS; ++i) {
#if defined(__CUDA_ARCH__)
    w[i] = entry[i];
#else
    // Acquire: the producer writes it meanwhile, and what the request then reads (its source data) was
    // written before it (free on x86; needed on Arm hosts and by ThreadSanitizer).
    w[i] = __atomic_load_n(&entry[i], __ATOMIC_ACQUIRE);
#endif
    if ((w[i] & ~low) != lap) return 0;
  }
  r->op = (uint32_t)(w[0] & 0xff);
  r->flags = (uint32_t)(w[0] >> 8 & 0xff);
  r->aux = (uint32_t)(w[0] >> 16 & 0xffff);
  r->pe = (int32_t)(w[0] >> 32 & 0x7fffffff);
  r->offset = w[1] & low;
  r->local = w[2] & low;
  r->bytes = w[3] & low;
  r->value = (w[4] & low) | (w[7] & 1) << 63;
  r->cond = (w[5] & low) | (w[7] >> 1 & 1) << 63;
  r->extra = (w[6] & low) | (w[7] >> 2 & 1) << 63;
  return 1;
}

/* The producer's side, the same code on the device and (for tests) on the host. */
NVSHM_HOSTDEVICE static inline uint64_t nvshm_proxy_load(const uint64_t *p) {
#if defined(__CUDA_ARCH__)
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}
NVSHM_HOSTDEVICE static inline void nvshm_proxy_store(uint64_t *p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
  __atomic_store_n(p, v, __ATOMIC_RELEASE);  // a host producer's data before its request (see decode)
#endif
}
NVSHM_HOSTDEVICE static inline uint64_t nvshm_proxy_now_ns(void) {
#if defined(__CUDA_ARCH__)
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/* A counter's value, read by an atomic add of 0 that orders the caller's earlier accesses before whatever
 * a later atomic on the counter orders after itself (release, system scope). */
NVSHM_HOSTDEVICE static inline uint64_t nvshm_proxy_counter_read_release(unsigned long long *p) {
#if defined(__CUDA_ARCH__)
  unsigned long long v;
  asm volatile("atom.release.sys.global.add.u64 %0, [%1], 0;" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  return __atomic_fetch_add(p, 0ull, __ATOMIC_RELEASE);
#endif
}
/* A counter's value (acquire). */
NVSHM_HOSTDEVICE static inline uint64_t nvshm_proxy_counter_load(const unsigned long long *p) {
#if defined(__CUDA_ARCH__)
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}
/* Atomic max of a counter; returns the value before (host: acquire and release; device: relaxed). */
NVSHM_HOSTDEVICE static inline uint64_t nvshm_proxy_counter_max(unsigned long long *p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  return atomicMax(p, (unsigned long long)v);
#else
  unsigned long long old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old < v && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
  }
  return old;
#endif
}

/* One round of a producer's wait: host producers (tests) leave the core to the proxy. */
NVSHM_HOSTDEVICE static inline void nvshm_proxy_pause(void) {
#if !defined(__CUDA_ARCH__)
  sched_yield();
#endif
}

/* The producer's steps, the same code for device producers (include/nvshmem_detail/device/proxy.cuh) and
 * host producers (tests). Device waits have no clock (a clock costs the caller's loop registers; the proxy
 * always answers), host waits end after the channel's timeout.
 *
 * Takes the next ticket of `ch` (reservation counter `reserve`: GPU memory for device producers) into
 * *ticket and waits until its entry is free; 0 when it did not become free within the timeout. */
NVSHM_HOSTDEVICE static inline int nvshm_proxy_claim(struct nvshm_proxy_channel *ch, unsigned long long *reserve,
                                                     uint64_t *ticket) {
#if defined(__CUDA_ARCH__)
  const uint64_t t = atomicAdd(reserve, 1ull);
  while (t - nvshm_proxy_load(&ch->released) >= NVSHM_PROXY_ENTRIES) {
  }
#else
  const uint64_t t = __atomic_fetch_add(reserve, 1ull, __ATOMIC_RELAXED);
  if (t - nvshm_proxy_load(&ch->released) >= NVSHM_PROXY_ENTRIES) {
    const uint64_t start = nvshm_proxy_now_ns();
    while (t - nvshm_proxy_load(&ch->released) >= NVSHM_PROXY_ENTRIES) {
      if (nvshm_proxy_now_ns() - start > ch->timeout_ns) return 0;
      nvshm_proxy_pause();
    }
  }
#endif
  *ticket = t;
  return 1;
}

/* Writes the request given by its fields (nvshm_proxy_word) into the claimed entry of `ticket`. Data the
 * request reads must be visible to the proxy's copies before the call (the caller's fence). */
NVSHM_HOSTDEVICE static inline void nvshm_proxy_write(struct nvshm_proxy_channel *ch, uint64_t ticket, uint32_t code,
                                                      int32_t pe, uint64_t offset, uint64_t local, uint64_t bytes,
                                                      uint64_t value, uint64_t cond, uint64_t extra) {
  uint64_t *entry = ch->entries[ticket % NVSHM_PROXY_ENTRIES];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned i = 0; i < NVSHM_PROXY_WORDS; ++i)
    nvshm_proxy_store(&entry[i], nvshm_proxy_word(i, code, pe, offset, local, bytes, value, cond, extra, ticket));
}

/* Enqueues `r` on `ch`: claim and write; 0 when no entry became free within the timeout. */
NVSHM_HOSTDEVICE static inline int nvshm_proxy_enqueue(struct nvshm_proxy_channel *ch, unsigned long long *reserve,
                                                       const struct nvshm_proxy_request *r, uint64_t *ticket) {
  if (!nvshm_proxy_claim(ch, reserve, ticket)) return 0;
  nvshm_proxy_write(ch, *ticket, nvshm_proxy_request_code(r), r->pe, r->offset, r->local, r->bytes, r->value, r->cond,
                    r->extra);
  return 1;
}

/* Waits for the completion record of a NVSHM_PROXY_DONE request, returns its value in *value and
 * frees the entry; 0 on timeout (the entry stays taken) or when the proxy reported the request failed. */
NVSHM_HOSTDEVICE static inline int nvshm_proxy_wait_done(struct nvshm_proxy_channel *ch, uint64_t ticket,
                                                         uint64_t *value) {
  struct nvshm_proxy_done *d = &ch->done[ticket % NVSHM_PROXY_ENTRIES];
#if defined(__CUDA_ARCH__)
  while (nvshm_proxy_load(&d->tag) != ticket + 1) {
  }
#else
  const uint64_t start = nvshm_proxy_now_ns();
  while (nvshm_proxy_load(&d->tag) != ticket + 1) {
    if (nvshm_proxy_now_ns() - start > ch->timeout_ns) return 0;
    nvshm_proxy_pause();
  }
#endif
  *value = nvshm_proxy_load(&d->value);
  nvshm_proxy_store(&d->tag, 0);
  return nvshm_proxy_load(&ch->error) == 0;
}

/* A quiet on channel `c` of the `n` channels `channels` (counters `counters`): returns at once when every
 * channel's last ticket is a QUIET marker that came back (nothing taken since is pending anywhere), else once
 * a QUIET marker claimed on channel `c` after the call began has come back, so the proxy has completed every
 * request taken before the call, on every channel (docs/proxy.md, "Concurrent quiets share a marker"). Concurrent
 * callers share one marker: the first to raise k->quiet_wanted past the tickets it saw issues it, the others wait for
 * k->quiet_done to pass their `seen` (the 1024 threads of a block that each call nvshmem_quiet issue one marker or a
 * few, not 1024). A marker's ticket is at least its issuer's `seen`, and a caller follows only an issuer that saw no
 * fewer tickets than itself, whose marker was therefore not yet claimed when the caller read `reserve`. 0 on a timeout
 * (host producers) or when the proxy reported a request of the channel failed. */
NVSHM_HOSTDEVICE static inline int nvshm_proxy_quiet(struct nvshm_proxy_channel *channels,
                                                     struct nvshm_proxy_counters *counters, unsigned n, unsigned c) {
  struct nvshm_proxy_channel *ch = channels + c;
  struct nvshm_proxy_counters *k = counters + c;
  unsigned idle = 0;
  for (; idle < n; ++idle) { /* quiet_done first: equal to a later `reserve`, no ticket was taken after that marker */
    const uint64_t done = nvshm_proxy_counter_load(&counters[idle].quiet_done);
    if (nvshm_proxy_counter_load(&counters[idle].reserve) != done) break;
  }
  if (idle == n) return nvshm_proxy_load(&ch->error) == 0;
  /* A release: the requests this caller's accesses depend on (other channels' requests it synchronised with)
   * are visible to the proxy before the marker, which its issuer writes after an acquire fence. */
  const uint64_t seen = nvshm_proxy_counter_read_release(&k->reserve);
  if (nvshm_proxy_counter_max(&k->quiet_wanted, seen + 1) <= seen) {
    uint64_t ticket, value;
    if (!nvshm_proxy_claim(ch, &k->reserve, &ticket)) return 0;
#if defined(__CUDA_ARCH__)
    asm volatile("fence.acq_rel.sys;" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
    nvshm_proxy_write(ch, ticket, NVSHM_PROXY_QUIET | NVSHM_PROXY_DONE << 8, -1, 0, 0, 0, 0, 0, 0);
    const int ok = nvshm_proxy_wait_done(ch, ticket, &value);
    /* Also after a failure the proxy reported (the others then fail too); not after a timeout of this wait. A
     * release: what the proxy wrote before the record (a get's data) is visible to those who read it. */
    if (ok || nvshm_proxy_load(&ch->error) != 0) {
#if defined(__CUDA_ARCH__)
      asm volatile("red.release.gpu.global.max.u64 [%0], %1;" ::"l"(&k->quiet_done), "l"(ticket + 1) : "memory");
#else
      (void)nvshm_proxy_counter_max(&k->quiet_done, ticket + 1);
#endif
    }
    return ok;
  }
#if defined(__CUDA_ARCH__)
  while (nvshm_proxy_counter_load(&k->quiet_done) <= seen) {
  }
#else
  const uint64_t start = nvshm_proxy_now_ns();
  while (nvshm_proxy_counter_load(&k->quiet_done) <= seen) {
    if (nvshm_proxy_now_ns() - start > ch->timeout_ns) return 0;
    nvshm_proxy_pause();
  }
#endif
  return nvshm_proxy_load(&ch->error) == 0;
}

#endif /* NVSHMEM_DETAIL_PROXY_RING_H */
