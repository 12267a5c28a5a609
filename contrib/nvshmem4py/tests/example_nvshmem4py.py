# SPDX-License-Identifier: BSD-3-Clause
"""A program written for NVIDIA's nvshmem.core, unchanged: unique-id init (the id spread through a symmetric
broadcast here instead of mpi4py, which the GPU machine may lack), a torch tensor, reduce on a stream,
barrier. Run as 2 PEs under nvshmrun by gpu_main.py; prints "example OK"."""
import os

import torch

import nvshmem.core as nvshmem


def main():
    # The launcher gives rank and size; rank 0 makes the id and the others read it from a file it writes.
    rank, nranks = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"nvshmem4py-uid-{os.getppid()}")
    uid = nvshmem.get_unique_id(empty=(rank != 0))
    if rank == 0:
        with open(path + ".tmp", "wb") as f:
            f.write(bytes(uid))
        os.rename(path + ".tmp", path)
    else:
        import time
        for _ in range(600):
            if os.path.exists(path):
                break
            time.sleep(0.1)
        with open(path, "rb") as f:
            uid._data[:] = list(f.read())
    torch.cuda.set_device(rank % torch.cuda.device_count())
    nvshmem.init(device=rank % torch.cuda.device_count(), uid=uid, rank=rank, nranks=nranks,
                 initializer_method="uid")
    stream = torch.cuda.Stream()
    t = nvshmem.tensor((256, ), dtype=torch.float32)
    out = nvshmem.tensor((256, ), dtype=torch.float32)
    t.fill_(float(nvshmem.my_pe() + 1))
    torch.cuda.synchronize()
    nvshmem.reduce(nvshmem.Teams.TEAM_WORLD, out, t, "sum", stream=stream)
    nvshmem.barrier(nvshmem.Teams.TEAM_WORLD, stream=stream)
    stream.synchronize()
    assert torch.all(out == nranks * (nranks + 1) / 2)
    nvshmem.free_tensor(out)
    nvshmem.free_tensor(t)
    nvshmem.finalize()
    if rank == 0:
        os.remove(path)
    print(f"example OK: PE {rank} of {nranks}")


if __name__ == "__main__":
    main()
