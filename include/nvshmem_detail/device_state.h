/* SPDX-License-Identifier: BSD-3-Clause */
/* The state every device function reads, and how it reaches each kernel.
 *
 * Without -rdc each translation unit that includes nvshmem.h holds its own `static __constant__`
 * copy; with -rdc there is one copy, defined in libnvshmem_device.a. Either way each CUDA
 * translation unit registers, at static initialisation, a function that returns its copy's device
 * address; the host library writes the state through every registered address at init (and at once
 * for units loaded later, such as dlopen'ed libraries). The address lookup runs in the
 * application's own CUDA runtime, so the static cudart nvcc links by default works. Modules loaded
 * through the driver API are filled by nvshmemx_cumodule_init (symbol name below).
 * docs/device-state.md explains the choice. */
#ifndef NVSHMEM_DETAIL_DEVICE_STATE_H
#define NVSHMEM_DETAIL_DEVICE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "nvshmem_detail/macros.h"

#define NVSHM_DEVICE_STATE_SYMBOL "nvshm_device_state_d"

struct nvshm_proxy_channel; /* include/nvshmem_detail/proxy_ring.h */
/* The heap base is stored XOR this mask, so that a state the library never wrote (no init, a heap
 * in host memory, an unregistered module) decodes to a non-canonical base: a device RMA then faults
 * with an illegal address instead of touching this PE's own memory, and the hot path needs no
 * branch (docs/device-state.md). */
#define NVSHM_HEAP_BASE_MASK ((uintptr_t)0xdead000000000000ull)
#define NVSHM_DEVICE_STATE_VERSION ((5u << 16) + (unsigned)sizeof(struct nvshm_device_state))

/* One team as device code sees it; docs/teams.md. src/team fills the table at init and whenever a
 * team is created or destroyed, while no kernel of this PE uses that slot. */
struct nvshm_team_device {
  int size;             /* PEs in the team; 0: unused slot */
  int my_pe;            /* this PE's index in the team; -1: this PE is not a member */
  int start;            /* world PE of team PE 0 */
  int stride;           /* world PE of team PE i = start + i * stride, when world_pes is NULL */
  const int *world_pes; /* teams of arbitrary PEs (nvshmemx_team_init): device array [size] */
  uint64_t *sync_flags; /* symmetric, NVSHM_TEAM_SYNC_WORDS(n_pes) words for this slot (zero at creation) */
  uint64_t *sync_epoch; /* local, NVSHM_TEAM_EPOCH_WORDS words (zero at creation) */
  char *scratch;        /* symmetric collective scratch of scratch_bytes (NVSHMEM_REDUCE_SCRATCH_SIZE) */
  size_t scratch_bytes;
  uint64_t *part_flags; /* symmetric, inside sync_flags' words: NVSHM_TEAM_PART_ROWS rows of size round
                           words, one row per part (block) of a collective */
  uint64_t *ll_words;   /* symmetric, NVSHM_TEAM_LL_WORDS(n_pes, ll_slot_words) words (zero at creation): the
                           LL words of small collectives, two halves of one slot per member; NULL: none */
  size_t ll_slot_words; /* words per member and half (4 bytes of data each): the largest LL collective */
  int remote;           /* 1: a member is outside this PE's mapped range (another node, or NVSHMEM_DISABLE_P2P):
                           the device data collectives go through the proxy (collectives.cuh, "teams with members on other
                           nodes"), barriers run across nodes on the device (collectives.cuh, "barriers across nodes") */
  /* A team with remote members, for its device barriers (collectives.cuh, "barriers across nodes"): `groups`, a
   * device array of team indices: the node_members members of this PE's node, ascending (the first leads the
   * node), then, on that leader, the `leaders` leaders of every node, ascending (this PE among them, at
   * leader_index). leaders is 0 on the node's other members; groups is NULL on a team without remote members. */
  const int *groups;
  int node_members;
  int leaders;
  int leader_index;
};
/* LL words (docs/collectives.md, "LL collectives"): teams of at most NVSHM_TEAM_LL_MAX_PES members, at
 * most ll_slot_words words per member and half (NVSHMEM_REDUCE_LL_MAX and NVSHMEM_COLL_LL_MAX set it). */
#define NVSHM_TEAM_LL_MAX_PES 8
/* The device API's LL limit in bytes per member (warp and block scope): the least slot. */
#define NVSHM_TEAM_LL_DEVICE_BYTES 1024
/* The most LL bytes per member NVSHMEM_REDUCE_LL_MAX and NVSHMEM_COLL_LL_MAX may ask for. */
#define NVSHM_TEAM_LL_MAX_BYTES (1u << 20)
#define NVSHM_TEAM_LL_WORDS(n_pes, slot_words) \
  (2 * (size_t)((n_pes) < NVSHM_TEAM_LL_MAX_PES ? (n_pes) : NVSHM_TEAM_LL_MAX_PES) * (size_t)(slot_words))
