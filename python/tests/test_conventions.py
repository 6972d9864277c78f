# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The habits of Python's ecosystem (docs/python.md): __version__, Module
as a collections.abc.Mapping, i1 and safetensors BOOL as numpy.bool_,
numpy(dtype=) for every dtype that holds the values exactly, None where a
format has no value, docstrings, help(vmpack), the type stubs, and
CompileError's message."""

import ast
import collections.abc
import inspect
import pathlib
import pydoc
import re

import numpy as np
import pytest

import vmpack
from conftest import SOURCE_DIR, needs_compiler
from test_foreign import write_safetensors

CORPUS = SOURCE_DIR / "fuzz" / "corpus" / "unpack"
PACKAGE = pathlib.Path(vmpack.__file__).parent


def test_version_is_the_projects():
    text = (SOURCE_DIR / "CMakeLists.txt").read_text()
    version = re.search(r"project\(vmpack VERSION ([0-9.]+)", text).group(1)
    assert vmpack.__version__ == version
    assert "__version__" in vmpack.__all__


def test_module_is_a_mapping():
    with vmpack.open(CORPUS / "types-byte") as m:
        assert isinstance(m, collections.abc.Mapping)
        names = list(m)
        assert names[:3] == ["i4", "u3", "b1"]
        assert isinstance(m.keys(), collections.abc.KeysView)
        assert isinstance(m.values(), collections.abc.ValuesView)
        assert isinstance(m.items(), collections.abc.ItemsView)
        assert list(m.keys()) == names and len(m.keys()) == len(m)
        assert [s.name for s in m.values()] == names
        assert [(k, s.name) for k, s in m.items()] == [(n, n) for n in names]
        assert "b1" in m.keys() and "nope" not in m.keys()
        assert m.get("b1") is m["b1"]
        assert m.get("nope") is None and m.get("nope", 7) == 7
        assert m.get(b"b1") is m["b1"] and b"b1" in m
        assert dict(m)["f16"] is m["f16"]
        with pytest.raises(KeyError):
            m["nope"]
        # A module equals itself only, as objects do.
        assert m == m and m != dict(m)
        assert {m: 1}[m] == 1
    with pytest.raises(ValueError, match="closed"):
        m.items()


def bool_file(tmp_path, data, shape):
    return write_safetensors(tmp_path / "b.safetensors",
                             {"mask": ("BOOL", list(shape), bytes(data))})


def test_bool_is_numpy_bool_zero_copy(tmp_path):
    bits = [1, 0, 1, 1, 0, 0, 1]
    with vmpack.open(bool_file(tmp_path, bits, (7,))) as m:
        s = m["mask"]
        assert s.natural_dtype == np.bool_
        got = s.numpy()
        assert got.dtype == np.bool_ and got.tolist() == [bool(b) for b in bits]
        # One byte per element: a view of the file's bytes.
        assert np.shares_memory(got, np.frombuffer(s.raw, np.uint8))
        assert not got.flags.writeable
        assert np.asarray(s).dtype == np.bool_
        # The integers on request, sign-aware as before (true is -1).
        assert s.numpy(dtype="int8").tolist() == [-b for b in bits]
        assert s.numpy(dtype=np.int32).tolist() == [-b for b in bits]
        assert s.numpy(dtype="float64").tolist() == [-float(b) for b in bits]
        with pytest.raises(vmpack.UnsupportedError):
            s.numpy(dtype="uint8")  # -1 has no uint8


def test_bool_bytes_other_than_0_and_1_read_as_unpacking_reads_them(tmp_path):
    """A BOOL byte of 2 (no writer makes one) is read by its low bit, as
    the C runtime's unpacking reads every element: not a view then."""
    data = [1, 2, 3, 0, 255]
    with vmpack.open(bool_file(tmp_path, data, (5,))) as m:
        s = m["mask"]
        got = s.numpy()
        assert got.dtype == np.bool_
        assert got.tolist() == [v & 1 == 1 for v in data]
        assert got.tolist() == (s.unpack(dtype="int8") != 0).tolist()
        assert not np.shares_memory(got, np.frombuffer(s.raw, np.uint8))


@pytest.mark.parametrize("module,view", [("types-byte", True),
                                         ("types-word", True),
                                         ("types-packed", False)])
def test_i1_is_numpy_bool(module, view):
    with vmpack.open(CORPUS / module) as m:
        s = m["b1"]
        assert s.element_type == "i1"
        got = s.numpy()
        ints = s.numpy(dtype="int8")
        assert got.dtype == np.bool_ and ints.dtype == np.int8
        assert set(ints.tolist()) <= {-1, 0}
        assert got.tolist() == (ints != 0).tolist()
        assert np.shares_memory(got, np.frombuffer(s.raw, np.uint8)) == view
        assert m.get_tensor("b1").dtype == np.bool_


