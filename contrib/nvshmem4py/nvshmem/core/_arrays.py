# SPDX-License-Identifier: BSD-3-Clause
"""What the calls accept, in one place: arrays (NumPy, CuPy, torch, anything with the array interfaces) and
Buffers are described by the binding (``_nvshmem.describe``/``pair``, in C++: TypeError for a wrong dtype,
ValueError for a wrong shape); here the dtype names of the library's typed families."""
from typing import NamedTuple

from . import _nvshmem

# NumPy / torch dtype names -> the C type names of the library's typed families (type_lists.h).
C_TYPES = {
    "float16": "half", "bfloat16": "bfloat16", "float32": "float", "float64": "double", "int8": "int8",
    "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16",
    "uint32": "uint32", "uint64": "uint64"
}


class View(NamedTuple):
    """A contiguous span: address, bytes, dtype name (None for a Buffer), elements, element bytes."""
    ptr: int
    nbytes: int
    dtype: object
    size: int
    itemsize: int


def is_torch(obj):
    """True for a torch tensor."""
    return type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr")


def describe(obj, what, call):
    """The View of `obj` (argument `what` of `call`); TypeError for what is not an array, ValueError for a
    non-contiguous one."""
    return View(*_nvshmem.describe(obj, what, call))


def pair(call, dst, src, num=1, den=1):
    """Views of dst and src of one dtype (TypeError otherwise) with dst.size == src.size * num / den
    (ValueError otherwise)."""
    d, s = _nvshmem.pair(call, dst, src, num, den)
    return View(*d), View(*s)


def c_type(call, view):
    """The C type name of the view's dtype; TypeError for a dtype the typed families lack."""
    name = C_TYPES.get(view.dtype)
    if name is None:
        raise TypeError(f"{call}: dtype {view.dtype} is not supported (one of {', '.join(C_TYPES)})")
    return name
