/* SPDX-License-Identifier: BSD-3-Clause */
/* Public NVSHMEM types, constants and enums (NVSHMEM 3.4.5 API, "Library Constants" and "Library
 * Handles" sections). Layouts of NVSHMEM-defined structs match NVIDIA's headers byte for byte. */
#ifndef NVSHMEM_DETAIL_TYPES_H
#define NVSHMEM_DETAIL_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* ---- versions: NVSHMEM_MAJOR/MINOR_VERSION (OpenSHMEM level) and NVSHMEM_VENDOR_* (generated) ---- */
#include "nvshmem_version.h"
#define NVSHMEM_MAX_NAME_LEN 256

/* ---- comparison operators for wait/test (nvshmemx_cmp_type_t) ---- */
enum nvshmemx_cmp_type {
  NVSHMEM_CMP_EQ = 0,
  NVSHMEM_CMP_NE = 1,
  NVSHMEM_CMP_GT = 2,
  NVSHMEM_CMP_LE = 3,
  NVSHMEM_CMP_LT = 4,
  NVSHMEM_CMP_GE = 5,
  NVSHMEM_CMP_SENTINEL = INT32_MAX
};
typedef enum nvshmemx_cmp_type nvshmemx_cmp_type_t;

/* ---- signal operators ---- */
enum nvshmemx_signal_op { NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10 };
typedef enum nvshmemx_signal_op nvshmemx_signal_op_t;

/* ---- thread support levels ---- */
enum nvshmemx_thread_support {
  NVSHMEM_THREAD_SINGLE = 0,
  NVSHMEM_THREAD_FUNNELED = 1,
  NVSHMEM_THREAD_SERIALIZED = 2,
  NVSHMEM_THREAD_MULTIPLE = 3,
  NVSHMEM_THREAD_TYPE_SENTINEL = INT32_MAX
};
typedef enum nvshmemx_thread_support nvshmemx_thread_support_t;

/* ---- init status (nvshmemx_init_status) ---- */
enum nvshmemx_init_status {
  NVSHMEM_STATUS_NOT_INITIALIZED = 0,
  NVSHMEM_STATUS_IS_BOOTSTRAPPED,
  NVSHMEM_STATUS_IS_INITIALIZED,
  NVSHMEM_STATUS_LIMITED_MPG,
  NVSHMEM_STATUS_FULL_MPG,
  NVSHMEM_STATUS_INVALID = INT32_MAX
};
typedef enum nvshmemx_init_status nvshmemx_init_status_t;

/* ---- return codes of nvshmemx_* calls ---- */
enum nvshmemx_status {
  NVSHMEMX_SUCCESS = 0,
  NVSHMEMX_ERROR_INVALID_VALUE,
  NVSHMEMX_ERROR_OUT_OF_MEMORY,
  NVSHMEMX_ERROR_NOT_SUPPORTED,
  NVSHMEMX_ERROR_SYMMETRY,
  NVSHMEMX_ERROR_GPU_NOT_SELECTED,
  NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
  NVSHMEMX_ERROR_INTERNAL,
  NVSHMEMX_ERROR_SENTINEL = INT32_MAX
};

/* ---- init flags for nvshmemx_init_attr ---- */
enum flags {
  NVSHMEMX_INIT_THREAD_PES = 1,
  NVSHMEMX_INIT_WITH_MPI_COMM = 1 << 1,
  NVSHMEMX_INIT_WITH_SHMEM = 1 << 2,
  NVSHMEMX_INIT_WITH_UNIQUEID = 1 << 3,
  NVSHMEMX_INIT_MAX = 1 << 31
};

/* ---- teams ---- */
typedef int32_t nvshmem_team_t;
typedef nvshmem_team_t nvshmemx_team_t;
typedef uint64_t nvshmemx_team_uniqueid_t;

enum nvshmem_team_id_t {
  NVSHMEM_TEAM_INVALID = -1,
  NVSHMEM_TEAM_WORLD = 0,
  NVSHMEM_TEAM_WORLD_INDEX = 0,
  NVSHMEM_TEAM_SHARED = 1,
  NVSHMEM_TEAM_SHARED_INDEX = 1,
  NVSHMEMX_TEAM_NODE = 2,
  NVSHMEM_TEAM_NODE_INDEX = 2,
  NVSHMEMX_TEAM_SAME_MYPE_NODE = 3,
  NVSHMEM_TEAM_SAME_MYPE_NODE_INDEX = 3,
  /* NVSHMEM 3.7: the PEs sharing a multicast (NVLS) domain. This version creates no multicast objects, so
   * it holds the same PEs as NVSHMEM_TEAM_SHARED (as NVIDIA's does where the two coincide), in a slot of
   * its own (docs/compatibility.md). */
  NVSHMEM_TEAM_MC_SHARED = 6,
  NVSHMEM_TEAM_MC_SHARED_INDEX = 6,
  NVSHMEM_TEAMS_MIN = 7
};

#define NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS 1
#define NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID 2

typedef struct {
  int version;
  int num_contexts;
  nvshmemx_team_uniqueid_t uniqueid;
  char padding[48];
} nvshmem_team_config_t;

/* Struct versions encode (version << 16) + sizeof(struct). */
#define NVSHMEM_TEAM_CONFIG_VERSION ((2 << 16) + sizeof(nvshmem_team_config_t))
#define NVSHMEM_TEAM_CONFIG_INITIALIZER       \
  {                                           \
    (int)NVSHMEM_TEAM_CONFIG_VERSION, 0, 0, { \
      0                                       \
    }                                         \
  }

