# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem.core with NumPy arrays on the CPU backend (NVSHMEM_HEAP_KIND=SYSMEM), every PE under nvshmrun.
Outputs are poisoned first; expected values depend on the PE, so a copy from the wrong PE shows."""
import numpy as np
import pytest

POISON = -99


def world(nv):
    return nv.Teams.TEAM_WORLD


def test_ids(nv):
    me, n = nv.my_pe(), nv.n_pes()
    assert 0 <= me < n and n >= 2
    assert nv.team_my_pe(world(nv)) == me and nv.team_n_pes(world(nv)) == n
    assert nv.init_status() == nv.InitStatus.STATUS_IS_INITIALIZED
    major, _, _, name = nv.get_version()
    assert major == 3 and name.startswith("NVSHMEM")


def test_array_is_numpy_on_host_heap(nv):
    a = nv.array((2, 3), dtype="float64")
    assert isinstance(a, np.ndarray) and a.shape == (2, 3) and a.dtype == np.float64
    a[:] = np.arange(6).reshape(2, 3) + nv.my_pe()
    buf = nv.memory._live[a.ctypes.data]
    assert buf.__dlpack_device__() == (1, 0) and not buf.is_device_accessible
    # The DLPack export sees the same bytes.
    assert np.array_equal(np.from_dlpack(buf).view(np.float64), a.ravel())
    nv.free_array(a)


def test_put_get_ring(nv):
    me, n = nv.my_pe(), nv.n_pes()
    nxt, prev = (me + 1) % n, (me - 1) % n
    src = nv.array(8, dtype="float64")
    dst = nv.array(8, dtype="float64")
    src[:] = np.arange(8) + 100.0 * me
    dst[:] = POISON
    nv.barrier(world(nv))
    nv.put(dst, src, nxt)
    nv.barrier(world(nv))
    assert np.array_equal(dst, np.arange(8) + 100.0 * prev)
    local = np.full(8, POISON, dtype=np.float64)  # get into private memory
    nv.get(local, src, nxt)
    assert np.array_equal(local, np.arange(8) + 100.0 * nxt)
    nv.barrier(world(nv))
    nv.free_array(dst)
    nv.free_array(src)


def test_put_signal_and_wait(nv):
    me, n = nv.my_pe(), nv.n_pes()
    nxt, prev = (me + 1) % n, (me - 1) % n
    data = nv.array(16, dtype="int32")
    sig = nv.array(1, dtype="uint64")
    data[:] = POISON
    sig[:] = 0
    src = np.arange(16, dtype=np.int32) * (me + 2)
    nv.barrier(world(nv))
    nv.put_signal(data, src, sig, me + 1, nv.SignalOp.SIGNAL_SET, nxt)
    nv.signal_wait(sig, prev + 1, nv.ComparisonType.CMP_EQ)
    assert np.array_equal(data, np.arange(16, dtype=np.int32) * (prev + 2))
    nv.barrier(world(nv))
    # SIGNAL_ADD from every PE onto PE 0's word.
    sig[:] = 5
    nv.barrier(world(nv))
    nv.signal_op(sig, me + 1, nv.SignalOp.SIGNAL_ADD, 0)
    nv.quiet()
    nv.barrier(world(nv))
    assert int(sig[0]) == (5 + n * (n + 1) // 2 if me == 0 else 5)
    nv.free_array(sig)
    nv.free_array(data)


@pytest.mark.parametrize("dtype", ["int32", "float32", "int64", "float64"])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_reduce(nv, op, dtype):
    me, n = nv.my_pe(), nv.n_pes()
    src = nv.array(37, dtype=dtype)
    dst = nv.array(37, dtype=dtype)
    contrib = [np.arange(37, dtype=dtype) * (pe + 1) - 3 * pe for pe in range(n)]
    src[:] = contrib[me]
    dst[:] = POISON
    nv.reduce(world(nv), dst, src, op)
    expect = {"sum": np.sum, "max": np.max, "min": np.min}[op](np.stack(contrib), axis=0)
    assert np.allclose(dst, expect), (op, dtype, dst, expect)
    nv.free_array(dst)
    nv.free_array(src)


def test_reducescatter_broadcast_fcollect_alltoall(nv):
    me, n = nv.my_pe(), nv.n_pes()
    k = 5
    src = nv.array(n * k, dtype="int64")
    dst = nv.array(k, dtype="int64")
    big = nv.array(n * k, dtype="int64")
    small = nv.array(k, dtype="int64")
    value = lambda pe: np.arange(n * k, dtype=np.int64) * 7 + 1000 * pe  # noqa: E731
    src[:] = value(me)
    dst[:] = POISON
    nv.reducescatter(world(nv), dst, src, "sum")
    assert np.array_equal(dst, sum(value(pe) for pe in range(n))[me * k:(me + 1) * k])

    small[:] = np.arange(k) + 10 * me
    dst[:] = POISON
    nv.broadcast(world(nv), dst, small, root=n - 1)
    assert np.array_equal(dst, np.arange(k) + 10 * (n - 1))

    big[:] = POISON
    nv.fcollect(world(nv), big, small)
    assert np.array_equal(big, np.concatenate([np.arange(k) + 10 * pe for pe in range(n)]))

    big[:] = POISON
    nv.alltoall(world(nv), big, src)  # block j of PE i lands as block i of PE j
    assert np.array_equal(big, np.concatenate([value(pe)[me * k:(me + 1) * k] for pe in range(n)]))
    nv.barrier(world(nv))
    for a in (small, big, dst, src):
        nv.free_array(a)


def test_peer_array(nv):
    me, n = nv.my_pe(), nv.n_pes()
    a = nv.array((3, 4), dtype="float32")
    a[:] = POISON
    nv.barrier(world(nv))
    peer = nv.get_peer_array(a, (me + 1) % n)
    assert peer.shape == (3, 4) and peer.dtype == np.float32
    peer[:] = np.arange(12, dtype=np.float32).reshape(3, 4) + me  # a store into the next PE's copy
    nv.barrier(world(nv))
    assert np.array_equal(a, np.arange(12, dtype=np.float32).reshape(3, 4) + (me - 1) % n)
    with pytest.raises(nv.NvshmemError, match=r"free.*peer view"):
        nv.free(nv.get_peer_buffer(nv.memory._live[a.ctypes.data], 0))
    nv.free_array(a)


def test_host_atomics(nv):
    me, n = nv.my_pe(), nv.n_pes()
    counter = nv.array(2, dtype="int64")
    counter[:] = [100, 7]
    nv.barrier(world(nv))
    old = nv.atomic("fetch_add", counter, 0, value=me + 1)
    assert 100 <= old < 100 + n * (n + 1) // 2
    nv.barrier(world(nv))
    assert nv.atomic("fetch", counter, 0) == 100 + n * (n + 1) // 2
    nv.barrier(world(nv))
    # Exactly one PE wins the swap of element 1 on PE 0.
    won = nv.atomic("compare_swap", counter, 0, value=1000 + me, cond=7, index=1) == 7
    flags = nv.array(1, dtype="int64")
    flags[:] = int(won)
    total = nv.array(1, dtype="int64")
    nv.reduce(world(nv), total, flags, "sum")
    assert int(total[0]) == 1
    f = nv.array(1, dtype="float64")
    f[:] = 0.5
    nv.barrier(world(nv))
    assert nv.atomic("swap", f, (me + 1) % n, value=2.25 + me) == 0.5
    nv.barrier(world(nv))
    assert f[0] == 2.25 + (me - 1) % n
    with pytest.raises(TypeError, match="no atomic fetch_add on double"):
        nv.atomic("fetch_add", f, 0, value=1.0)
    with pytest.raises(IndexError):
        nv.atomic("fetch", counter, 0, index=2)
    nv.barrier(world(nv))
    for a in (f, total, flags, counter):
        nv.free_array(a)


def test_errors_name_call_pe_and_cause(nv):
    me, n = nv.my_pe(), nv.n_pes()
    a = nv.array(4, dtype="float32")
    b = nv.array(4, dtype="int32")
    with pytest.raises(TypeError, match="put: dst has dtype float32 but src has int32"):
        nv.put(a, b, 0)
    with pytest.raises(ValueError, match="dst has 4 elements but src has 3"):
        nv.put(a, np.zeros(3, dtype=np.float32), 0)
    with pytest.raises(nv.NvshmemError, match=rf"nvshmem error \(PE {me}\) in put: PE {n} is out of range"):
        nv.put(a, a, n)
    private = np.zeros(4, dtype=np.float32)
    with pytest.raises(nv.NvshmemError, match=rf"\(PE {me}\) in put: dst .* is not in the symmetric heap"):
        nv.put(private, a, 0)
    with pytest.raises(ValueError, match="not C-contiguous"):
        nv.put(a[::2], a[:2], 0)
    with pytest.raises(TypeError, match="must be an array"):
        nv.put([1.0], a, 0)
    with pytest.raises(TypeError, match="op 'xor' does not take dtype float32"):
        nv.reduce(world(nv), a, a, "xor")
    with pytest.raises(ValueError, match="op 'avg'"):
        nv.reduce(world(nv), a, a, "avg")
    with pytest.raises(ValueError, match="needs"):
        nv.fcollect(world(nv), a, a)
    with pytest.raises(nv.NvshmemError, match=r"in broadcast: root 9 is out of range"):
        nv.broadcast(world(nv), a, a, root=9)
    with pytest.raises(TypeError, match="signal_var must be a uint64 array"):
        nv.signal_op(b, 1, nv.SignalOp.SIGNAL_SET, 0)
    with pytest.raises(ValueError, match="buffer: size must be a positive"):
        nv.buffer(0)
    with pytest.raises(ValueError, match="does not start an allocation"):
        nv.free_array(a[1:])
    buf = nv.buffer(64)
    nv.free(buf)
    with pytest.raises(nv.NvshmemError, match=rf"\(PE {me}\) in free: the buffer was already freed"):
        nv.free(buf)
    with pytest.raises(ValueError, match="initializer_method"):
        nv.init(initializer_method="pmi")
    nv.free_array(b)
    nv.free_array(a)


def test_documented_keyword_forms(nv):
    """The call forms of NVIDIA's nvshmem4py documentation, with keywords as its examples write them: the quick
    start's put(x, y, pe=1, stream=stream), the interoperability page's put/get(..., count=..., pe=...),
    memory.buffer(size)/memory.free, direct.my_pe; and the remote_pe name of the API reference."""
    me, n = nv.my_pe(), nv.n_pes()
    nxt, prev = (me + 1) % n, (me - 1) % n
    assert nv.direct.my_pe() == me and nv.direct.n_pes() == n
    assert nv.direct.team_my_pe(nv.Teams.TEAM_WORLD) == me and nv.direct.team_n_pes(nv.Teams.TEAM_WORLD) == n
    x = nv.array((16, ), dtype="float32")
    y = nv.array((16, ), dtype="float32")
    y[:] = np.arange(16, dtype=np.float32) + 100 * me
    x[:] = POISON
    nv.barrier(team=nv.Teams.TEAM_WORLD, stream=None)
    nv.put(x, y, pe=nxt, stream=None)
    nv.barrier(nv.Teams.TEAM_WORLD, stream=None)
    assert np.array_equal(x, np.arange(16, dtype=np.float32) + 100 * prev)
    # count: the first elements only; the rest keep their values.
    x[:] = POISON
    nv.barrier(nv.Teams.TEAM_WORLD)
    nv.put(x, y, count=5, pe=nxt)
    nv.barrier(nv.Teams.TEAM_WORLD)
    assert np.array_equal(x[:5], np.arange(5, dtype=np.float32) + 100 * prev) and np.all(x[5:] == POISON)
    local = np.full(16, POISON, dtype=np.float32)
    nv.get(dst=local, src=y, count=y.size, pe=prev)
    assert np.array_equal(local, np.arange(16, dtype=np.float32) + 100 * prev)
    local[:] = POISON
    nv.get(local, y, remote_pe=nxt, stream=None)
    assert np.array_equal(local, np.arange(16, dtype=np.float32) + 100 * nxt)
    x[:] = POISON
    nv.reduce(team=nv.Teams.TEAM_WORLD, dst=x, src=y, op="sum", stream=None)
    assert np.array_equal(x, sum(np.arange(16, dtype=np.float32) + 100 * pe for pe in range(n)))
    x[:] = POISON
    nv.broadcast(team=nv.Teams.TEAM_WORLD, dst=x, src=y, root=n - 1, stream=None)
    assert np.array_equal(x, np.arange(16, dtype=np.float32) + 100 * (n - 1))
    buf = nv.memory.buffer(64)
    assert buf.size == 64
    nv.memory.free(buf)
    peer = nv.get_peer_array(y, pe=nxt)
    assert np.array_equal(peer, np.arange(16, dtype=np.float32) + 100 * nxt)
    with pytest.raises(TypeError, match="put: give the PE as remote_pe or as pe, not both"):
        nv.put(x, y, 0, pe=0)
    with pytest.raises(ValueError, match=r"get: count 17 is outside \[0, 16\]"):
        nv.get(local, y, pe=0, count=17)
    with pytest.raises(TypeError, match="init: give device or dev, not both"):
        nv.init(device=0, dev=0)
    nv.barrier(nv.Teams.TEAM_WORLD)
    nv.free_array(y)
    nv.free_array(x)
