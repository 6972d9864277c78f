# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""vmpack.save_file: numpy arrays written as .vmpk, safetensors, GGUF,
.irpa and MLIR, read back exactly by vmpack and by readers that share no
code with it: a json + numpy safetensors reader written here (from the
safetensors README's "Format" section), npm's @huggingface/gguf
(scripts/install-npm-deps.sh) and IREE's iree-dump-parameters
(../shared/iree-tools). The stored patterns are decoded with the tests'
own reading of docs/packing.md (reference.py). Range errors, atomic
output and the never-overwrite-an-input rule are checked too."""

import json
import os
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vmpack
from conftest import SOURCE_DIR, foreign_env, needs_compiler
from reference import FLOAT_FORMATS, decode_float, float_width, patterns, \
    same_floats, widen

NPM = pathlib.Path(os.environ.get(
    "VMPACK_NPM_DIR", SOURCE_DIR / "third_party" / "npm")) / "node_modules"
IREE_TOOLS = SOURCE_DIR.parent / "shared" / "iree-tools"

RNG = np.random.default_rng(25)
SHAPES = [(3, 5), (7,), (2, 3, 3)]


def int_spec(kind, width):
    """(low, high) of an integer type as save_file checks it."""
    if kind == "ui":
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def int_values(mlir, shape, dtype):
    kind, width = re.match(r"^(i|si|ui)(\d+)$", mlir).groups()
    low, high = int_spec(kind, int(width))
    n = int(np.prod(shape))
    v = RNG.integers(low, high, size=n, endpoint=True, dtype=np.int64) \
        if high < 2 ** 63 else RNG.integers(0, 2 ** 64 - 1, size=n,
                                            dtype=np.uint64, endpoint=True)
    v = v.astype(dtype)
    v[0], v[-1] = np.array(low).astype(dtype), np.array(high).astype(dtype)
    return v.reshape(shape)


def float_values(mlir, shape):
    """Values of the format (every pattern of a narrow one, in turn),
    decoded by reference.py: each is held exactly."""
    width = float_width(mlir)
    n = int(np.prod(shape))
    codes = np.arange(n) % (1 << width) if width <= 8 else \
        RNG.integers(0, 1 << width, size=n)
    return decode_float([int(c) for c in codes], mlir).reshape(shape)


# name -> (array, type or None): every kind of element, byte-aligned types
# from their own dtype (written from the array's buffer), the others
# widened.
def sample_tensors():
    t = {}
    for k, (mlir, dtype) in enumerate([
            ("i4", np.int8), ("si4", np.int8), ("ui4", np.uint8),
            ("i2", np.int8), ("ui2", np.int16), ("si3", np.int32),
            ("i3", np.int8), ("ui7", np.uint8), ("i12", np.int16),
            ("si17", np.int32), ("ui33", np.uint64), ("i5", np.int64),
            ("i8", np.int8), ("si8", np.int8), ("ui8", np.uint8),
            ("i16", np.int16), ("ui16", np.uint16), ("i32", np.int32),
            ("ui32", np.uint32), ("i64", np.int64), ("ui64", np.uint64),
            ("si64", np.int64)]):
        a = int_values(mlir, SHAPES[k % 3], dtype)
        native = np.dtype(dtype).itemsize * 8 == int(mlir.lstrip("sui")) \
            and (mlir.startswith("ui") == (np.dtype(dtype).kind == "u"))
        t[f"t{k}.{mlir}"] = a if native and mlir[0] != "s" else (a, mlir)
    t["mask.i1"] = RNG.integers(0, 2, size=(3, 5)).astype(bool)
    t["ints.i1"] = (np.array([1, 0, -1, 0, 1], np.int8), "i1")
    t["idx.index"] = (np.arange(-3, 4, dtype=np.int64), "index")
    for k, mlir in enumerate(FLOAT_FORMATS):
        a = float_values(mlir, SHAPES[k % 3])
        if mlir == "f16":
            t[f"f{k}.{mlir}"] = a.astype(np.float16)
        elif mlir == "f32":
            t[f"f{k}.{mlir}"] = a
        else:
            t[f"f{k}.{mlir}"] = vmpack.Tensor(a, type=mlir)
    t["f64.f64"] = RNG.standard_normal((2, 3))
    t["wide.bf16"] = (float_values("bf16", (4,)).astype(np.float64), "bf16")
    t["c64.complex"] = (RNG.standard_normal(6) +
                        1j * RNG.standard_normal(6)).astype(np.complex64)
    t["c128.complex"] = RNG.standard_normal(4) + 1j * RNG.standard_normal(4)
    cb = float_values("bf16", (10,))
    t["cbf16.complex"] = ((cb[:5] + 1j * cb[5:]).astype(np.complex64),
                          "complex<bf16>")
    return t


TENSORS = sample_tensors()
METADATA = {"format": "pt", "note": "säve — ✓", "empty": ""}


def logical(value):
    """(array, MLIR element type) of a save_file value."""
    if isinstance(value, vmpack.Tensor):
        return np.asarray(value.array), value.type
    if isinstance(value, tuple):
        return np.asarray(value[0]), value[1]
    a = np.asarray(value)
    names = {"b": "i1", "i": "i", "u": "ui"}
    if a.dtype.kind in names and a.dtype.kind != "b":
        return a, names[a.dtype.kind] + str(a.dtype.itemsize * 8)
    if a.dtype.kind == "b":
        return a, "i1"
    return a, {"f2": "f16", "f4": "f32", "f8": "f64", "c8": "complex<f32>",
               "c16": "complex<f64>"}[a.dtype.kind + str(a.dtype.itemsize)]


def scalar_of(mlir):
    m = re.match(r"^complex<(.*)>$", mlir)
    return (m.group(1), 2) if m else (mlir, 1)


def width_of(scalar):
    if scalar in FLOAT_FORMATS:
        return float_width(scalar)
    if scalar == "f64" or scalar == "index":
        return 64
    return int(re.match(r"^(?:i|si|ui)(\d+)$", scalar).group(1))


def scalars(value):
    """The tensor's scalars as the values they are: ints, or float64 for
    floats (complex as real, imaginary)."""
    a, mlir = logical(value)
    if a.dtype.kind == "c":
        a = np.stack([a.real, a.imag], axis=-1)
    return a.reshape(-1)


def check_patterns(name, value, stored):
    """`stored` W-bit patterns are the tensor's values: integers wrapped to
    W bits, floats decoded by reference.py to the same value."""
    a, mlir = logical(value)
    scalar, _ = scalar_of(mlir)
    want = scalars(value)
    if scalar in FLOAT_FORMATS:
        got = decode_float(stored, scalar)
        assert same_floats(got, want.astype(np.float32)), name
    elif scalar == "f64":
        got = np.array(stored, dtype=np.uint64).view(np.float64)
        assert np.array_equal(got, want), name
    else:
        w = width_of(scalar)
        signed = not scalar.startswith("ui")
        expect = [int(v) for v in want]
        if mlir == "i1":
            expect = [v & 1 for v in expect]
            assert stored == expect, name
        else:
            assert widen(stored, w, signed) == expect, name


def check_readback(module, tensors, untyped=False):
    """Every tensor read back through vmpack is its values exactly."""
    assert list(module.keys()) == list(tensors)
    for name, value in tensors.items():
        a, mlir = logical(value)
        s = module[name]
        if untyped:
            continue
        assert s.element_type == mlir, name
        assert s.shape == a.shape, name
        try:
            got = s.numpy()
        except vmpack.UnsupportedError:
            # Wider than int32 and not whole bytes (ui33): no numpy widening
            # in the runtime; the stored patterns instead.
            scalar, per = scalar_of(mlir)
            check_patterns(name, value, patterns(
                s.raw, s.encoding, width_of(scalar), a.size * per))
            continue
        if mlir == "i1":
            assert got.dtype == np.bool_
            assert np.array_equal(got, a.astype(bool)), name
        elif a.dtype.kind == "c":
            scalar, _ = scalar_of(mlir)
            if scalar in ("f32", "f64"):
                assert np.array_equal(got, a), name
            else:
                pairs = s.unpack(dtype="float32").reshape(-1)
                assert same_floats(pairs, scalars(value).astype(np.float32))
        elif mlir == "f64":
            assert np.array_equal(got, a), name
        elif a.dtype.kind == "f":
            assert same_floats(got, a), name
        else:
            assert np.array_equal(got, a), name


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("saved")
    paths = {}
    for ext in ("vmpk", "safetensors", "gguf"):
        paths[ext] = d / f"w.{ext}"
        vmpack.save_file(TENSORS, paths[ext], metadata=METADATA)
    paths["irpa"] = d / "w.irpa"
    vmpack.save_file(TENSORS, paths["irpa"])
    return paths


CONTAINERS = {"vmpk": "vmpk", "safetensors": "safetensors", "gguf": "gguf"}


@pytest.mark.parametrize("ext", ["vmpk", "safetensors", "gguf"])
def test_round_trip(saved, ext):
    with vmpack.open(saved[ext]) as m:
        m.verify()
        assert m.container == CONTAINERS[ext]
        check_readback(m, TENSORS)
        assert m.metadata == METADATA


def test_vmpk_is_a_module_of_packed_segments(saved):
    with vmpack.open(saved["vmpk"]) as m:
        assert m.name == "w"
        for name, value in TENSORS.items():
            s = m[name]
            assert s.offset % 64 == 0 and s.checksum is not None
            a, mlir = logical(value)
            scalar, per = scalar_of(mlir)
            w = width_of(scalar)
            count = a.size * per
            if w % 8:
                assert s.encoding == "packed", name
            check_patterns(name, value,
                           patterns(s.raw, s.encoding, w, count))


def test_irpa_entries_are_ireees_layout(saved):
    """.irpa keeps bytes only: each entry is IREE's VM layout of the values
    (`word`; i1 one byte per element), decoded by reference.py."""
    with vmpack.open(saved["irpa"]) as m:
        assert m.container == "irpa" and m.metadata == {}
        check_readback(m, TENSORS, untyped=True)
        for name, value in TENSORS.items():
            a, mlir = logical(value)
            scalar, per = scalar_of(mlir)
            w = width_of(scalar)
            check_patterns(name, value,
                           patterns(m[name].raw, "word", w, a.size * per))


def read_safetensors(path):
    """The safetensors format from its README alone: u64 header length,
    JSON header, data buffer. Returns ({name: (dtype, shape, bytes)},
    metadata)."""
    data = pathlib.Path(path).read_bytes()
    n = int.from_bytes(data[:8], "little")
    assert n % 8 == 0
    header = json.loads(data[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    buffer = data[8 + n:]
    out, end = {}, 0
    for name, entry in header.items():
        assert list(entry) == ["dtype", "shape", "data_offsets"]
        begin, stop = entry["data_offsets"]
        assert begin == end, "tensors are back to back"
        end = stop
        out[name] = (entry["dtype"], entry["shape"], buffer[begin:stop])
    assert end == len(buffer)
    return out, meta


# safetensors dtype -> (bits per scalar, layout)
ST_DTYPES = {"BOOL": 1, "U8": 8, "I8": 8, "U16": 16, "I16": 16, "F16": 16,
             "BF16": 16, "U32": 32, "I32": 32, "F32": 32, "U64": 64,
             "I64": 64, "F64": 64, "C64": 32, "F8_E5M2": 8, "F8_E4M3": 8,
             "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8, "F6_E2M3": 6,
             "F6_E3M2": 6, "F4": 4}


def test_safetensors_by_an_independent_reader(saved):
    tensors, meta = read_safetensors(saved["safetensors"])
    assert list(tensors) == list(TENSORS)
    types = {k[len("vmpack.type."):]: v for k, v in meta.items()
             if k.startswith("vmpack.type.")}
    assert {k: v for k, v in meta.items()
            if not k.startswith("vmpack.type.")} == METADATA
    for name, value in TENSORS.items():
        dtype, shape, raw = tensors[name]
        a, mlir = logical(value)
        scalar, per = scalar_of(mlir)
        w = width_of(scalar)
        count = a.size * per
        if name in types:
            assert types[name] == "tensor<%s>" % "x".join(
                [str(d) for d in a.shape] + [mlir]), name
        if dtype == "U8" and mlir != "ui8":
            # Packed bit stream, the type in the metadata.
            assert name in types and shape == [len(raw)], name
            assert len(raw) == -(-count * w // 8)
            check_patterns(name, value, patterns(raw, "packed", w, count))
            continue
        assert shape == list(a.shape), name
        bits = ST_DTYPES[dtype]
        assert bits == w, (name, dtype)
        layout = "packed" if bits in (4, 6) else "byte"
        check_patterns(name, value, patterns(raw, layout, w, count))
        if a.dtype.kind in "iufb" and a.dtype.itemsize * 8 == w and \
                a.dtype.kind != "b":
            assert raw == a.astype(a.dtype.newbyteorder("<")).tobytes()


GGUF_READER = textwrap.dedent("""
    import { pathToFileURL } from "node:url";
    import { join } from "node:path";
    const [modules, file] = process.argv.slice(1);
    const { gguf } = await import(
      pathToFileURL(join(modules, "@huggingface/gguf/dist/index.mjs")).href);
    const r = await gguf(file, { allowLocalFile: true, typedMetadata: true });
    const meta = {};
    for (const [k, v] of Object.entries(r.typedMetadata))
      meta[k] = [v.type, typeof v.value === "bigint" ? v.value.toString()
                                                      : v.value];
    console.log(JSON.stringify({
      meta,
      offset: r.tensorDataOffset.toString(),
      tensors: r.tensorInfos.map((t) => ({
        name: t.name, dtype: t.dtype, offset: t.offset.toString(),
        shape: t.shape.map((d) => Number(d)) })) }));
    """)


def huggingface_gguf(path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: npm's @huggingface/gguf "
                    "cannot run (scripts/install-npm-deps.sh)")
    if not (NPM / "@huggingface" / "gguf" / "package.json").exists():
        pytest.skip(f"npm's @huggingface/gguf is not in {NPM} "
                    "(scripts/install-npm-deps.sh installs it)")
    out = subprocess.run([node, "--input-type=module", "-e", GGUF_READER,
                          str(NPM), str(path)], check=True,
                         capture_output=True, text=True,
                         env=foreign_env()).stdout
    return json.loads(out)


# ggml types of the plain rows (ggml-org/ggml include/ggml.h, enum ggml_type)
GGML = {"f32": (0, 32), "f16": (1, 16), "i8": (24, 8), "i16": (25, 16),
        "i32": (26, 32), "i64": (27, 64), "f64": (28, 64), "bf16": (30, 16)}
GGUF_STRING, GGUF_UINT32 = 8, 4


def test_gguf_by_huggingface_gguf(saved, tmp_path):
    r = huggingface_gguf(saved["gguf"])
    data = saved["gguf"].read_bytes()
    meta = r["meta"]
    for key, value in METADATA.items():
        assert meta[key] == [GGUF_STRING, value]
    assert [t["name"] for t in r["tensors"]] == list(TENSORS)
    start = int(r["offset"])
    assert start % 32 == 0
    for t in r["tensors"]:
        name = t["name"]
        value = TENSORS[name]
        a, mlir = logical(value)
        scalar, per = scalar_of(mlir)
        w = width_of(scalar)
        count = a.size * per
        at = start + int(t["offset"])
        assert at % 32 == 0
        record = meta.get("vmpack.type." + name)
        plain = {"si8": "i8", "si16": "i16", "si32": "i32", "si64": "i64",
                 "index": "i64"}.get(mlir, mlir)
        if plain in GGML:
            assert t["dtype"] == GGML[plain][0], name
            assert t["shape"][::-1] == list(a.shape), name
            if plain != mlir:
                assert record[1] == "tensor<%s>" % "x".join(
                    [str(d) for d in a.shape] + [mlir])
            raw = data[at:at + count * w // 8]
            check_patterns(name, value, patterns(raw, "byte", w, count))
        else:
            # ggml I8 bytes holding the packed stream; the type recorded.
            assert t["dtype"] == GGML["i8"][0] and len(t["shape"]) == 1
            assert record == [GGUF_STRING, "tensor<%s>" % "x".join(
                [str(d) for d in a.shape] + [mlir])], name
            n = t["shape"][0]
            assert n == -(-count * w // 8)
            check_patterns(name, value,
                           patterns(data[at:at + n], "packed", w, count))


def test_gguf_typed_values_and_alignment(tmp_path):
    path = tmp_path / "t.gguf"
    vmpack.save_file({"w": np.arange(5, dtype=np.float32)}, path,
                     metadata={"general.architecture": "llama",
                               "vmpack.gguf.llama.context_length":
                               "uint32:4096"}, alignment=64)
    r = huggingface_gguf(path)
    assert r["meta"]["general.architecture"] == [GGUF_STRING, "llama"]
    assert r["meta"]["llama.context_length"] == [GGUF_UINT32, 4096]
    assert r["meta"]["general.alignment"] == [GGUF_UINT32, 64]
    assert int(r["offset"]) % 64 == 0
    with vmpack.open(path) as m:
        assert m.metadata["llama.context_length"] == "4096"
        assert m.metadata_types["llama.context_length"] == "uint32"


def iree_tool(name):
    path = IREE_TOOLS / name
    if not path.exists():
        pytest.skip(f"IREE's tools are not at {IREE_TOOLS} (the "
                    "repository's parent directory holds shared/ in this "
                    "project's CI)")
    return path


def test_irpa_by_iree(saved, tmp_path):
    path = saved["irpa"]
    names = list(TENSORS)
    listing = subprocess.run(
        [iree_tool("iree-dump-parameters"), f"--parameters=x={path}",
         "--parameter_mode=preload"] +
        [f"--extract=x::{n}={tmp_path / str(k)}.bin"
         for k, n in enumerate(names)],
        check=True, capture_output=True, text=True, env=foreign_env()).stdout
    listed = re.findall(r"^\s*(\d+) \|\s*(\d+) \|\s*(\d+) \| `(.*)`",
                        listing, re.M)
    assert [e[3] for e in listed] == names
    with vmpack.open(path) as m:
        for k, (start, end, length, name) in enumerate(listed):
            assert int(start) % 64 == 0
            assert int(start) == m[name].offset
            extracted = (tmp_path / f"{k}.bin").read_bytes()
            assert extracted == bytes(m[name].raw), name
            assert len(extracted) == int(length)


def mlir_opt():
    for candidate in ("mlir-opt-22", "/usr/lib/llvm-22/bin/mlir-opt"):
        if shutil.which(candidate):
            return shutil.which(candidate)
    return None


@needs_compiler
@pytest.mark.parametrize("ext", ["mlir", "mlirbc"])
def test_mlir_round_trip(tmp_path, ext):
    """MLIR files: one ml_program.global per tensor, read back through the
    compiler's reader (vmpack.convert), parsed by MLIR's own mlir-opt."""
    path = tmp_path / f"w.{ext}"
    vmpack.save_file(TENSORS, path, metadata=METADATA)
    back = tmp_path / "back.safetensors"
    vmpack.convert(path, back)
    with vmpack.open(back) as m:
        check_readback(m, TENSORS)
        assert m.metadata == METADATA
    opt = mlir_opt()
    if opt:
        text = subprocess.run([opt, str(path)], check=True,
                              capture_output=True, text=True,
                              env=foreign_env()).stdout
        assert text.count("ml_program.global private") == len(TENSORS)
        assert "tensor<3x5xi4>" in text


def test_same_bytes_as_vmpack_convert(saved, tmp_path):
    """save_file and vmpack-convert share their writers: converting the
    saved safetensors file to GGUF and .vmpk gives the files save_file
    wrote itself, byte for byte."""
    for ext in ("gguf", "vmpk"):
        out = tmp_path / f"w.{ext}"
        vmpack.convert(saved["safetensors"], out)
        assert out.read_bytes() == saved[ext].read_bytes(), ext


def test_format_by_name_and_extension_errors(tmp_path):
    a = {"x": np.arange(3, dtype=np.int16)}
    vmpack.save_file(a, tmp_path / "x.bin", format="safetensors")
    with vmpack.open(tmp_path / "x.bin") as m:
        assert m.container == "safetensors"
        assert m["x"].numpy().tolist() == [0, 1, 2]
    with pytest.raises(vmpack.InvalidArgumentError, match="vmpk"):
        vmpack.save_file(a, tmp_path / "x.npz")
    with pytest.raises(vmpack.InvalidArgumentError, match="alignment"):
        vmpack.save_file(a, tmp_path / "y.safetensors", alignment=64)
    with pytest.raises(vmpack.InvalidArgumentError, match="power of two"):
        vmpack.save_file(a, tmp_path / "y.vmpk", alignment=48)
    vmpack.save_file(a, tmp_path / "y.vmpk", alignment=4096)
    with vmpack.open(tmp_path / "y.vmpk") as m:
        assert m["x"].offset % 4096 == 0 and m["x"].alignment == 4096
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.bin", "y.vmpk"]


def test_zero_copy_arrays_of_an_open_file(saved, tmp_path):
    """Views of a mapped file are written from the mapping: saving the
    tensors of an open file elsewhere gives the same values."""
    with vmpack.open(saved["safetensors"]) as m:
        views = {k: m[k].numpy() for k in ("t12.i8", "t14.ui8", "t15.i16")}
        assert all(not v.flags.owndata for v in views.values())
        vmpack.save_file(views, tmp_path / "copy.safetensors")
    with vmpack.open(tmp_path / "copy.safetensors") as c:
        for k, v in views.items():
            assert np.array_equal(c[k].numpy(), TENSORS[k])


@pytest.mark.parametrize("value, message", [
    ((np.array([[0, 1], [8, 0]], np.int8), "i4"),
     r"tensor 'w': the value 8 at index \[1, 0\] is outside i4's range -8 "
     r"to 7"),
    ((np.array([3, -1], np.int16), "ui2"),
     r"the value -1 at index \[1\] is outside ui2's range 0 to 3"),
    ((np.array([-5], np.int64), "si3"), r"-5 at index \[0\].*si3's range"),
    ((np.array([2], np.int8), "i1"), r"the value 2 .* outside i1's range"),
    ((np.array([2 ** 63], np.uint64), "i64"), r"9223372036854775808"),
    ((np.array([0.5, 0.25], np.float32), "f4E2M1FN"),
     r"the value 0.25 at index \[1\] is not a value of f4E2M1FN"),
    ((np.array([np.nan], np.float32), "f4E2M1FN"), r"nan .*f4E2M1FN"),
    ((np.array([np.inf], np.float32), "f8E4M3FN"), r"inf .*f8E4M3FN"),
    ((np.array([1 + 2 ** -10], np.float32), "bf16"), r"is not a value of bf16"),
    ((np.array([0.1], np.float64), "f16"), r"0.10000000000000001 at"),
    ((np.array([0.0], np.float32), "f8E8M0FNU"), r"f8E8M0FNU"),
    ((np.array([1 + 0.3j], np.complex64), "complex<bf16>"),
     r"at index \[0\] \(imaginary part\) is not a value of complex<bf16>"),
])
def test_values_out_of_range(tmp_path, value, message):
    out = tmp_path / "w.safetensors"
    with pytest.raises(vmpack.InvalidArgumentError, match=message):
        vmpack.save_file({"ok": np.zeros(3, np.float32), "w": value}, out)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value, error, message", [
    ((np.array([1.0]), "i4"), vmpack.UnsupportedError, "integer or bool"),
    ((np.array([1], np.int8), "bf16"), vmpack.InvalidArgumentError,
     "float array"),
    ((np.array([1], np.int8), "i4x"), vmpack.InvalidArgumentError,
     "not an MLIR element type"),
    ((np.array([1.0], np.float32), "f64"), vmpack.UnsupportedError,
     "float64"),
    ((np.array([1], np.int8), "i65"), vmpack.UnsupportedError,
     "wider than 64"),
    ((np.array([1j], np.complex64), "f32"), vmpack.InvalidArgumentError,
     "complex"),
    (np.array(["a"]), vmpack.UnsupportedError, "holds no numbers"),
    (np.array([1], np.float128) if hasattr(np, "float128") else
     np.array(["a"]), vmpack.UnsupportedError, "vmpack"),
])
def test_arrays_a_type_cannot_take(tmp_path, value, error, message):
    with pytest.raises(error, match=message):
        vmpack.save_file({"w": value}, tmp_path / "w.vmpk")
    assert list(tmp_path.iterdir()) == []


def test_bool_arrays_hold_bools(tmp_path):
    raw = np.array([0, 1, 2], np.uint8).view(np.bool_)
    with pytest.raises(vmpack.InvalidArgumentError,
                       match=r"element \[2\] of the bool array holds the "
                       r"byte 2"):
        vmpack.save_file({"m": raw}, tmp_path / "m.safetensors")
    assert list(tmp_path.iterdir()) == []


def test_non_contiguous_and_big_endian_arrays(tmp_path):
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    t = {"strided": a[:, ::2], "big": a.astype(">i4"),
         "i4": (a[::2] % 8 - 4, "i4")}
    vmpack.save_file(t, tmp_path / "w.vmpk")
    with vmpack.open(tmp_path / "w.vmpk") as m:
        assert np.array_equal(m["strided"].numpy(), a[:, ::2])
        assert np.array_equal(m["big"].numpy(), a)
        assert np.array_equal(m["i4"].numpy(), a[::2] % 8 - 4)


def test_metadata_a_format_cannot_hold(tmp_path):
    a = {"w": np.zeros(2, np.float32)}
    with pytest.raises(vmpack.InvalidArgumentError,
                       match=r"metadata key 'k'.*\.irpa keeps no metadata"):
        vmpack.save_file(a, tmp_path / "w.irpa", metadata={"k": "v"})
    with pytest.raises(vmpack.InvalidArgumentError,
                       match=r"metadata key 'vmpack.type.w' is reserved"):
        vmpack.save_file(a, tmp_path / "w.safetensors",
                         metadata={"vmpack.type.w": "tensor<2xf32>"})
    with pytest.raises(vmpack.InvalidArgumentError,
                       match="general.alignment must be a uint32"):
        vmpack.save_file(a, tmp_path / "w.gguf",
                         metadata={"general.alignment": "32"})
    with pytest.raises(vmpack.InvalidArgumentError, match="vmpack.gguf.n"):
        vmpack.save_file(a, tmp_path / "w.gguf",
                         metadata={"vmpack.gguf.n": "uint8:300"})
    with pytest.raises(TypeError, match="metadata key 'n'"):
        vmpack.save_file(a, tmp_path / "w.gguf", metadata={"n": 3})
    assert list(tmp_path.iterdir()) == []


def test_a_failed_save_keeps_the_existing_file(tmp_path):
    out = tmp_path / "w.safetensors"
    vmpack.save_file({"w": np.arange(4, dtype=np.int8)}, out)
    before = out.read_bytes()
    with pytest.raises(vmpack.InvalidArgumentError):
        vmpack.save_file({"w": (np.array([9], np.int8), "i4")}, out)
    with pytest.raises(vmpack.InvalidArgumentError):
        vmpack.save_file({"w": np.zeros(2)}, out,
                         metadata={"vmpack.type.x": "y"})
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["w.safetensors"]


def test_a_failed_write_leaves_nothing(tmp_path):
    """A file-size limit below the output's size: the writer's error, the
    old file untouched, no temporary file left beside it."""
    out = tmp_path / "w.vmpk"
    vmpack.save_file({"old": np.arange(3, dtype=np.int8)}, out)
    before = out.read_bytes()
    script = textwrap.dedent(f"""
        import resource, numpy as np, vmpack
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))
        try:
            vmpack.save_file({{"w": np.ones(1 << 20, np.float32),
                              "q": (np.ones(1 << 18, np.int8), "i4")}},
                             {str(out)!r})
        except vmpack.IOError as e:
            print("IOError", e)
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True,
                       text=True, check=True)
    assert r.stdout.startswith("IOError"), r.stdout + r.stderr
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["w.vmpk"]


