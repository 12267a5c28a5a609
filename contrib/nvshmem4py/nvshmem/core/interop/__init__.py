# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem.core.interop (nvshmem4py docs: "Interoperability"): torch tensors and CuPy arrays on symmetric
memory, ``interop.torch.empty`` and ``interop.cupy.empty``; free them with free_tensor / free_array. The
submodules import torch and cupy when imported themselves."""
