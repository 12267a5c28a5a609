# SPDX-License-Identifier: BSD-3-Clause
"""Stream-ordered collectives (nvshmem4py docs: "Collective Operations").

Every member of `team` calls each one in the same order with the same sizes and dtype; counts come from
the arrays (contiguous, symmetric, one dtype). On the CPU backend they complete before returning."""
from . import _nvshmem
from ._arrays import c_type, pair

_REDUCE_OPS = ("sum", "min", "max", "prod", "and", "or", "xor")


def barrier(team, stream=None):
    """Complete this PE's earlier operations on `stream`, then synchronise `team`."""
    _nvshmem.barrier(int(team), stream)


def sync(team, stream=None):
    """Synchronise `team` without completing earlier operations."""
    _nvshmem.sync(int(team), stream)


def _team_size(call, team):
    n = _nvshmem.team_n_pes(int(team))
    if n <= 0:
        raise ValueError(f"{call}: team {int(team)} is not a valid team")
    return n


def _reduce(call, team, dst, src, op, num, den, stream):
    if op not in _REDUCE_OPS:
        raise ValueError(f"{call}: op {op!r} is not one of {', '.join(_REDUCE_OPS)}")
    d, s = pair(call, dst, src, num, den)
    key = f"{op}_{c_type(call, d)}"
    if key not in _nvshmem.reduce_types():
        raise TypeError(f"{call}: op {op!r} does not take dtype {d.dtype}")
    _nvshmem.reduce(call, key, int(team), d.ptr, s.ptr, d.size, d.itemsize, stream)


def reduce(team, dst, src, op, stream=None):
    """dst[k] = op over the members of src[k] on every member of `team` (an all-reduce); op is "sum", "min",
    "max", "prod", or "and"/"or"/"xor" for integers. dst may be src."""
    _reduce("reduce", team, dst, src, op, 1, 1, stream)


def reducescatter(team, dst, src, op, stream=None):
    """src holds team_n_pes blocks of dst.size elements; member i receives op over the members of block i."""
    _reduce("reducescatter", team, dst, src, op, 1, _team_size("reducescatter", team), stream)


def broadcast(team, dst, src, root=0, stream=None):
    """Copy member `root`'s src into dst of every member."""
    d, s = pair("broadcast", dst, src)
    _nvshmem.bytes_collective("broadcast", int(team), d.ptr, s.ptr, s.nbytes, int(root), stream)


def fcollect(team, dst, src, stream=None):
    """Concatenate every member's src, in team order, into dst of every member (dst.size == team_n_pes *
    src.size)."""
    d, s = pair("fcollect", dst, src, _team_size("fcollect", team))
    _nvshmem.bytes_collective("fcollect", int(team), d.ptr, s.ptr, s.nbytes, 0, stream)


def alltoall(team, dst, src, stream=None):
    """Block j of member i's src lands as block i of member j's dst; both hold team_n_pes blocks."""
    d, s = pair("alltoall", dst, src)
    n = _team_size("alltoall", team)
    if s.size % n:
        raise ValueError(f"alltoall: src has {s.size} elements, not a multiple of the team's {n} PEs")
    _nvshmem.bytes_collective("alltoall", int(team), d.ptr, s.ptr, s.nbytes // n, 0, stream)