/* ---- unique id bootstrap ---- */
#define NVSHMEM_UNIQUEID_INTERNAL_SIZE 124
typedef struct {
  int version;
  char internal[NVSHMEM_UNIQUEID_INTERNAL_SIZE];
} nvshmemx_uniqueid_v1;
typedef nvshmemx_uniqueid_v1 nvshmemx_uniqueid_t;
#define NVSHMEMX_UNIQUEID_VERSION ((1 << 16) + sizeof(nvshmemx_uniqueid_t))
#define NVSHMEMX_UNIQUEID_INITIALIZER \
  {                                   \
    (int)NVSHMEMX_UNIQUEID_VERSION, { \
      0                               \
    }                                 \
  }

typedef struct {
  int version;
  nvshmemx_uniqueid_t *id;
  int myrank;
  int nranks;
} nvshmemx_uniqueid_args_v1;
typedef nvshmemx_uniqueid_args_v1 nvshmemx_uniqueid_args_t;
#define NVSHMEMX_UNIQUEID_ARGS_VERSION ((1 << 16) + sizeof(nvshmemx_uniqueid_args_t))

typedef struct {
  int version;
  nvshmemx_uniqueid_args_t uid_args;
  int cuda_device_id; /* -1: the library picks (v2 only) */
  char content[92];
} nvshmemx_init_args_v2;
typedef nvshmemx_init_args_v2 nvshmemx_init_args_t;
#define NVSHMEMX_INIT_ARGS_VERSION ((2 << 16) + sizeof(nvshmemx_init_args_t))

typedef struct {
  int version;
  void *mpi_comm; /* points to an MPI_Comm */
  nvshmemx_init_args_t args;
} nvshmemx_init_attr_v2;
typedef nvshmemx_init_attr_v2 nvshmemx_init_attr_t;
#define NVSHMEMX_INIT_ATTR_VERSION ((2 << 16) + sizeof(nvshmemx_init_attr_t))

/* ---- queue pairs (NVSHMEM 3.5, "Queue Pair (QP) Specific APIs") and PE wildcards ---- */
typedef int nvshmemx_qp_handle_t;
typedef enum {
  NVSHMEMX_QP_HOST = 0,
  NVSHMEMX_QP_DEFAULT = 1,
  NVSHMEMX_QP_ANY = INT32_MAX,
  NVSHMEMX_QP_ALL = INT32_MAX
} nvshmemx_qp_handle_index_t;
typedef enum { NVSHMEM_PE_INVALID = -1, NVSHMEMX_PE_ANY = 1 << 15, NVSHMEMX_PE_ALL = 1 << 15 } nvshmem_pe_index_t;

/* ---- shared memory lent for the TMA data path (NVSHMEM 3.7) ---- */
typedef enum {
  NVSHMEMX_SMEM_RECOMMENDED = 0,
  NVSHMEMX_SMEM_MINIMUM = 1,
  NVSHMEMX_SMEM_BARRIERS_ONLY = 2,
  NVSHMEMX_SMEM_AMOUNT_MAX = INT32_MAX
} nvshmemx_smem_amount_t;
typedef enum {
  NVSHMEMX_TMA_DISABLE = 0,
  NVSHMEMX_TMA_ENABLE = 1,
  NVSHMEMX_TMA_FORCE = 2,
  NVSHMEMX_TMA_POLICY_MAX
} nvshmemx_tma_policy_t;
/* Bytes of a block's shared memory nvshmemx_ask_smem gives for each amount (0 for an unknown one): two
 * staging buffers and the mbarrier of the TMA path (RECOMMENDED: 32 KiB chunks, MINIMUM: 16 KiB), or
 * the mbarrier alone (BARRIERS_ONLY, too little to stage: such a block keeps loads and stores). */
#define NVSHM_TMA_SMEM_BYTES(flag)                 \
  ((flag) == NVSHMEMX_SMEM_RECOMMENDED     ? 65536 \
   : (flag) == NVSHMEMX_SMEM_MINIMUM       ? 32768 \
   : (flag) == NVSHMEMX_SMEM_BARRIERS_ONLY ? 16    \
                                           : 0)

/* ---- RMA regions (NVSHMEM 3.8, "Regions") ---- */
typedef uint64_t nvshmemx_region_handle_t;
typedef enum {
  NVSHMEMX_REGION_HINT_NONE = 0,
  NVSHMEMX_REGION_HINT_BATCH_RMA = 1u << 0 /* nonblocking RMA of the region may be batched by the transport */
} nvshmemx_region_hint_t;
#define NVSHMEMX_REGION_ATTRS_RESERVED_BYTES 60
typedef struct nvshmemx_region_attrs {
  uint32_t hints; /* NVSHMEMX_REGION_HINT_* bits */
  char reserved[NVSHMEMX_REGION_ATTRS_RESERVED_BYTES];
} nvshmemx_region_attrs_t;
#define NVSHMEMX_REGION_ATTRS_INITIALIZER \
  {                                       \
    NVSHMEMX_REGION_HINT_NONE, {          \
      0                                   \
    }                                     \
  }

#define NVSHMEMX_INIT_ATTR_INITIALIZER                                                            \
  {                                                                                               \
    (int)NVSHMEMX_INIT_ATTR_VERSION, NULL, {                                                      \
      (int)NVSHMEMX_INIT_ARGS_VERSION, {(int)NVSHMEMX_UNIQUEID_ARGS_VERSION, NULL, -1, -1}, -1, { \
        0                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }

#endif /* NVSHMEM_DETAIL_TYPES_H */