@pytest.mark.parametrize("name", ["same", "symlink", "hardlink"])
def test_an_open_file_is_never_overwritten(tmp_path, name):
    source = tmp_path / "w.safetensors"
    vmpack.save_file({"w": np.arange(4, dtype=np.float32)}, source)
    before = source.read_bytes()
    out = {"same": source, "symlink": tmp_path / "link.safetensors",
           "hardlink": tmp_path / "hard.safetensors"}[name]
    if name == "symlink":
        os.symlink("w.safetensors", out)
    if name == "hardlink":
        os.link(source, out)
    with vmpack.open(source) as m:
        w = m["w"].numpy()
        with pytest.raises(vmpack.InvalidArgumentError, match="is the input"):
            vmpack.save_file({"w": w * 2}, out)
        assert source.read_bytes() == before
    # A view of the mapped file keeps it open, and an input, after close.
    with pytest.raises(vmpack.InvalidArgumentError, match="is the input"):
        vmpack.save_file({"w": np.zeros(1, np.float32)}, out)
    del w
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {"w.safetensors", out.name})
    vmpack.save_file({"w": np.zeros(1, np.float32)}, out)  # closed: fine
    with vmpack.open(out) as m:
        assert m["w"].numpy().tolist() == [0.0]


@pytest.mark.skipif(
    any(s in os.environ.get("LD_PRELOAD", "") for s in ("asan", "tsan")),
    reason="AddressSanitizer keeps freed memory in its quarantine, and "
    "ThreadSanitizer maps shadow memory for every buffer, so anonymous "
    "memory grows with them: measured in the Release build")
