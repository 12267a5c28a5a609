# SPDX-License-Identifier: BSD-3-Clause
"""Stream-ordered RMA and signals (nvshmem4py docs: "Remote Memory Access (RMA)").

`stream`: a CUDA stream object (cuda.core, torch, CuPy), its handle as an int, or None for the null
stream. On the CPU backend the null stream is the only one, and the operation completes before the call
returns. dst and src are contiguous arrays (or Buffers) of the same dtype and size."""
from enum import IntEnum

from . import _nvshmem
from ._arrays import describe, same_dtype, stream_handle


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


def _pair(call, dst, src):
    d = describe(dst, "dst", call)
    s = describe(src, "src", call)
    same_dtype(call, d, s)
    if d.nbytes != s.nbytes:
        raise ValueError(f"{call}: dst has {d.size} elements but src has {s.size}")
    return d, s


def _signal_word(call, signal_var):
    v = describe(signal_var, "signal_var", call)
    if v.dtype not in ("uint64", None) or v.nbytes < 8:
        raise TypeError(f"{call}: signal_var must be a uint64 array (or a Buffer of at least 8 bytes), "
                        f"not {v.dtype} of {v.nbytes} bytes")
    return v.ptr


def put(dst, src, remote_pe=-1, stream=None):
    """Copy this PE's `src` into PE `remote_pe`'s symmetric `dst`, in stream order. src may be any memory of
    this PE (on a GPU heap: device or registered memory). NvshmemError: PE out of range, dst not symmetric."""
    d, s = _pair("put", dst, src)
    _nvshmem.put(d.ptr, s.ptr, d.nbytes, remote_pe, stream_handle(stream))


def get(dst, src, remote_pe=-1, stream=None):
    """Copy PE `remote_pe`'s symmetric `src` into this PE's `dst`, in stream order."""
    d, s = _pair("get", dst, src)
    _nvshmem.get(d.ptr, s.ptr, d.nbytes, remote_pe, stream_handle(stream))


def put_signal(dst, src, signal_var, signal_val, signal_op, remote_pe=-1, stream=None):
    """put, then update PE `remote_pe`'s `signal_var` (a symmetric uint64 word) with `signal_val` by
    `signal_op` (SignalOp) once the data has arrived."""
    d, s = _pair("put_signal", dst, src)
    _nvshmem.put_signal(d.ptr, s.ptr, d.nbytes, _signal_word("put_signal", signal_var), int(signal_val),
                        int(signal_op), remote_pe, stream_handle(stream))


def signal_op(signal_var, signal_val, signal_op, remote_pe=-1, stream=None):
    """Update PE `remote_pe`'s `signal_var` with `signal_val` by `signal_op` (SignalOp), in stream order."""
    _nvshmem.signal_op(_signal_word("signal_op", signal_var), int(signal_val), int(signal_op), remote_pe,
                       stream_handle(stream))


def signal_wait(signal_var, signal_val, signal_op, stream=None):
    """Later work on `stream` waits until this PE's `signal_var` compares to `signal_val` by `signal_op`
    (ComparisonType). On the CPU backend the call itself waits (bounded by NVSHMEM_BOOTSTRAP_TIMEOUT)."""
    _nvshmem.signal_wait(_signal_word("signal_wait", signal_var), int(signal_val), int(signal_op),
                         stream_handle(stream))


def quiet(stream=None):
    """Complete this PE's earlier puts and signals on `stream`."""
    _nvshmem.quiet(stream_handle(stream))
