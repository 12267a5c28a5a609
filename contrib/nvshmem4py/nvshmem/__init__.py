# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem4py over this NVSHMEM: ``import nvshmem.core`` (contrib/nvshmem4py/README.md)."""
