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
        vmpack.compile(source, out, format="vmpk")
    # One argument, said as vmpack-compile says an error without a source
    # location: never "<unknown>:0: error: ...".
    (message,) = error.value.args
    assert message.startswith("vmpack.compile: error: output '"), message
    assert "is the input" in message and "<unknown>" not in message
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


@needs_compiler
def test_compile_output_format_from_the_tools_table(tmp_path):
    """vmpack.compile chooses the output's format as vmpack-compile does,
    from the one table: an extension naming nothing it writes is an error
    listing what it writes, and nothing is written."""
    for name in ["x.mlir", "x.mlirbc", "x.txt", "noext", "x.onnx"]:
        with pytest.raises(vmpack.InvalidArgumentError,
                           match=r"it writes \.vmpk, \.irpa, \.safetensors, "
                                 r"\.gguf"):
            vmpack.compile(TYPES, tmp_path / name)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(vmpack.InvalidArgumentError, match="format=mlir"):
        vmpack.compile(TYPES, tmp_path / "x.vmpk", format="mlir")
    vmpack.compile(TYPES, tmp_path / "named.bin", format="gguf")
    assert (tmp_path / "named.bin").read_bytes()[:4] == b"GGUF"


@needs_compiler
def test_compile_refuses_options_that_do_not_apply(tmp_path):
    """As vmpack-compile: the archive's options given for another format,
    and fsync for a weight file, are errors, not ignored."""
    for option in [dict(alignment=128), dict(encoding="word"),
                   dict(dedup="content"), dict(module_name="m"),
                   dict(fsync=True)]:
        with pytest.raises(vmpack.InvalidArgumentError,
                           match="does not apply to a GGUF file"):
            vmpack.compile(TYPES, tmp_path / "x.gguf", **option)
    with pytest.raises(vmpack.InvalidArgumentError, match="alignment=3"):
        vmpack.compile(TYPES, tmp_path / "x.vmpk", alignment=3)
    assert list(tmp_path.iterdir()) == []
    vmpack.compile(TYPES, tmp_path / "x.vmpk", alignment=128,
                   encoding="word", dedup="content", module_name="m")


@needs_compiler
def test_emit_program_is_neither_input_nor_output(tmp_path):
    source = tmp_path / "m.mlir"
    source.write_bytes(TYPES.read_bytes())
    with pytest.raises(vmpack.CompileError,
                       match="^vmpack.compile: error: emit_program file"):
        vmpack.compile(source, tmp_path / "x.vmpk",
                       emit_program=tmp_path / "." / "m.mlir")
    with pytest.raises(vmpack.CompileError,
                       match="^vmpack.compile: error: emit_program '.*' "
                             "names the output"):
        vmpack.compile(source, tmp_path / "x.vmpk",
                       emit_program=tmp_path / "sub" / ".." / "x.vmpk")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mlir"]
