# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem.core: the host interface of NVIDIA's nvshmem4py over this NVSHMEM's public C API.

Names, signatures and semantics follow NVIDIA's nvshmem4py documentation ("Python Bindings
(NVSHMEM4Py)"); contrib/nvshmem4py/README.md lists what exists and what does not yet.
"""
from ._nvshmem import Buffer, NvshmemError
from .init_fini import (InitStatus, NvshmemWarning, Teams, UniqueID, finalize, get_unique_id, get_version, init,
                        init_status, my_pe, n_pes, team_my_pe, team_n_pes)
from .memory import (array, buffer, free, free_array, free_tensor, get_peer_array, get_peer_buffer, get_peer_tensor,
                     tensor)
from .rma import ComparisonType, SignalOp, get, put, put_signal, quiet, signal_op, signal_wait
from .collective import alltoall, barrier, broadcast, fcollect, reduce, reducescatter, sync
from .atomics import atomic
from . import direct, interop, memory  # noqa: E402 (the documented submodules, as attributes)

__all__ = [
    "Buffer", "NvshmemError", "NvshmemWarning", "InitStatus", "Teams", "UniqueID", "init", "finalize",
    "get_unique_id", "get_version", "init_status", "my_pe", "n_pes", "team_my_pe", "team_n_pes", "buffer", "free",
    "array", "free_array", "tensor", "free_tensor", "get_peer_array", "get_peer_tensor", "get_peer_buffer", "put",
    "get", "put_signal", "signal_op", "signal_wait", "quiet", "SignalOp", "ComparisonType", "barrier", "sync",
    "reduce", "reducescatter", "broadcast", "fcollect", "alltoall", "atomic"
]
