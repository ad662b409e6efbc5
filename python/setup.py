# SPDX-License-Identifier: MIT
"""Builds the package with the engine's shared library inside it (docs/python.md).

The library is $QPHYS_LIBRARY when set, else the one `make shared` builds in the checkout this
directory belongs to (build/host/libqphys.so). It is copied into the package, so the installed
package needs nothing of the checkout; the wheel is tagged for this platform.
"""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def library() -> Path:
    env = os.environ.get("QPHYS_LIBRARY")
    if env:
        return Path(env)
    if not (ROOT / "Makefile").exists():
        raise SystemExit("qphys: no checkout around python/ to build libqphys.so in; set QPHYS_LIBRARY to a "
                         "libqphys.so built by `make shared`")
    subprocess.run(["make", "-s", "-C", str(ROOT), "shared"], check=True)
    return ROOT / "build" / "host" / "libqphys.so"


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = library()
        if not lib.is_file():
            raise SystemExit(f"qphys: {lib} not found")
        shutil.copy(lib, Path(self.build_lib) / "qphys" / "libqphys.so")


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(version=(ROOT / "VERSION").read_text().strip() if (ROOT / "VERSION").exists() else "0",
      cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
