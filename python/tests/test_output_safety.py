# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The Python API never writes over its own input: vmpack.compile refuses
an output that is the input under any name, and a module open in the
process is an input until it is closed (docs/security.md, section 4)."""

import os
import subprocess

import pytest

import vmpack
from conftest import BUILD_DIR, SOURCE_DIR, needs_compiler

TYPES = SOURCE_DIR / "fuzz" / "inputs" / "types.mlir"


@needs_compiler
@pytest.mark.parametrize("name", ["same", "symlink", "hardlink", "dot"])
def test_compile_refuses_its_input(tmp_path, name):
    source = tmp_path / "m.mlir"
    source.write_bytes(TYPES.read_bytes())
    before = source.read_bytes()
    out = {"same": source, "dot": tmp_path / "." / "m.mlir",
           "symlink": tmp_path / "link.mlir",
           "hardlink": tmp_path / "hard.mlir"}[name]
    if name == "symlink":
        os.symlink("m.mlir", out)
    if name == "hardlink":
        os.link(source, out)
    with pytest.raises(vmpack.CompileError) as error:
        vmpack.compile(source, out)
    assert "is the input" in str(error.value) or any(
        "is the input" in str(a) for a in error.value.args), error.value.args
    assert source.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {"m.mlir", out.name})


@needs_compiler
def test_an_open_module_is_an_input(tmp_path):
    archive = tmp_path / "m.vmpk"
    vmpack.compile(TYPES, archive)
    before = archive.read_bytes()
    module = vmpack.open(archive, mode="read")
    with pytest.raises(vmpack.CompileError):
        vmpack.compile(TYPES, archive)
    assert archive.read_bytes() == before
    module.close()
    # Closed, it is an ordinary file again.
    vmpack.compile(TYPES, archive, module_name="again")
    with vmpack.open(archive) as m:
        assert m.name == "again"
