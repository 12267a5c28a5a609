# SPDX-License-Identifier: BSD-3-Clause
"""Symmetric memory (nvshmem4py docs: "Memory Management", "Interoperability").

Allocation and free are collective: every PE calls them in the same order with the same sizes. A Buffer
exports itself through DLPack on the heap's device: CUDA memory on a GPU heap, host memory on the CPU
backend (NVSHMEM_HEAP_KIND=SYSMEM), where array() gives NumPy arrays."""
from math import prod

from . import _nvshmem
from ._arrays import describe, is_torch

_live = {}  # address -> owning Buffer, until free()


def buffer(size, release=False, except_on_del=True):
    """`size` bytes of symmetric memory as a Buffer (collective). release and except_on_del are accepted
    for nvshmem4py's signature and have no effect: memory lives until free() or finalize()."""
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"buffer: size must be a positive number of bytes, not {size!r}")
    buf = _nvshmem.malloc(size)
    _live[buf.handle] = buf
    return buf


def free(buf):
    """Free a Buffer from buffer() (collective). NvshmemError for a peer view or a buffer freed twice."""
    _nvshmem.free(buf)
    _live.pop(buf.handle, None)


def release_all():
    """Free every live allocation (finalize); returns how many there were."""
    count = len(_live)
    for buf in list(_live.values()):
        free(buf)
    return count


def _shape(shape):
    shape = (shape, ) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if not shape or any(d <= 0 for d in shape):
        raise ValueError(f"shape {shape} must have at least one element in every dimension")
    return shape


def _numpy_view(buf, dtype, shape):
    import numpy as np
    return np.frombuffer(buf, dtype=dtype).reshape(shape)  # writable, unlike NumPy 1.24's from_dlpack


def _cupy_view(buf, dtype, shape):
    import cupy
    return cupy.from_dlpack(buf).view(dtype).reshape(shape)


def _torch_view(buf, dtype, shape):
    import torch
    return torch.from_dlpack(buf).view(dtype).reshape(shape)


def array(shape, dtype="float32", release=False, except_on_del=True):
    """A symmetric array of `shape` and `dtype` (collective): a CuPy array on a GPU heap (imports cupy), a
    NumPy array on the CPU backend. ValueError for an empty shape, TypeError for an unknown dtype."""
    import numpy as np
    dt = np.dtype(dtype)
    shape = _shape(shape)
    buf = buffer(prod(shape) * dt.itemsize)
    return (_cupy_view if buf.is_device_accessible else _numpy_view)(buf, dt, shape)


def tensor(shape, dtype=None, release=False, except_on_del=True):
    """A symmetric torch tensor of `shape` and `dtype` (default torch.float32; collective), on the GPU for a
    GPU heap, on the CPU for the CPU backend. Imports torch."""
    import torch
    dtype = torch.float32 if dtype is None else dtype
    shape = _shape(shape)
    itemsize = torch.empty((), dtype=dtype).element_size()
    return _torch_view(buffer(prod(shape) * itemsize), dtype, shape)


def _owning(obj, call):
    view = describe(obj, "the array", call)
    buf = _live.get(view.ptr)
    if buf is None:
        raise ValueError(f"{call}: the array does not start an allocation of nvshmem.core.array/tensor/buffer "
                         "(or it was freed)")
    return buf


def free_array(arr):
    """Free an array from array() (collective)."""
    free(_owning(arr, "free_array"))


def free_tensor(t):
    """Free a tensor from tensor() (collective)."""
    free(_owning(t, "free_tensor"))


def get_peer_buffer(buf, pe):
    """PE `pe`'s copy of `buf`, mapped into this process (nvshmem_ptr), as a non-owning Buffer.
    NvshmemError when that PE's memory is not reachable by load/store."""
    return _nvshmem.peer(buf.handle, buf.size, pe)


def get_peer_array(arr, pe):
    """PE `pe`'s copy of the symmetric array `arr`, as an array of the same kind, dtype and shape whose loads
    and stores go to that PE's memory. NvshmemError when it is not reachable by load/store."""
    view = describe(arr, "the array", "get_peer_array")
    peer = _nvshmem.peer(view.ptr, view.nbytes, pe)
    if is_torch(arr):
        return _torch_view(peer, arr.dtype, tuple(arr.shape))
    module = type(arr).__module__
    return (_cupy_view if module.startswith("cupy") else _numpy_view)(peer, arr.dtype, arr.shape)


def get_peer_tensor(t, pe):
    """get_peer_array for torch tensors."""
    return get_peer_array(t, pe)
