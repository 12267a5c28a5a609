# SPDX-License-Identifier: BSD-3-Clause
"""nvshmem.core.direct (nvshmem4py docs: "Utility Functions for NVSHMEM4Py"): the queries that map one to one
onto the C calls."""
from .init_fini import my_pe, n_pes, team_my_pe, team_n_pes

__all__ = ["my_pe", "n_pes", "team_my_pe", "team_n_pes"]
