# SPDX-License-Identifier: BSD-3-Clause
"""What the calls accept, in one place: arrays (NumPy, CuPy, torch, anything with the array interfaces),
Buffers and streams, reduced to addresses, byte counts and dtype names; with the checks that refuse wrong
dtypes (TypeError) and shapes (ValueError)."""
from math import prod
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


def _c_contiguous(shape, strides, itemsize):
    expect = itemsize
    for dim, stride in zip(reversed(shape), reversed(strides)):
        if dim != 1 and stride != expect:
            return False
        expect *= dim
    return True


def is_torch(obj):
    return type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr")


def describe(obj, what, call):
    """The View of `obj` (argument `what` of `call`); TypeError for what is not an array, ValueError for a
    non-contiguous one."""
    if isinstance(obj, _nvshmem.Buffer):
        return View(obj.handle, obj.size, None, obj.size, 1)
    if is_torch(obj):
        if not obj.is_contiguous():
            raise ValueError(f"{call}: {what} is not contiguous")
        itemsize = obj.element_size()
        return View(obj.data_ptr(), obj.numel() * itemsize, str(obj.dtype).replace("torch.", ""), obj.numel(),
                    itemsize)
    iface = getattr(obj, "__cuda_array_interface__", None) or getattr(obj, "__array_interface__", None)
    if iface is None:
        raise TypeError(f"{call}: {what} must be an array (NumPy, CuPy), a torch tensor or an nvshmem.core.Buffer, "
                        f"not {type(obj).__name__}")
    import numpy as np
    dtype = np.dtype(iface["typestr"])
    shape = tuple(iface["shape"])
    strides = iface.get("strides")
    if strides is not None and not _c_contiguous(shape, strides, dtype.itemsize):
        raise ValueError(f"{call}: {what} is not C-contiguous")
    size = prod(shape)
    return View(iface["data"][0], size * dtype.itemsize, dtype.name, size, dtype.itemsize)


def same_dtype(call, dst, src):
    if dst.dtype != src.dtype:
        raise TypeError(f"{call}: dst has dtype {dst.dtype} but src has {src.dtype}")


def c_type(call, view):
    name = C_TYPES.get(view.dtype)
    if name is None:
        raise TypeError(f"{call}: dtype {view.dtype} is not supported (one of {', '.join(C_TYPES)})")
    return name


def stream_handle(stream):
    """cudaStream_t as an int: None (the null stream, the only one on the CPU backend), an int, or a stream
    object of cuda.core (__cuda_stream__ or .handle), torch (.cuda_stream) or CuPy (.ptr)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("handle", "cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"stream must be None, an int or a CUDA stream object, not {type(stream).__name__}")
