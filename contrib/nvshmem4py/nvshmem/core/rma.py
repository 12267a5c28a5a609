# SPDX-License-Identifier: BSD-3-Clause
"""Stream-ordered RMA and signals (nvshmem4py docs: "Remote Memory Access (RMA)").

`stream`: a CUDA stream object (cuda.core, torch, CuPy), its handle as an int, or None for the null
stream. On the CPU backend the null stream is the only one, and the operation completes before the call
returns. dst and src are contiguous arrays (or Buffers) of the same dtype and size (or with `count`, at least
`count` elements). The target PE is `remote_pe` (positional, or by keyword) or, as in the docs' quick start
and interoperability examples, the keyword `pe`; not both. Arrays are described in the binding (C++)."""
from enum import IntEnum

from . import _nvshmem


class SignalOp(IntEnum):
    """How a signal updates the signal word."""
    SIGNAL_SET = 9
    SIGNAL_ADD = 10


class ComparisonType(IntEnum):
    """The comparisons of signal_wait."""
    CMP_EQ = 0
    CMP_NE = 1
    CMP_GT = 2
    CMP_LE = 3
    CMP_LT = 4
    CMP_GE = 5


def _target(call, remote_pe, pe):
    """The PE of an RMA call given as remote_pe or as pe (the docs use both names)."""
    if pe is None:
        return remote_pe
    if remote_pe != -1:
        raise TypeError(f"{call}: give the PE as remote_pe or as pe, not both")
    return pe


def put(dst, src, remote_pe=-1, stream=None, *, pe=None, count=None):
    """Copy this PE's `src` into PE `remote_pe`'s (or `pe`'s) symmetric `dst`, in stream order: all of it, or
    its first `count` elements. src may be any memory of this PE (on a GPU heap: device or registered memory).
    NvshmemError: PE out of range, dst not symmetric; TypeError/ValueError: dtypes, sizes, count."""
    _nvshmem.put(dst, src, _target("put", remote_pe, pe), stream, count)


def get(dst, src, remote_pe=-1, stream=None, *, pe=None, count=None):
    """Copy PE `remote_pe`'s (or `pe`'s) symmetric `src` into this PE's `dst`, in stream order: all of it, or
    its first `count` elements."""
    _nvshmem.get(dst, src, _target("get", remote_pe, pe), stream, count)


def put_signal(dst, src, signal_var, signal_val, signal_op, remote_pe=-1, stream=None, *, pe=None):
    """put, then update PE `remote_pe`'s `signal_var` (a symmetric uint64 word) with `signal_val` by
    `signal_op` (SignalOp) once the data has arrived."""
    _nvshmem.put_signal(dst, src, signal_var, int(signal_val), int(signal_op), _target("put_signal", remote_pe, pe),
                        stream)


def signal_op(signal_var, signal_val, signal_op, remote_pe=-1, stream=None, *, pe=None):
    """Update PE `remote_pe`'s `signal_var` with `signal_val` by `signal_op` (SignalOp), in stream order."""
    _nvshmem.signal_op(signal_var, int(signal_val), int(signal_op), _target("signal_op", remote_pe, pe), stream)


def signal_wait(signal_var, signal_val, signal_op, stream=None):
    """Later work on `stream` waits until this PE's `signal_var` compares to `signal_val` by `signal_op`
    (ComparisonType). On the CPU backend the call itself waits (bounded by NVSHMEM_BOOTSTRAP_TIMEOUT)."""
    _nvshmem.signal_wait(signal_var, int(signal_val), int(signal_op), stream)


def quiet(stream=None):
    """Complete this PE's earlier puts and signals on `stream`."""
    _nvshmem.quiet(stream)
