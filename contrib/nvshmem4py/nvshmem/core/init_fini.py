# SPDX-License-Identifier: BSD-3-Clause
"""Initialization, finalization and queries (nvshmem4py docs: "Initialization and Finalization")."""
import warnings
from enum import IntEnum

from . import _nvshmem


class NvshmemWarning(UserWarning):
    """Misuse that NVSHMEM survives (symmetric memory still allocated at finalize)."""


class Teams(IntEnum):
    """The predefined teams (NVSHMEM_TEAM_* handles)."""
    TEAM_INVALID = -1
    TEAM_WORLD = 0
    TEAM_SHARED = 1
    TEAM_NODE = 2
    TEAM_SAME_MYPE_NODE = 3


class InitStatus(IntEnum):
    """nvshmemx_init_status values."""
    STATUS_NOT_INITIALIZED = 0
    STATUS_IS_BOOTSTRAPPED = 1
    STATUS_IS_INITIALIZED = 2
    STATUS_LIMITED_MPG = 3
    STATUS_FULL_MPG = 4
    STATUS_INVALID = 2**31 - 1


class UniqueID:
    """An NVSHMEM unique id: `_data` is a writable NumPy uint8 array of its bytes, to spread in place (for
    example comm.Bcast(uid._data.view(np.int8), root=0))."""

    def __init__(self, raw=None):
        import numpy as np
        self._data = np.zeros(_nvshmem.UNIQUE_ID_BYTES, dtype=np.uint8)
        if raw is not None:
            self._data[:] = np.frombuffer(raw, dtype=np.uint8)

    def __bytes__(self):
        return self._data.tobytes()


def get_unique_id(empty=False):
    """A new unique id (nvshmemx_get_uniqueid), or an empty one to receive the bytes when `empty`.
    Call it on one process (rank 0) before init, spread its bytes, then init(uid=..., initializer_method="uid")
    on every process. Raises NvshmemError when the library cannot make one."""
    return UniqueID() if empty else UniqueID(_nvshmem.get_unique_id())


def _device_id(device):
    if device is None:
        return -1
    return int(getattr(device, "device_id", device))


def _one_of(call, documented, alias, names):
    """The value given under the documented keyword or its alias (the docs' examples use both); not both."""
    if alias is None:
        return documented
    if documented not in (None, ""):
        raise TypeError(f"{call}: give {names[0]} or {names[1]}, not both")
    return alias


def init(device=None, uid=None, rank=None, nranks=None, mpi_comm=None, initializer_method="", *, dev=None,
         init_method=None, stream=None):
    """Initialise NVSHMEM on this process; every PE calls it once (collective).

    initializer_method: "uid" (uid from get_unique_id spread to all, with this process's rank of nranks),
    "mpi" (mpi_comm, an mpi4py communicator: the library's MPI bootstrap), "emulated_mpi" (a unique id
    broadcast over mpi_comm by mpi4py), or "" (uid if given, else mpi_comm if given, else the launcher's
    environment: nvshmrun, PMI, or a single PE). device: a cuda.core Device, a device number, or None (the
    library picks). Raises ValueError for missing or inconsistent arguments, NvshmemError when the library
    refuses (the call, PE and status named). Matches nvshmem.core.init ("Initialization and Finalization");
    `dev` (the device DSL pages) and `init_method` (the quick start) are accepted for device and
    initializer_method; `stream` (the device DSL pages) is accepted and unused: init enqueues no work."""
    device = _one_of("init", device, dev, ("device", "dev"))
    initializer_method = _one_of("init", initializer_method, init_method, ("initializer_method", "init_method"))
    method = initializer_method or ("uid" if uid is not None else "mpi" if mpi_comm is not None else "")
    dev = _device_id(device)
    if method == "":
        _nvshmem.init(_nvshmem.INIT_ENVIRONMENT, b"", 0, 0, 0, dev)
    elif method == "uid":
        if uid is None or rank is None or nranks is None:
            raise ValueError("init: initializer_method='uid' needs uid, rank and nranks")
        if not 0 <= rank < nranks:
            raise ValueError(f"init: rank {rank} is out of range [0, {nranks})")
        _nvshmem.init(_nvshmem.INIT_UNIQUE_ID, bytes(uid), rank, nranks, 0, dev)
    elif method in ("mpi", "emulated_mpi"):
        if mpi_comm is None:
            raise ValueError(f"init: initializer_method='{method}' needs mpi_comm (an mpi4py communicator)")
        if method == "mpi":
            from mpi4py import MPI
            _nvshmem.init(_nvshmem.INIT_MPI_COMM, b"", 0, 0, MPI._addressof(mpi_comm), dev)
        else:
            me = mpi_comm.Get_rank()
            raw = mpi_comm.bcast(_nvshmem.get_unique_id() if me == 0 else None, root=0)
            _nvshmem.init(_nvshmem.INIT_UNIQUE_ID, raw, me, mpi_comm.Get_size(), 0, dev)
    else:
        raise ValueError(f"init: unknown initializer_method {initializer_method!r} "
                         "(one of 'uid', 'mpi', 'emulated_mpi', '')")


def finalize(dev=None, stream=None):
    """Finalize NVSHMEM (collective: every PE). Symmetric memory still allocated is freed first, with an
    NvshmemWarning naming how much (nvshmem4py expects it freed explicitly). `dev` and `stream` (the device
    DSL pages pass them) are accepted and unused: the library's finalize completes this PE's work."""
    from . import memory
    leaked = memory.release_all()
    if leaked:
        warnings.warn(f"finalize: {leaked} symmetric allocation(s) were not freed; freed now", NvshmemWarning,
                      stacklevel=2)
    _nvshmem.finalize()


def init_status():
    """The library's InitStatus."""
    return InitStatus(_nvshmem.init_status())


def my_pe():
    """This PE's number in TEAM_WORLD. NvshmemError before init."""
    return _nvshmem.my_pe()


def n_pes():
    """The number of PEs. NvshmemError before init."""
    return _nvshmem.n_pes()


def team_my_pe(team):
    """This PE's index in `team` (a Teams value or handle), -1 when not a member."""
    return _nvshmem.team_my_pe(int(team))


def team_n_pes(team):
    """The number of PEs of `team`, -1 for an invalid team."""
    return _nvshmem.team_n_pes(int(team))


def get_version():
    """(major, minor, patch, name) of the NVSHMEM interface this library implements."""
    return _nvshmem.version()