def test_numpy_dtype_holds_values_exactly(tmp_path):
    rng = np.random.default_rng(25)
    f16 = rng.standard_normal(6).astype(np.float16)
    i8 = rng.integers(-128, 128, size=5, dtype=np.int8)
    u8 = rng.integers(0, 256, size=5, dtype=np.uint8)
    i16 = rng.integers(-32768, 32768, size=5, dtype=np.int16)
    i32 = rng.integers(-2**31, 2**31, size=4, dtype=np.int32)
    f32 = rng.standard_normal(3).astype(np.float32)
    path = write_safetensors(tmp_path / "t.safetensors", {
        "f16": ("F16", [6], f16.tobytes()), "i8": ("I8", [5], i8.tobytes()),
        "u8": ("U8", [5], u8.tobytes()), "i16": ("I16", [5], i16.tobytes()),
        "i32": ("I32", [4], i32.tobytes()), "f32": ("F32", [3], f32.tobytes()),
    })
    with vmpack.open(path) as m:
        exact = [("f16", "float64", f16), ("f16", "float32", f16),
                 ("f16", np.longdouble, f16), ("f16", "complex64", f16),
                 ("i8", "int64", i8), ("i8", "float16", i8),
                 ("i8", "float32", i8), ("u8", "uint16", u8),
                 ("u8", "int16", u8), ("u8", "float16", u8),
                 ("i16", "float32", i16), ("i16", "int64", i16),
                 ("i32", "float64", i32), ("i32", "int64", i32),
                 ("f32", "float64", f32), ("f32", "complex128", f32)]
        for name, dtype, want in exact:
            got = m[name].numpy(dtype=dtype)
            assert got.dtype == np.dtype(dtype), (name, dtype)
            assert got.shape == want.shape
            # Equal as exact numbers (float64 holds every value here).
            assert (got.astype(np.complex128) ==
                    want.astype(np.complex128)).all(), (name, dtype)
        inexact = [("f16", "int32"), ("f16", "int64"), ("f16", "bool"),
                   ("i8", "uint8"), ("i8", "bool"), ("u8", "int8"),
                   ("i16", "float16"), ("i16", "int8"), ("i32", "float32"),
                   ("f32", "float16"), ("f32", "int64")]
        for name, dtype in inexact:
            with pytest.raises(vmpack.UnsupportedError):
                m[name].numpy(dtype=dtype)


def test_numpy_dtype_decoded_floats():
    """bf16 and the small floats: float64 holds them all; float16 holds
    f8E4M3FN, f6E3M2FN and f4E2M1FN but not bf16."""
    with vmpack.open(CORPUS / "types-byte") as m:
        for name in ("bf", "f8", "f6", "f4", "f16"):
            base = m[name].numpy()
            wide = m[name].numpy(dtype="float64")
            assert wide.dtype == np.float64
            np.testing.assert_array_equal(wide, base.astype(np.float64))
        for name in ("f8", "f6", "f4"):
            half = m[name].numpy(dtype="float16")
            np.testing.assert_array_equal(half.astype(np.float32),
                                          m[name].numpy())
        with pytest.raises(vmpack.UnsupportedError):
            m["bf"].numpy(dtype="float16")
        # i4 into any wider integer, and float16 (11 significant bits).
        i4 = m["i4"].numpy()
        for dtype in ("int64", "int16", "float16", "float64"):
            np.testing.assert_array_equal(m["i4"].numpy(dtype=dtype), i4)
        # ui3 into uint8, not into bool.
        np.testing.assert_array_equal(m["u3"].numpy(dtype="uint8"),
                                      m["u3"].numpy())
        with pytest.raises(vmpack.UnsupportedError):
            m["u3"].numpy(dtype="bool")
        # i12 does not fit int8; index does not fit float64.
        with pytest.raises(vmpack.UnsupportedError):
            m["i12"].numpy(dtype="int8")
        with pytest.raises(vmpack.UnsupportedError):
            m["idx"].numpy(dtype="float64")


