# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`cmake --install` puts an importable package into the interpreter's
site-packages layout under the prefix."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, SOURCE_DIR


def test_install_gives_an_importable_package(tmp_path):
    cmake = os.environ.get("VMPACK_CMAKE") or shutil.which("cmake")
    if not BUILD_DIR or not cmake:
        pytest.skip("needs VMPACK_BUILD_DIR and cmake (run through CTest)")
    prefix = tmp_path / "prefix"
    subprocess.run([cmake, "--install", BUILD_DIR, "--prefix", prefix,
                    "--component", "python"], check=True,
                   stdout=subprocess.DEVNULL)
    inits = list(prefix.rglob("vmpack/__init__.py"))
    assert len(inits) == 1
    site = inits[0].parent.parent
    assert site.name in ("site-packages", "dist-packages")
    assert list(site.glob("vmpack/_vmpack*.so"))
    module = SOURCE_DIR / "fuzz" / "corpus" / "unpack" / "types-packed"
    env = dict(os.environ, PYTHONPATH=str(site))
    out = subprocess.run(
        [sys.executable, "-c",
         "import sys, vmpack; m = vmpack.open(sys.argv[1]); m.verify(); "
         "print(vmpack.__file__); print(m.get_tensor('i4').tolist())",
         module], env=env, check=True, capture_output=True, text=True)
    where, values = out.stdout.splitlines()
    assert pathlib.Path(where).is_relative_to(prefix)
    assert values == "[1, -2, 3, -4, 5, 6, 7]"
