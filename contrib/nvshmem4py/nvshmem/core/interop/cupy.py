# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem.core.interop.cupy: CuPy arrays on symmetric memory (docs: "Interoperability")."""
import cupy

from .. import _nvshmem, memory


def empty(shape, dtype=cupy.float32):
    """An uninitialised symmetric CuPy array of `shape` and `dtype` (collective). Free it with
    nvshmem.core.free_array. NvshmemError on the CPU backend's host heap, which CuPy cannot address
    (nvshmem.core.array gives NumPy arrays there)."""
    arr = memory.array(shape, dtype=dtype)
    if not isinstance(arr, cupy.ndarray):
        memory.free_array(arr)  # collective, like the allocation: every PE takes this branch
        raise _nvshmem.NvshmemError(f"nvshmem error (PE {_nvshmem.my_pe()}) in interop.cupy.empty: the symmetric "
                                    "heap is host memory (NVSHMEM_HEAP_KIND=SYSMEM), which CuPy cannot address")
    return arr
