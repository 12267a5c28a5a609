# SPDX-License-Identifier: BSD-3-Clause
"""One NVSHMEM runtime per process for the tests run under nvshmrun (test_host.py, test_gpu.py): every PE runs
the same tests in the same order, so their collectives match."""
import pytest


@pytest.fixture(scope="session")
def nv():
    import nvshmem.core as nv
    nv.init()
    yield nv
    nv.finalize()
