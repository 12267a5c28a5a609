# SPDX-License-Identifier: BSD-3-Clause
"""Stream-ordered collectives (nvshmem4py docs: "Collective Operations").

Every member of `team` calls each one in the same order with the same sizes and dtype; counts come from
the arrays (contiguous, symmetric, one dtype). On the CPU backend they complete before returning."""
from . import _nvshmem
from ._arrays import c_type, describe, same_dtype, stream_handle

_REDUCE_OPS = ("sum", "min", "max", "prod", "and", "or", "xor")


def barrier(team, stream=None):
    """Complete this PE's earlier operations on `stream`, then synchronise `team`."""
    _nvshmem.barrier(int(team), stream_handle(stream))


def sync(team, stream=None):
    """Synchronise `team` without completing earlier operations."""
    _nvshmem.sync(int(team), stream_handle(stream))


def _arrays(call, dst, src, dst_per_src):
    """dst and src of one dtype with dst.size == src.size * dst_per_src (a fraction for reducescatter)."""
    d = describe(dst, "dst", call)
    s = describe(src, "src", call)
    same_dtype(call, d, s)
    if d.size != s.size * dst_per_src:
        raise ValueError(f"{call}: dst has {d.size} elements; with src of {s.size} it needs {s.size * dst_per_src}")
    return d, s


def _reduce(call, team, dst, src, op, per, stream):
    if op not in _REDUCE_OPS:
        raise ValueError(f"{call}: op {op!r} is not one of {', '.join(_REDUCE_OPS)}")
    d, s = _arrays(call, dst, src, per)
    key = f"{op}_{c_type(call, d)}"
    if key not in _nvshmem.reduce_types():
        raise TypeError(f"{call}: op {op!r} does not take dtype {d.dtype}")
    _nvshmem.reduce(call, key, int(team), d.ptr, s.ptr, d.size, d.itemsize, stream_handle(stream))


def reduce(team, dst_array, src_array, op, stream=None):
    """dst_array[k] = op over the members of src_array[k] on every member (an all-reduce); op is "sum",
    "min", "max", "prod", or "and"/"or"/"xor" for integers. dst may be src."""
    _reduce("reduce", team, dst_array, src_array, op, 1, stream)


def reducescatter(team, dst_array, src_array, op, stream=None):
    """src_array holds team_n_pes blocks of dst_array.size elements; member i receives op over the members
    of block i."""
    _reduce("reducescatter", team, dst_array, src_array, op, 1 / _nvshmem.team_n_pes(int(team)), stream)


def broadcast(team, dst_array, src_array, root=0, stream=None):
    """Copy member `root`'s src_array into dst_array of every member."""
    d, s = _arrays("broadcast", dst_array, src_array, 1)
    _nvshmem.bytes_collective("broadcast", int(team), d.ptr, s.ptr, s.nbytes, int(root), stream_handle(stream))


def fcollect(team, dst_array, src_array, stream=None):
    """Concatenate every member's src_array, in team order, into dst_array of every member
    (dst_array.size == team_n_pes * src_array.size)."""
    d, s = _arrays("fcollect", dst_array, src_array, _nvshmem.team_n_pes(int(team)))
    _nvshmem.bytes_collective("fcollect", int(team), d.ptr, s.ptr, s.nbytes, 0, stream_handle(stream))


def alltoall(team, dst_array, src_array, stream=None):
    """Block j of member i's src_array lands as block i of member j's dst_array; both hold team_n_pes blocks."""
    d, s = _arrays("alltoall", dst_array, src_array, 1)
    n = _nvshmem.team_n_pes(int(team))
    if n <= 0 or s.size % n:
        raise ValueError(f"alltoall: src has {s.size} elements, not a multiple of the team's {n} PEs")
    _nvshmem.bytes_collective("alltoall", int(team), d.ptr, s.ptr, s.nbytes // n, 0, stream_handle(stream))
