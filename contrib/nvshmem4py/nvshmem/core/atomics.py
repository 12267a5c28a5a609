# SPDX-License-Identifier: BSD-3-Clause
"""Host atomics on symmetric memory: an extension of this package (nvshmem4py's host interface has none);
the C calls nvshmem_<T>_atomic_<op> (NVSHMEM docs: "Atomic Memory Operations")."""
from . import _nvshmem
from ._arrays import c_type, describe

_OPS = ("fetch", "set", "swap", "compare_swap", "inc", "fetch_inc", "add", "fetch_add", "and", "fetch_and", "or",
        "fetch_or", "xor", "fetch_xor")


def atomic(op, array, pe, value=0, cond=0, index=0):
    """Apply atomic `op` to element `index` of symmetric `array` on PE `pe`; returns the fetched (old) value
    for fetch, swap, compare_swap and the fetch_* forms, else None. compare_swap stores `value` where the
    element equals `cond`. Types: int32/int64/uint32/uint64 for all ops; float32/float64 for fetch, set and
    swap (TypeError otherwise). IndexError for an index outside the array."""
    if op not in _OPS:
        raise ValueError(f"atomic: op {op!r} is not one of {', '.join(_OPS)}")
    v = describe(array, "array", "atomic_" + op)
    if not 0 <= index < v.size:
        raise IndexError(f"atomic_{op}: index {index} is outside the array of {v.size} elements")
    return _nvshmem.atomic(op, c_type("atomic_" + op, v), v.ptr + index * v.itemsize, v.itemsize, value, cond, pe)
