# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The Python API never writes over its own input: vmpack.compile refuses
an output that is the input under any name, and a module open in the
process is an input until it is closed (docs/security.md, section 4)."""

import os
import subprocess

import numpy as np

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


def _tree(directory):
    """Every file under `directory` (links not followed) with its bytes,
    or its target for a symlink."""
    out = {}
    for p in sorted(directory.rglob("*")):
        out[p.relative_to(directory).as_posix()] = (
            ("link", os.readlink(p)) if p.is_symlink() else p.read_bytes())
    return out


@pytest.mark.parametrize("name", ["same", "symlink", "hardlink", "dot",
                                  "second"])
def test_convert_refuses_its_input(tmp_path, name):
    """vmpack.convert refuses an output that is one of its inputs under
    any name (the same path, a symlink to it, a hard link, ./x, the second
    of two inputs) before anything is written: vmpack-convert's check,
    tools::convertFiles."""
    first, second = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    vmpack.save_file({"x": np.arange(6, dtype=np.float32)}, first)
    vmpack.save_file({"y": np.arange(4, dtype=np.int16)}, second)
    out = {"same": first, "dot": tmp_path / "." / "a.safetensors",
           "symlink": tmp_path / "link.safetensors",
           "hardlink": tmp_path / "hard.safetensors",
           "second": second}[name]
    if name == "symlink":
        os.symlink("a.safetensors", out)
    if name == "hardlink":
        os.link(first, out)
    before = _tree(tmp_path)
    with pytest.raises(vmpack.InvalidArgumentError, match="input"):
        vmpack.convert([first, second], out)
    assert _tree(tmp_path) == before


def test_convert_refuses_a_member_of_its_shard_set(tmp_path):
    """An input shard set (read by its first file or by its index): every
    member, the index included, is an input."""
    from test_shards import safetensors_set
    index, shards, _ = safetensors_set(tmp_path)
    before = _tree(tmp_path)
    for start in (index, shards[0]):
        for out in [index, *shards, tmp_path / "." / shards[2].name]:
            with pytest.raises(vmpack.InvalidArgumentError, match="input"):
                vmpack.convert(start, out, format="safetensors")
            assert _tree(tmp_path) == before, (start, out)
    # Writing a new sharded set over the input set's names is refused too.
    with pytest.raises(vmpack.InvalidArgumentError, match="input"):
        vmpack.convert(index, index, max_shard_size=64)
    assert _tree(tmp_path) == before


def test_dash_is_a_file_name_error_not_stdout(tmp_path, capfd):
    """'-' is standard output only on the tools' command lines. A Python
    output argument is a path, and sys.stdout may be anything (a notebook,
    pytest's capture, a StringIO): save_file, convert and compile refuse
    '-' with InvalidArgumentError, write nothing (no file named '-', no
    bytes on fd 1) and say how to write a file named '-'."""
    os.chdir(tmp_path)
    source = tmp_path / "a.safetensors"
    vmpack.save_file({"x": np.arange(6, dtype=np.float32)}, source)
    before = _tree(tmp_path)
    calls = [lambda: vmpack.save_file({"x": np.zeros(2, np.float32)}, "-",
                                      format="safetensors"),
             lambda: vmpack.convert(source, "-", format="vmpk"),
             lambda: vmpack.convert(source, os.fsencode("-"),
                                    format="gguf")]
    if vmpack._vmpack.HAS_COMPILER:
        calls.append(lambda: vmpack.compile(TYPES, "-", format="vmpk"))
    for call in calls:
        with pytest.raises(vmpack.InvalidArgumentError,
                           match=r"output '-': standard output.*'\./-'"):
            call()
        assert _tree(tmp_path) == before
    captured = capfd.readouterr()
    assert captured.out == ""
    # "./-" is the file named "-", as for the tools.
    vmpack.convert(source, "./-", format="safetensors")
    assert (tmp_path / "-").read_bytes() == source.read_bytes()
