# SPDX-License-Identifier: BSD-3-Clause
"""CTest's contrib.nvshmem4py.pip: `pip install --no-build-isolation --no-index` of a copy of the package's
folder (argv[1]) into a fresh venv (--system-site-packages: Debian's pip, setuptools, wheel, numpy), built
against the NVSHMEM installed at argv[2] (NVSHMEM_PREFIX), then a 2-PE program run under nvshmrun (argv[3])
with the venv's interpreter, from outside the source and build folders. Prints "pip install OK"; exits 77
(skipped) where Debian's pip, venv, setuptools or wheel are missing."""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROGRAM = """
import sys
import numpy as np
import nvshmem.core as nvshmem
nvshmem.init()
me, n = nvshmem.my_pe(), nvshmem.n_pes()
src = nvshmem.array((8,), dtype="int64")
dst = nvshmem.array((8,), dtype="int64")
src[:] = np.arange(8) + 10 * me
dst[:] = -99
nvshmem.reduce(nvshmem.Teams.TEAM_WORLD, dst, src, "sum")
assert list(dst) == [n * k + 10 * n * (n - 1) // 2 for k in range(8)], list(dst)
assert nvshmem.__file__.startswith(sys.argv[1]), nvshmem.__file__
nvshmem.free_array(dst)
nvshmem.free_array(src)
nvshmem.finalize()
print(f"PE {me}: installed nvshmem.core OK")
"""


def run(cmd, **kw):
    print("+", " ".join(map(str, cmd)), flush=True)
    subprocess.run(cmd, check=True, **kw)


def main(source, prefix, nvshmrun):
    # Looked up, not imported: importing pip and then setuptools in one process trips setuptools' distutils shim.
    absent = [m for m in ("ensurepip", "pip", "setuptools", "wheel") if importlib.util.find_spec(m) is None]
    if absent:
        print(f"contrib.nvshmem4py.pip: skipped: {', '.join(absent)} not installed (python3-pip, python3-venv, "
              "python3-setuptools, python3-wheel)")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="nvshmem4py-pip-") as tmp:
        tmp = Path(tmp)
        src = tmp / "src"
        shutil.copytree(source, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        venv = tmp / "venv"
        run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv])
        python = venv / "bin" / "python"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["NVSHMEM_PREFIX"] = prefix
        run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps", src], env=env,
            cwd=tmp)
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], check=True,
                              capture_output=True, text=True, env=env).stdout.strip()
        out = subprocess.run([nvshmrun, "-n", "2", "--timeout", "120", python, "-c", PROGRAM, site], env=env,
                             cwd=tmp, capture_output=True, text=True)
        print(out.stdout + out.stderr)
        if out.returncode != 0 or out.stdout.count("installed nvshmem.core OK") != 2:
            sys.exit(f"the installed package failed (rc {out.returncode})")
    print("pip install OK")


if __name__ == "__main__":
    main(*sys.argv[1:4])
