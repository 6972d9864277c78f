# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Shared fixtures: where the build and the sources are, and modules the
compiler makes from MLIR the tests write."""

import importlib.util
import os
import pathlib

import pytest

import vmpack

SOURCE_DIR = pathlib.Path(
    os.environ.get("VMPACK_SOURCE_DIR",
                   pathlib.Path(__file__).resolve().parents[2]))
BUILD_DIR = pathlib.Path(os.environ["VMPACK_BUILD_DIR"]) \
    if "VMPACK_BUILD_DIR" in os.environ else None

needs_compiler = pytest.mark.skipif(
    not vmpack._vmpack.HAS_COMPILER,
    reason="vmpack was built without MLIR (-DVMPACK_ENABLE_MLIR=OFF): "
    "vmpack.compile is not available")


# llama.cpp's libggml-base.so (npm @node-llama-cpp/linux-x64, installed by
# scripts/install-npm-deps.sh), or the one VMPACK_GGML_BASE_LIB names.
GGML_LIB = os.environ.get("VMPACK_GGML_BASE_LIB") or str(
    SOURCE_DIR / "third_party" / "npm" / "node_modules" / "@node-llama-cpp" /
    "linux-x64" / "bins" / "linux-x64" / "libggml-base.so")


def ggml_script():
    """test/vmpack-convert/ggml_dequant.py: ggml's quantizer, GGUF writer
    and reader through ctypes."""
    spec = importlib.util.spec_from_file_location(
        "ggml_dequant", SOURCE_DIR / "test" / "vmpack-convert" /
        "ggml_dequant.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ggml_file(tmp_path_factory):
    """(script, lib, path): a GGUF file of blocks ggml itself quantized and
    wrote (ggml_dequant.py's write), or a skip saying why not."""
    if not os.path.exists(GGML_LIB):
        pytest.skip(f"llama.cpp's libggml-base.so is not at {GGML_LIB} (run "
                    "scripts/install-npm-deps.sh or set VMPACK_GGML_BASE_LIB)")
    script = ggml_script()
    lib = script.load(GGML_LIB)
    path = tmp_path_factory.mktemp("ggml") / "g.gguf"
    script.write(lib, str(path))
    return script, lib, path


def foreign_env():
    """The environment for a program vmpack does not build (node, IREE's
    tools, mlir-opt). A sanitizer runtime the test run preloads into its
    own python3 is left out: those programs are not instrumented, and a
    report from inside them is not about vmpack."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def compile_text(tmp_path, text, name="m", **options):
    """Writes MLIR text, compiles it with vmpack.compile, returns the path."""
    source = tmp_path / f"{name}.mlir"
    source.write_text(text)
    output = tmp_path / f"{name}.vmpk"
    vmpack.compile(source, output, **options)
    return output
