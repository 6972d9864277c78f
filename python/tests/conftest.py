# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Shared fixtures: where the build and the sources are, and modules the
compiler makes from MLIR the tests write."""

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
