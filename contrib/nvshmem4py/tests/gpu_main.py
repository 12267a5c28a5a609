# SPDX-License-Identifier: BSD-3-Clause
"""CTest's contrib.nvshmem4py.gpu (and tools/gpu-check.sh --python): exit 77 (skipped) without a GPU or
without both cupy and torch; else test_gpu.py, then example_nvshmem4py.py, each as 2 PEs under nvshmrun
(argv[1]); argv[2], "tests" or "example", runs one of them. test_gpu.py runs under pytest where pytest is
installed, else each test_ function in order (the --pe-tests mode of this script, one per PE)."""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def missing():
    try:
        import cupy  # noqa: F401
        import torch
    except ImportError as e:
        return f"{e.name} is not installed"
    if not torch.cuda.is_available():
        return "no GPU visible"
    return None


def pe_tests():
    """test_gpu.py without pytest: the `nv` fixture of conftest.py by hand, every test_ function in order."""
    sys.path.insert(0, str(HERE))
    import test_gpu
    import nvshmem.core as nv
    nv.init()
    names = [n for n in vars(test_gpu) if n.startswith("test_")]
    for name in names:
        getattr(test_gpu, name)(nv)
        print(f"PE {nv.my_pe()}: {name} passed", flush=True)
    nv.finalize()
    print(f"{len(names)} passed")


def main(nvshmrun, which):
    why = missing()
    if why:
        print(f"contrib.nvshmem4py.gpu: skipped: {why}")
        sys.exit(77)
    launch = [nvshmrun, "-n", "2", "--timeout", "120", sys.executable]
    try:
        import pytest  # noqa: F401
        tests = launch + ["-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE / "test_gpu.py")]
    except ImportError:
        tests = launch + [str(HERE / "gpu_main.py"), "--pe-tests"]
    rc = 0
    if which in ("all", "tests"):
        rc = subprocess.run(tests, check=False).returncode
    if which in ("all", "example"):
        rc = rc or subprocess.run(launch + [str(HERE / "example_nvshmem4py.py")], check=False).returncode
    sys.exit(rc)


if __name__ == "__main__":
    if sys.argv[1] == "--pe-tests":
        pe_tests()
    else:
        main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "all")
