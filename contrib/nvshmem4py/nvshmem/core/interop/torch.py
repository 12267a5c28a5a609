# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem.core.interop.torch: torch tensors on symmetric memory (docs: "Interoperability")."""
from .. import memory


def empty(shape, dtype=None):
    """An uninitialised symmetric torch tensor of `shape` and `dtype` (default torch.float32; collective):
    on the GPU for a GPU heap, on the CPU for the CPU backend. Free it with nvshmem.core.free_tensor."""
    return memory.tensor(shape, dtype=dtype)
