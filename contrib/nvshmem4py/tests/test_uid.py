# SPDX-License-Identifier: BSD-3-Clause
"""init(uid=..., rank=..., nranks=..., initializer_method="uid") without a launcher: this process is rank 0;
it makes the unique id and starts two more processes with its bytes (the spreading that mpi4py's Bcast does
in nvshmem4py's example). Each rank reduces its rank + 1 and checks the sum."""
import os
import subprocess
import sys

import numpy as np

NRANKS = 3

RANK_PROGRAM = """
import sys
import nvshmem.core as nv
uid = nv.get_unique_id(empty=True)
uid._data[:] = list(bytes.fromhex(sys.argv[3]))
nv.init(uid=uid, rank=int(sys.argv[1]), nranks=int(sys.argv[2]), initializer_method="uid")
a = nv.array(4, dtype="int32")
b = nv.array(4, dtype="int32")
a[:] = nv.my_pe() + 1
b[:] = -99
nv.reduce(nv.Teams.TEAM_WORLD, b, a, "sum")
assert nv.my_pe() == int(sys.argv[1]) and nv.n_pes() == int(sys.argv[2]), (nv.my_pe(), nv.n_pes())
assert list(b) == [int(sys.argv[2]) * (int(sys.argv[2]) + 1) // 2] * 4, list(b)
nv.free_array(b)
nv.free_array(a)
nv.finalize()
print("rank", sys.argv[1], "OK")
"""


def test_uid_init_three_processes():
    import nvshmem.core as nv
    uid = nv.get_unique_id()
    assert uid._data.dtype == np.uint8 and uid._data.size == 128 and uid._data.any()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVSHMEM_PE", "NVSHMRUN", "PMI"))}
    others = [
        subprocess.Popen([sys.executable, "-c", RANK_PROGRAM, str(r), str(NRANKS), bytes(uid).hex()], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for r in range(1, NRANKS)
    ]
    try:
        # Rank 0 in this process, the same program.
        sys.argv = ["rank", "0", str(NRANKS), bytes(uid).hex()]
        exec(RANK_PROGRAM, {"__name__": "rank0"})  # noqa: S102 (the program above, run as rank 0)
    finally:
        outputs = [p.communicate(timeout=90)[0] for p in others]
    for r, (p, out) in enumerate(zip(others, outputs), start=1):
        assert p.returncode == 0 and f"rank {r} OK" in out, out
