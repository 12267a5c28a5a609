# SPDX-License-Identifier: BSD-3-Clause
"""A program written for NVIDIA's nvshmem.core, in the forms of NVIDIA's nvshmem4py documentation: unique-id
init (uid._data.view(np.int8) spread by the launcher's means, as that documentation describes for launchers
other than mpi4py: here a file, since the GPU machine may lack mpi4py), a cuda.core Device where cuda.core is
installed, a torch tensor, reduce on a stream, barrier. Run as 2 PEs under nvshmrun by gpu_main.py; prints
"example OK"."""
import os

import numpy as np
import torch

import nvshmem.core as nvshmem


def main():
    # The launcher gives rank and size; rank 0 makes the id and the others read it from a file it writes.
    rank, nranks = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"nvshmem4py-uid-{os.getppid()}")
    uid = nvshmem.get_unique_id(empty=(rank != 0))
    if rank == 0:
        with open(path + ".tmp", "wb") as f:
            f.write(uid._data.view(np.int8).tobytes())
        os.rename(path + ".tmp", path)
    else:
        import time
        for _ in range(600):
            if os.path.exists(path):
                break
            time.sleep(0.1)
        with open(path, "rb") as f:
            uid._data.view(np.int8)[:] = np.frombuffer(f.read(), dtype=np.int8)
    try:
        from cuda.core.experimental import Device, system
        dev = Device(rank % system.num_devices)
        dev.set_current()
    except ImportError:  # no cuda.core here: a device number, which nvshmem.core.init also takes
        dev = rank % torch.cuda.device_count()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    print(f"PE {rank}: device {dev}")
    nvshmem.init(device=dev, uid=uid, rank=rank, nranks=nranks, initializer_method="uid")
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
