# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem.core with CuPy and torch on a GPU heap (NVSHMEM_HEAP_KIND=DEVICE), 2 PEs under nvshmrun; run by
gpu_main.py, which skips (77) without a GPU, cupy or torch."""
import cupy
import numpy as np
import torch


def test_array_is_cupy_and_tensor_is_cuda(nv):
    me = nv.my_pe()
    torch.cuda.set_device(torch.cuda.current_device())
    a = nv.array((4, 8), dtype="float32")
    t = nv.tensor((16, ), dtype=torch.int64)
    assert isinstance(a, cupy.ndarray) and a.shape == (4, 8)
    assert t.is_cuda and t.shape == (16, ) and t.dtype == torch.int64
    a[:] = me
    t[:] = torch.arange(16, device=t.device) + me
    assert float(a.sum()) == 32.0 * me and int(t.sum()) == 120 + 16 * me
    nv.free_tensor(t)
    nv.free_array(a)


def test_cupy_put_and_reduce_on_stream(nv):
    me, n = nv.my_pe(), nv.n_pes()
    stream = cupy.cuda.Stream(non_blocking=True)
    src = nv.array(1024, dtype="float32")
    dst = nv.array(1024, dtype="float32")
    src[:] = cupy.arange(1024, dtype=cupy.float32) + 1000 * me
    dst[:] = -99
    cupy.cuda.runtime.deviceSynchronize()
    nv.barrier(nv.Teams.TEAM_WORLD, stream=stream)
    nv.put(dst, src, (me + 1) % n, stream=stream)
    nv.barrier(nv.Teams.TEAM_WORLD, stream=stream)
    stream.synchronize()
    assert cupy.array_equal(dst, cupy.arange(1024, dtype=cupy.float32) + 1000 * ((me - 1) % n))
    nv.reduce(nv.Teams.TEAM_WORLD, dst, src, "sum", stream=stream)
    stream.synchronize()
    expect = sum(np.arange(1024, dtype=np.float32) + 1000 * pe for pe in range(n))
    assert np.array_equal(cupy.asnumpy(dst), expect)
    nv.free_array(dst)
    nv.free_array(src)


def test_torch_fcollect_and_peer_tensor(nv):
    me, n = nv.my_pe(), nv.n_pes()
    stream = torch.cuda.Stream()
    src = nv.tensor((8, ), dtype=torch.int32)
    dst = nv.tensor((8 * n, ), dtype=torch.int32)
    src.copy_(torch.arange(8, dtype=torch.int32, device=src.device) * (me + 1))
    dst.fill_(-99)
    torch.cuda.synchronize()
    nv.fcollect(nv.Teams.TEAM_WORLD, dst, src, stream=stream)
    stream.synchronize()
    expect = torch.cat([torch.arange(8, dtype=torch.int32) * (pe + 1) for pe in range(n)])
    assert torch.equal(dst.cpu(), expect)
    peer = nv.get_peer_tensor(src, (me + 1) % n)  # P2P mapping of the next PE's copy
    assert torch.equal(peer.cpu(), torch.arange(8, dtype=torch.int32) * ((me + 1) % n + 1))
    nv.barrier(nv.Teams.TEAM_WORLD, stream=stream)
    stream.synchronize()
    nv.free_tensor(dst)
    nv.free_tensor(src)
