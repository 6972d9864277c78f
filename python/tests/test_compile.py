# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""vmpack.compile: the same archive as vmpack-compile, byte for byte;
errors as vmpack.CompileError with the compiler's located diagnostics and
nothing written."""

import os
import pathlib
import subprocess
import threading

import numpy as np
import pytest

import vmpack
from conftest import BUILD_DIR, SOURCE_DIR, compile_text, needs_compiler

pytestmark = needs_compiler
TYPES = SOURCE_DIR / "fuzz" / "inputs" / "types.mlir"


def tool(name):
    path = BUILD_DIR / "bin" / name if BUILD_DIR else None
    if not path or not path.exists():
        pytest.skip(f"{name} is not built (VMPACK_BUILD_DIR={BUILD_DIR})")
    return path


@pytest.mark.parametrize("encoding,alignment",
                         [("packed", 64), ("word", 8), ("byte", 1)])
def test_same_bytes_as_vmpack_compile(tmp_path, encoding, alignment):
    ours = tmp_path / "python.vmpk"
    theirs = tmp_path / "tool.vmpk"
    vmpack.compile(TYPES, ours, encoding=encoding, alignment=alignment,
                   threads=1, strip_debuginfo=True)
    subprocess.run([tool("vmpack-compile"), TYPES, "-o", theirs,
                    f"--encoding={encoding}", f"--alignment={alignment}",
                    "--threads=2", "--strip-debuginfo"], check=True)
    assert ours.read_bytes() == theirs.read_bytes()
    with vmpack.open(ours) as m:
        m.verify()
        assert m.name == "types" and m.producer == "vmpack-compile"
        assert m["i4"].encoding == encoding
        np.testing.assert_array_equal(m.get_tensor("i4"),
                                      [1, -2, 3, -4, 5, 6, 7])


def test_a_generated_model(tmp_path):
    model = tmp_path / "llama.mlirbc"
    subprocess.run([tool("vmpack-gen"), "--layers", "1", "--dim", "64",
                    "--hidden", "160", "-o", model], check=True)
    out = tmp_path / "llama.vmpk"
    vmpack.compile(str(model), str(out), module_name="tiny")
    with vmpack.open(out) as m:
        m.verify()
        assert m.name == "tiny"
        w = m.get_tensor("layers.0.attention.wq")
        assert w.shape == (64, 64) and w.dtype == np.int8
        assert w.min() >= -8 and w.max() <= 7


def test_errors_are_located_and_nothing_is_written(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("module {\n  ml_program.global private @w(dense<[1, 2]> "
                   ": tensor<3xi4>) : tensor<3xi4>\n}\n")
    out = tmp_path / "out.vmpk"
    with pytest.raises(vmpack.CompileError, match=r"bad\.mlir:2:\d+: error"):
        vmpack.compile(bad, out)
    assert not out.exists()
    out.write_bytes(b"keep")
    with pytest.raises(vmpack.CompileError):
        vmpack.compile(bad, out)
    assert out.read_bytes() == b"keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir",
                                                          "out.vmpk"]
    with pytest.raises(vmpack.CompileError, match="absent.mlir"):
        vmpack.compile(tmp_path / "absent.mlir", out)
    # Missing parent directories are created, as by every tool; a file in
    # the way is named.
    vmpack.compile(TYPES, tmp_path / "no" / "such" / "dir.vmpk")
    assert (tmp_path / "no" / "such" / "dir.vmpk").is_file()
    with pytest.raises(vmpack.CompileError, match="bad.mlir' is not a dir"):
        vmpack.compile(TYPES, tmp_path / "bad.mlir" / "x.vmpk")


def test_bad_options(tmp_path):
    for kwargs, match in (({"encoding": "dense"}, "encoding"),
                          ({"alignment": 3}, "alignment"),
                          ({"alignment": 0}, "alignment"),
                          ({"alignment": 1 << 17}, "alignment"),
                          ({"dedup": "maybe"}, "dedup")):
        with pytest.raises(vmpack.InvalidArgumentError, match=match):
            vmpack.compile(TYPES, tmp_path / "x.vmpk", **kwargs)
    assert not (tmp_path / "x.vmpk").exists()


def test_compiles_run_in_threads(tmp_path):
    """Two compiles at once from Python threads (the GIL is released while
    compiling) give the same bytes as one."""
    outputs = [tmp_path / f"{k}.vmpk" for k in range(2)]
    errors = []

    def work(out):
        try:
            vmpack.compile(TYPES, out, threads=1)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(o,)) for o in outputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert outputs[0].read_bytes() == outputs[1].read_bytes()


@pytest.mark.parametrize("suffix,container,first", [
    (".gguf", "gguf", b"GGUF"), (".safetensors", "safetensors", None),
    (".irpa", "irpa", b"IRPA"), (".vmpk", "vmpk", b"PK\3\4")])
def test_the_output_is_what_its_name_says(tmp_path, suffix, container, first):
    """vmpack.compile writes the format the extension names, byte for byte
    what vmpack-compile writes for the same name (issue 26: it wrote a
    .vmpk ZIP under every name)."""
    ours = tmp_path / ("python" + suffix)
    theirs = tmp_path / ("tool" + suffix)
    vmpack.compile(TYPES, ours, threads=1)
    subprocess.run([tool("vmpack-compile"), TYPES, "-o", theirs], check=True)
    assert ours.read_bytes() == theirs.read_bytes()
    if first:
        assert ours.read_bytes()[:4] == first
    with vmpack.open(ours) as m:
        assert m.container == container


def test_format_and_the_options_of_irpa_outputs(tmp_path):
    ours, theirs = tmp_path / "p.bin", tmp_path / "t.bin"
    vmpack.compile(TYPES, ours, format="gguf")
    subprocess.run([tool("vmpack-compile"), TYPES, "-o", theirs,
                    "--format=gguf"], check=True)
    assert ours.read_bytes() == theirs.read_bytes()
    assert ours.read_bytes()[:4] == b"GGUF"
    # .irpa with a scope, a minimum size and the program that remains.
    paths = {k: tmp_path / f"{k}.irpa" for k in ("p", "t")}
    programs = {k: tmp_path / f"{k}.mlir" for k in ("p", "t")}
    vmpack.compile(TYPES, paths["p"], parameter_scope="model",
                   parameter_minimum_size=4, emit_program=programs["p"])
    subprocess.run([tool("vmpack-compile"), TYPES, "-o", paths["t"],
                    "--parameter-scope=model", "--parameter-minimum-size=4",
                    f"--emit-program={programs['t']}"], check=True)
    assert paths["p"].read_bytes() == paths["t"].read_bytes()
    assert programs["p"].read_text() == programs["t"].read_text()
    assert '"model"::' in programs["p"].read_text()
    for bad in (dict(format="zip"), dict(parameter_scope="model"),
                dict(parameter_minimum_size=4)):
        with pytest.raises(vmpack.InvalidArgumentError):
            vmpack.compile(TYPES, tmp_path / "x.vmpk", **bad)
    with pytest.raises(vmpack.InvalidArgumentError, match="emit_program"):
        vmpack.compile(TYPES, tmp_path / "x.gguf",
                       emit_program=tmp_path / "x.mlir")
    assert not (tmp_path / "x.vmpk").exists()
    assert not (tmp_path / "x.gguf").exists()