@pytest.mark.parametrize("ext", ["safetensors", "vmpk", "irpa"])
def test_arrays_are_written_from_their_buffers(tmp_path, ext):
    """No second copy of the data: saving 32 MiB of float32 and 64 MiB of
    int8 as i4 (32 MiB packed) grows the process's anonymous memory by far
    less than any of them (sampled while the GIL-free save runs; the
    writers' buffers of a few MiB are what it grows by). One writer of
    each kind: OutputFile (safetensors, GGUF), the archive writer, IREE's
    layout."""
    script = textwrap.dedent(f"""
        import threading, numpy as np, vmpack
        def anon():
            for line in open("/proc/self/status"):
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
        w = np.ones(8 << 20, np.float32)
        q = np.ones(64 << 20, np.int8)
        base, peak, done = anon(), [0], threading.Event()
        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], anon() - base)
                done.wait(0.001)
        t = threading.Thread(target=sample)
        t.start()
        vmpack.save_file({{"w": w, "q": (q, "i4")}},
                         {str(tmp_path / ("big." + ext))!r})
        done.set()
        t.join()
        print(peak[0])
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True,
                       text=True, check=True)
    grown = int(r.stdout)
    assert grown < 24 << 20, f"anonymous memory grew by {grown} bytes"
    with vmpack.open(tmp_path / ("big." + ext)) as m:
        assert m["q"].nbytes == 32 << 20
        assert bytes(m["q"].raw[:4]) == b"\x11\x11\x11\x11"
        assert np.all(m["w"].numpy(dtype=None if ext != "irpa" else
                                   "float32") == 1)


def test_tensor_and_tuple_spellings_agree(tmp_path):
    v = np.array([-4, 0, 3], np.int8)
    vmpack.save_file({"a": (v, "si3"), "b": vmpack.Tensor(v, type="si3")},
                     tmp_path / "t.vmpk")
    with vmpack.open(tmp_path / "t.vmpk") as m:
        assert bytes(m["a"].raw) == bytes(m["b"].raw)
        assert m["a"].numpy().tolist() == [-4, 0, 3]
    assert "si3" in repr(vmpack.Tensor(v, type="si3"))
    with pytest.raises(TypeError, match="mapping"):
        vmpack.save_file([("a", v)], tmp_path / "t.vmpk")
    with pytest.raises(TypeError, match=r"\(array, \"TYPE\"\)"):
        vmpack.save_file({"a": (v, "i4", 1)}, tmp_path / "t.vmpk")


def test_onnx_initializers(tmp_path):
    """.onnx: a graph of initializers, the data in w.onnx.data beside it;
    read back through vmpack-convert's ONNX reader and, where python3-onnx
    is installed, by onnx.numpy_helper."""
    t = {"f": RNG.standard_normal((2, 3)).astype(np.float32),
         "b": np.array([True, False, True]),
         "h": np.arange(5, dtype=np.float16),
         "u": np.arange(4, dtype=np.uint16),
         "q": (np.array([-8, 7, 0, 1, -1], np.int8), "i4"),
         "e": (np.array([0.5, -6.0, 3.0], np.float32), "f4E2M1FN")}
    path = tmp_path / "w.onnx"
    vmpack.save_file(t, path, metadata={"k": "v"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.onnx",
                                                          "w.onnx.data"]
    back = tmp_path / "back.safetensors"
    vmpack.convert(path, back)
    with vmpack.open(back) as m:
        check_readback(m, t)
        assert m.metadata == {"k": "v"}
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return  # python3-onnx absent: vmpack's reader above only
    model = onnx.load(str(path))
    arrays = {i.name: i for i in model.graph.initializer}
    for name in ("f", "b", "h", "u"):
        assert np.array_equal(numpy_helper.to_array(arrays[name]), t[name])
    assert {p.key: p.value for p in model.metadata_props} == {"k": "v"}


def test_types_a_format_has_no_form_for(tmp_path):
    """ONNX has no si3 or tf32; the writer's refusal names the tensor and
    nothing is written."""
    with pytest.raises(vmpack.Error, match="'w'"):
        vmpack.save_file({"w": (np.array([1, 2], np.int8), "si3")},
                         tmp_path / "w.onnx")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(vmpack._vmpack.HAS_COMPILER,
                    reason="this build has MLIR: MLIR files are written")
def test_mlir_needs_the_mlir_build(tmp_path):
    with pytest.raises(vmpack.UnsupportedError, match="VMPACK_ENABLE_MLIR"):
        vmpack.save_file({"w": np.zeros(2)}, tmp_path / "w.mlirbc")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ext", ["safetensors", "gguf", "vmpk"])
def test_scalars_and_empty_tensors(tmp_path, ext):
    t = {"s": np.float32(2.5), "s4": (np.array(-3, np.int8), "i4"),
         "e": np.zeros((0, 3), np.float32), "e4": (np.zeros(0, np.int8), "i4")}
    vmpack.save_file(t, tmp_path / f"z.{ext}")
    with vmpack.open(tmp_path / f"z.{ext}") as m:
        assert m["s"].shape == () and m["s"].numpy().tolist() == 2.5
        assert m["s4"].shape == () and m["s4"].numpy().tolist() == -3
        assert m["e"].shape == (0, 3) and m["e4"].shape == (0,)