def test_none_where_a_format_has_no_value(tmp_path):
    path = write_safetensors(tmp_path / "s.safetensors",
                             {"w": ("F32", [2], b"\0" * 8)})
    with vmpack.open(path) as m:
        assert m.name is None and m.producer is None
        assert m.format_version is None
        s = m["w"]
        assert s.checksum is None and s.source_kind is None
        assert s.source_key is None
        assert s.element_type == "f32" and s.encoding == "byte"
    with vmpack.open(SOURCE_DIR / "fuzz" / "corpus" / "gguf" /
                     "golden.gguf") as g:
        assert g.name is None and g.format_version == 3
        assert all(s.checksum is None for s in g.values())
    with vmpack.open(SOURCE_DIR / "fuzz" / "corpus" / "irpa" /
                     "small.irpa") as p:
        assert p.name is None and p.format_version == 0
        for s in p.values():
            assert s.element_type is None and s.mlir_type is None
            assert s.checksum is None
        splats = [s for s in p.values() if s.kind == "splat"]
        assert splats and all(s.alignment is None for s in splats)
    with vmpack.open(CORPUS / "small") as v:
        s = v["w"]
        assert v.name == "small" and isinstance(v.producer, str)
        assert isinstance(s.checksum, int) and s.source_kind is not None


def public_callables():
    """Every public function and method of the package's API."""
    for name in vmpack.__all__:
        obj = getattr(vmpack, name)
        if name.startswith("__"):
            continue
        yield name, obj
        if inspect.isclass(obj) and obj.__module__ == "vmpack":
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr not in (
                        "__getitem__", "__iter__", "__len__", "__contains__",
                        "__enter__", "__exit__", "__array__"):
                    continue
                if callable(member) or isinstance(member, property):
                    yield f"{name}.{attr}", member


def test_every_public_function_has_a_docstring():
    missing = [name for name, obj in public_callables()
               if not (inspect.getdoc(obj) or "").strip()]
    assert missing == []
    # Methods a Mapping provides come with the mixin's docstrings.
    assert inspect.getdoc(vmpack.Module.get)


def test_help_gives_an_overview():
    text = pydoc.render_doc(vmpack, renderer=pydoc.plaintext)
    overview = vmpack.__doc__
    for part in ("vmpack.open", "vmpack.load", "vmpack.compile", ".vmpk",
                 ".irpa", "safetensors", "GGUF", "Module", "Segment",
                 "numpy", "docs/python.md", "Error"):
        assert part in overview, part
    for part in ("class Module", "class Segment", "open(path",
                 "__version__", vmpack.__version__):
        assert part in text, part


def stub_names(tree):
    """Top-level names and class members a .pyi declares."""
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = {n.name for n in node.body
                                if isinstance(n, (ast.FunctionDef,
                                                  ast.AnnAssign))
                                and hasattr(n, "name")} | {
                n.target.id for n in node.body
                if isinstance(n, ast.AnnAssign)}
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = set()
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = set()
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[alias.asname or alias.name] = set()
    return names


def test_type_stubs_declare_the_extension():
    stub = PACKAGE / "_vmpack.pyi"
    assert (PACKAGE / "py.typed").exists()
    declared = stub_names(ast.parse(stub.read_text()))
    extension = vmpack._vmpack
    for name in dir(extension):
        if name.startswith("__"):
            continue
        assert name in declared, f"_vmpack.{name} is not in {stub.name}"
    for member in dir(extension.Module):
        if member.startswith("_") and member != "_handle_use_count":
            continue
        assert member in declared["Module"], f"Module.{member}"
    # The package's own stub covers the public API.
    api = stub_names(ast.parse((PACKAGE / "__init__.pyi").read_text()))
    for name in vmpack.__all__:
        assert name in api, f"vmpack.{name} is not in __init__.pyi"
    with vmpack.open(CORPUS / "small") as m:
        segment = next(iter(m.values()))
        members = {"Module": set(vars(vmpack.Module)) | set(vars(m)),
                   "Segment": set(vars(vmpack.Segment)) | set(vars(segment))}
    for cls, attrs in members.items():
        for attr in attrs:
            if not attr.startswith("_"):
                assert attr in api[cls], f"{cls}.{attr}"


@needs_compiler
def test_compile_error_carries_its_message(tmp_path):
    """Diagnostics that quote bytes which are not UTF-8 still reach the
    exception (escaped), and nothing is written."""
    source = tmp_path / "bad.mlir"
    source.write_bytes(b"\xff\xfe not mlir")
    out = tmp_path / "out.vmpk"
    with pytest.raises(vmpack.CompileError) as e:
        vmpack.compile(source, out)
    assert len(e.value.args) == 1
    message = e.value.args[0]
    assert str(source) in message and "error" in message
    assert "\\xff" in message and str(e.value) == message
    assert not out.exists()
