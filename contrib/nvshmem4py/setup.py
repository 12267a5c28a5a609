# SPDX-License-Identifier: BSD-3-Clause
"""The pip build (pyproject.toml): the extension nvshmem.core._nvshmem is built by this folder's CMakeLists.txt
(target _nvshmem, tests off) with the installing interpreter, against the NVSHMEM installed at $NVSHMEM_PREFIX
(else $CMAKE_PREFIX_PATH), and copied into the package; the Python files are setuptools'."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    """build_ext through CMake: configure, build the module, copy it where setuptools packs extensions."""

    def build_extension(self, ext):
        prefix = os.environ.get("NVSHMEM_PREFIX") or os.environ.get("CMAKE_PREFIX_PATH")
        if not prefix:
            raise SystemExit("nvshmem4py: set NVSHMEM_PREFIX to an installed NVSHMEM (cmake --install build --prefix DIR)")
        build = Path(self.build_temp).resolve() / "cmake"
        subprocess.run(["cmake", "-S", str(HERE), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}",
                        f"-DPython_EXECUTABLE={sys.executable}", "-DNVSHMEM4PY_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release"],
                       check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "_nvshmem"], check=True)
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "python" / "nvshmem" / "core" / dest.name, dest)


setup(ext_modules=[Extension("nvshmem.core._nvshmem", sources=[])], cmdclass={"build_ext": CMakeBuild})
