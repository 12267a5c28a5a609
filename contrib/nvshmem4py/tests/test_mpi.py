# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem.core initialised through mpi4py as NVIDIA's nvshmem4py documents it: initializer_method "mpi" (the
library's MPI bootstrap on the communicator) and "emulated_mpi" (a unique id broadcast by mpi4py), each with
a ring of puts and a reduce on NumPy arrays. Every rank of OpenMPI's mpirun runs it (CPU backend)."""
import numpy as np
import pytest
from mpi4py import MPI

import nvshmem.core as nvshmem

POISON = -99


@pytest.mark.parametrize("method", ["mpi", "emulated_mpi"])
def test_init_through_mpi4py(method):
    comm = MPI.COMM_WORLD
    rank, nranks = comm.Get_rank(), comm.Get_size()
    assert nranks >= 2
    nvshmem.init(mpi_comm=comm, initializer_method=method)
    try:
        assert (nvshmem.my_pe(), nvshmem.n_pes()) == (rank, nranks)
        world = nvshmem.Teams.TEAM_WORLD
        src = nvshmem.array(8, dtype="int64")
        dst = nvshmem.array(8, dtype="int64")
        total = nvshmem.array(8, dtype="int64")
        src[:] = np.arange(8) + 100 * rank
        dst[:] = POISON
        total[:] = POISON
        nvshmem.barrier(world)
        nvshmem.put(dst, src, (rank + 1) % nranks)
        nvshmem.barrier(world)
        assert np.array_equal(dst, np.arange(8) + 100 * ((rank - 1) % nranks))
        nvshmem.reduce(world, total, src, "sum")
        assert np.array_equal(total, nranks * np.arange(8) + 100 * nranks * (nranks - 1) // 2)
        nvshmem.barrier(world)
        for a in (total, dst, src):
            nvshmem.free_array(a)
    finally:
        nvshmem.finalize()
