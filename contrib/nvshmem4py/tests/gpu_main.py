# SPDX-License-Identifier: BSD-3-Clause
"""CTest's contrib.nvshmem4py.gpu: exit 77 (skipped) without a GPU or without both cupy and torch; else
pytest test_gpu.py, then example_nvshmem4py.py, each as 2 PEs under nvshmrun (argv[1])."""
import subprocess
import sys
from pathlib import Path


def missing():
    try:
        import cupy  # noqa: F401
        import torch
    except ImportError as e:
        return f"{e.name} is not installed"
    if not torch.cuda.is_available():
        return "no GPU visible"
    return None


if __name__ == "__main__":
    why = missing()
    if why:
        print(f"contrib.nvshmem4py.gpu: skipped: {why}")
        sys.exit(77)
    here = Path(__file__).parent
    launch = [sys.argv[1], "-n", "2", "--timeout", "120", sys.executable]
    tests = subprocess.run(launch + ["-m", "pytest", "-q", "-p", "no:cacheprovider", str(here / "test_gpu.py")],
                           check=False).returncode
    example = subprocess.run(launch + [str(here / "example_nvshmem4py.py")], check=False).returncode
    sys.exit(tests or example)
