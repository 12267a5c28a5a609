// SPDX-License-Identifier: BSD-3-Clause
// The one copy of the device state for programs built with -rdc=true (the headers declare it
// extern there; without -rdc every translation unit has its own static copy).
#include "nvshmem.h"

__constant__ struct nvshm_device_state nvshm_device_state_d;