/* Rows of part_flags: collectives of at most this many parts (blocks) give each part rounds of its own. */
#define NVSHM_TEAM_PART_ROWS 128
/* NVSHMEM_TEAM_WORLD, NVSHMEM_TEAM_SHARED, NVSHMEMX_TEAM_NODE and NVSHMEMX_TEAM_SAME_MYPE_NODE. */
#define NVSHM_PREDEFINED_TEAMS 4
/* Per team slot: the symmetric synchronisation words (n_pes = world size) and local epoch counters.
 * Collectives own their layout (include/nvshmem_detail/device/collectives.cuh); the host collectives
 * use words [2 n_pes + 32, 4 n_pes + 64), part_flags starts at word 4 n_pes + 64. */
#define NVSHM_TEAM_SYNC_WORDS(n_pes) ((4 + NVSHM_TEAM_PART_ROWS) * (size_t)(n_pes) + 64)
#define NVSHM_TEAM_EPOCH_WORDS 16

struct nvshm_device_state {
  uint32_t version; /* NVSHM_DEVICE_STATE_VERSION of the library that wrote it */
  int initialized;  /* 1 between init and finalize */
  int my_pe;        /* PE id in NVSHMEM_TEAM_WORLD */
  int n_pes;
  int node_my_pe; /* PE index inside NVSHMEMX_TEAM_NODE (= NVSHMEM_TEAM_SHARED here) */
  int node_n_pes;
  int node_pe_start; /* world PE id of node PE 0 (node PEs are consecutive) */
  /* [node_pe_start, node_pe_start + node_n_pes) is the mapped range: the PEs whose heaps this process maps.
   * Device calls on any other PE go through the host proxy (docs/proxy.md). */
  int heap_on_device;       /* 1: heap in GPU memory; 0: host shared memory (no device access) */
  int tma_policy;           /* NVSHMEM_TMA_POLICY where TMA is available (GPU heap, sm_90 or newer), else 0: block-scope
                               puts and gets of blocks that lent shared memory use TMA when not 0 (docs/tma.md) */
  uintptr_t heap_base_code; /* (address of PE 0's heap here) XOR NVSHM_HEAP_BASE_MASK: see below */
  size_t heap_stride;       /* bytes from PE i's mapping to PE i+1's */
  size_t heap_size;         /* bytes of each slot in use: heap + registered buffers */
  char *my_heap;            /* heap_base + my_pe * heap_stride */
  struct nvshm_team_device *teams; /* device array [max_teams], indexed by nvshmem_team_t */
  int max_teams;                   /* NVSHMEM_MAX_TEAMS */
  /* Copies of the entries of the predefined teams (handles 0 to NVSHM_PREDEFINED_TEAMS - 1), which never
   * change after init: read from constant memory, they cost no load from the table, whose cached lines
   * every acquire load (each wait of the previous collective) invalidates (docs/teams.md). */
  struct nvshm_team_device predefined_teams[NVSHM_PREDEFINED_TEAMS];
  /* The host proxy's channels (docs/proxy.md), NULL when this PE has no remote peer or its heap is in host
   * memory: NVSHM_PROXY_CHANNELS channels in mapped host memory (device addresses), and their counters
   * (reservation, shared quiets) in GPU memory, one set per channel. */
  struct nvshm_proxy_channel *proxy_channels;
  struct nvshm_proxy_counters *proxy_counters;
  /* Random per process, bits 31 and 63 set: mixed into %gridid, it keys the block records kept in shared
   * memory (regions, lent TMA memory) to one launch of one process (device/api.cuh, launch_key). */
  uint64_t launch_salt;
};

NVSHM_EXTERN_C_BEGIN
/* Returns the device address of one translation unit's copy of the state (NULL on failure). */
typedef void *(*nvshm_state_address_fn)(void);
NVSHM_API void nvshm_register_device_state(nvshm_state_address_fn fn);
NVSHM_API void nvshm_unregister_device_state(nvshm_state_address_fn fn);
NVSHM_EXTERN_C_END

#if defined(__CUDACC__)
#if defined(__CUDACC_RDC__)
extern __constant__ struct nvshm_device_state nvshm_device_state_d;
#else
static __constant__ struct nvshm_device_state nvshm_device_state_d;
#endif

#if !defined(__CUDACC_RTC__)
#include <cuda_runtime_api.h>
namespace {
inline void *nvshm_this_unit_state_address() {
  void *address = nullptr;
  if (cudaGetSymbolAddress(&address, nvshm_device_state_d) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return address;
}
struct nvshm_state_registrar {
  nvshm_state_registrar() { nvshm_register_device_state(&nvshm_this_unit_state_address); }
  ~nvshm_state_registrar() { nvshm_unregister_device_state(&nvshm_this_unit_state_address); }
  nvshm_state_registrar(const nvshm_state_registrar &) = delete;
  nvshm_state_registrar &operator=(const nvshm_state_registrar &) = delete;
};
static nvshm_state_registrar nvshm_state_registrar_instance;
}  // namespace
#endif /* !__CUDACC_RTC__ */
#endif /* __CUDACC__ */

#endif /* NVSHMEM_DETAIL_DEVICE_STATE_H */
