# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A GGUF file that vmpack does not change comes back byte for byte.

The files are written by ggml itself: llama.cpp's libggml-base.so
(npm @node-llama-cpp/linux-x64, installed by scripts/install-npm-deps.sh),
loaded with ctypes, builds a gguf_context (gguf_init_empty, gguf_set_*,
gguf_add_tensor) and writes it with gguf_write_to_file; quantized tensors
come from ggml_quantize_chunk, f16 and bf16 from ggml's own row
conversions. vmpack-convert then copies the file GGUF -> GGUF and
GGUF -> .vmpk -> GGUF, and both results must equal the input exactly
(docs/interop.md, "A GGUF file comes back as it was")."""

import ctypes
import filecmp
import os
import pathlib
import subprocess

import numpy as np
import pytest

from conftest import BUILD_DIR, SOURCE_DIR

# ggml.h, enum ggml_type.
GGML_F32, GGML_F16, GGML_Q4_0, GGML_Q6_K, GGML_I8, GGML_BF16 = \
    0, 1, 2, 14, 24, 30
GGML_I16, GGML_I32, GGML_I64, GGML_F64 = 25, 26, 27, 28
# Block types ggml_quantize_chunk makes without an importance matrix:
# Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, IQ4_NL, IQ4_XS, TQ1_0,
# TQ2_0, MXFP4.
MORE_BLOCK_TYPES = [3, 6, 7, 8, 10, 11, 12, 13, 20, 23, 34, 35, 39]
PLAIN_NUMPY = {GGML_I8: np.int8, GGML_I16: np.int16, GGML_I32: np.int32,
               GGML_I64: np.int64, GGML_F64: np.float64}
# gguf.h, enum gguf_type.
(GGUF_U8, GGUF_I8, GGUF_U16, GGUF_I16, GGUF_U32, GGUF_I32, GGUF_F32,
 GGUF_BOOL, GGUF_STRING, GGUF_ARRAY, GGUF_U64, GGUF_I64, GGUF_F64) = range(13)

RNG = np.random.default_rng(26)


def ggml_library():
    """libggml-base.so from the npm package, or a skip saying why not."""
    npm = pathlib.Path(os.environ.get("VMPACK_NPM_DIR",
                                      SOURCE_DIR / "third_party" / "npm"))
    path = (npm / "node_modules" / "@node-llama-cpp" / "linux-x64" / "bins" /
            "linux-x64" / "libggml-base.so")
    if not path.exists():
        pytest.skip(f"{path} is absent: run scripts/install-npm-deps.sh "
                    "(npm @node-llama-cpp/linux-x64)")
    lib = ctypes.CDLL(str(path))
    p, i64, sz = ctypes.c_void_p, ctypes.c_int64, ctypes.c_size_t
    lib.ggml_init.restype = p
    lib.ggml_init.argtypes = [InitParams]
    lib.ggml_free.argtypes = [p]
    lib.ggml_new_tensor_4d.restype = p
    lib.ggml_new_tensor_4d.argtypes = [p, ctypes.c_int, i64, i64, i64, i64]
    lib.ggml_set_name.restype = p
    lib.ggml_set_name.argtypes = [p, ctypes.c_char_p]
    lib.ggml_get_data.restype = p
    lib.ggml_get_data.argtypes = [p]
    lib.ggml_nbytes.restype = sz
    lib.ggml_nbytes.argtypes = [p]
    lib.ggml_quantize_chunk.restype = sz
    lib.ggml_quantize_chunk.argtypes = [ctypes.c_int, p, p, i64, i64, i64, p]
    lib.ggml_fp32_to_fp16_row.argtypes = [p, p, i64]
    lib.ggml_fp32_to_bf16_row.argtypes = [p, p, i64]
    lib.gguf_init_empty.restype = p
    lib.gguf_free.argtypes = [p]
    lib.gguf_set_val_str.argtypes = [p, ctypes.c_char_p, ctypes.c_char_p]
    for name, ctype in [("u8", ctypes.c_uint8), ("i8", ctypes.c_int8),
                        ("u16", ctypes.c_uint16), ("i16", ctypes.c_int16),
                        ("u32", ctypes.c_uint32), ("i32", ctypes.c_int32),
                        ("f32", ctypes.c_float), ("bool", ctypes.c_bool),
                        ("u64", ctypes.c_uint64), ("i64", ctypes.c_int64),
                        ("f64", ctypes.c_double)]:
        getattr(lib, "gguf_set_val_" + name).argtypes = [
            p, ctypes.c_char_p, ctype]
    lib.gguf_set_arr_data.argtypes = [p, ctypes.c_char_p, ctypes.c_int, p, sz]
    lib.gguf_set_arr_str.argtypes = [
        p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), sz]
    lib.gguf_add_tensor.argtypes = [p, p]
    lib.gguf_write_to_file.restype = ctypes.c_bool
    lib.gguf_write_to_file.argtypes = [p, ctypes.c_char_p, ctypes.c_bool]
    return lib


class InitParams(ctypes.Structure):
    """ggml.h, struct ggml_init_params."""
    _fields_ = [("mem_size", ctypes.c_size_t), ("mem_buffer", ctypes.c_void_p),
                ("no_alloc", ctypes.c_bool)]


def tensor_bytes(lib, ggml_type, rows, row):
    """`rows` x `row` values in ggml_type, converted by ggml itself."""
    values = (RNG.standard_normal((rows, row)) * 4).astype(np.float32)
    src = values.ctypes.data_as(ctypes.c_void_p)
    if ggml_type == GGML_F32:
        return values.tobytes()
    if ggml_type == GGML_F64:
        return values.astype(np.float64).tobytes()
    if ggml_type in PLAIN_NUMPY:
        info = np.iinfo(PLAIN_NUMPY[ggml_type])
        return RNG.integers(info.min, info.max, size=(rows, row),
                            dtype=PLAIN_NUMPY[ggml_type],
                            endpoint=True).tobytes()
    if ggml_type in (GGML_F16, GGML_BF16):
        out = np.zeros((rows, row), dtype=np.uint16)
        convert = lib.ggml_fp32_to_fp16_row if ggml_type == GGML_F16 \
            else lib.ggml_fp32_to_bf16_row
        convert(src, out.ctypes.data_as(ctypes.c_void_p), rows * row)
        return out.tobytes()
    out = ctypes.create_string_buffer(rows * row * 2)
    n = lib.ggml_quantize_chunk(ggml_type, src, out, 0, rows, row, None)
    assert 0 < n <= len(out)
    return out.raw[:n]


def write_with_ggml(lib, path, keys, tensors):
    """keys: [(key, setter, value)] with setter "str", "u32", ... or
    ("arr", gguf_type, numpy array) / ("arr_str", [strings]);
    tensors: [(name, ggml type, rows, row)] or
    [(name, ggml type, (ne0, ne1, ne2, ne3))]. Returns {name: bytes}."""
    ctx = lib.gguf_init_empty()
    mem = lib.ggml_init(InitParams(64 << 20, None, False))
    assert ctx and mem
    data = {}
    try:
        for key, setter, value in keys:
            k = key.encode()
            if setter == "str":
                lib.gguf_set_val_str(ctx, k, value.encode())
            elif setter == "arr_str":
                items = (ctypes.c_char_p * len(value))(
                    *[s.encode() for s in value])
                lib.gguf_set_arr_str(ctx, k, items, len(value))
            elif setter == "arr":
                gguf_type, array = value
                lib.gguf_set_arr_data(ctx, k, gguf_type,
                                      array.ctypes.data_as(ctypes.c_void_p),
                                      array.size)
            else:
                getattr(lib, "gguf_set_val_" + setter)(ctx, k, value)
        for name, ggml_type, *dims in tensors:
            ne = dims[0] if len(dims) == 1 else (dims[1], dims[0], 1, 1)
            t = lib.ggml_new_tensor_4d(mem, ggml_type, *ne)
            row, rows = ne[0], ne[1] * ne[2] * ne[3]
            lib.ggml_set_name(t, name.encode())
            raw = tensor_bytes(lib, ggml_type, rows, row)
            assert lib.ggml_nbytes(t) == len(raw)
            ctypes.memmove(lib.ggml_get_data(t), raw, len(raw))
            data[name] = raw
            lib.gguf_add_tensor(ctx, t)
        assert lib.gguf_write_to_file(ctx, str(path).encode(), False)
    finally:
        lib.ggml_free(mem)
        lib.gguf_free(ctx)
    return data


def convert_tool():
    path = BUILD_DIR / "bin" / "vmpack-convert" if BUILD_DIR else None
    if path is None or not path.exists():
        pytest.skip(f"vmpack-convert is not built (VMPACK_BUILD_DIR="
                    f"{BUILD_DIR})")
    return path


def convert(*args):
    subprocess.run([str(convert_tool()), "-q", *map(str, args)], check=True)


def assert_same_file(a, b):
    """cmp: equal bytes, and where they first differ when not."""
    x, y = pathlib.Path(a).read_bytes(), pathlib.Path(b).read_bytes()
    if x == y:
        assert filecmp.cmp(a, b, shallow=False)
        return
    first = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q),
                 min(len(x), len(y)))
    pytest.fail(f"{b} differs from {a} at byte {first} (sizes {len(x)} and "
                f"{len(y)})")


SIX_TYPES = [("tok_embd", GGML_F32, 2, 64), ("norm", GGML_F16, 1, 96),
             ("attn_q", GGML_Q4_0, 3, 64), ("ffn_up", GGML_Q6_K, 2, 256),
             ("attn_k", GGML_BF16, 4, 32), ("mask", GGML_I8, 1, 40)]

THREE_KEYS = [("general.architecture", "str", "llama"),
              ("llama.context_length", "u32", 4096),
              ("tokenizer.ggml.tokens", "arr_str", ["<s>", "a\"b", "\u00e9"])]

# Every value type ggml writes, arrays, empty arrays and strings, and
# tensors whose sizes leave padding between them. (No general.alignment:
# ggml's gguf_set_val_u32 records the key but lays the file out with the
# alignment of gguf_init_empty, 32, a file its own reader refuses.)
EVERY_KEY = [
    ("k.u8", "u8", 255), ("k.i8", "i8", -128), ("k.u16", "u16", 65535),
    ("k.i16", "i16", -32768), ("k.u32", "u32", 4294967295),
    ("k.i32", "i32", -2147483648), ("k.f32", "f32", -0.0),
    ("k.bool", "bool", True), ("k.u64", "u64", 2**64 - 1),
    ("k.i64", "i64", -2**63), ("k.f64", "f64", 1e-310),
    ("k.str", "str", ""), ("k.utf8", "str", "\u00e9\u4e2d"),
    ("k.arr.f32", "arr", (GGUF_F32, np.array(
        [0.1, float("nan"), float("inf"), -1.5], dtype=np.float32))),
    ("k.arr.i64", "arr", (GGUF_I64, np.array([-1, 2**62], dtype=np.int64))),
    ("k.arr.bool", "arr", (GGUF_BOOL, np.array([1, 0, 1], dtype=np.uint8))),
    ("k.arr.u8", "arr", (GGUF_U8, np.zeros(0, dtype=np.uint8))),
    ("k.arr.str", "arr_str", ["", "x", "\u00e9"]),
    ("k.arr.empty", "arr_str", []),
]

ODD_SIZES = [("a", GGML_F16, 3, 5), ("b", GGML_I8, 1, 7),
             ("c", GGML_Q4_0, 1, 32), ("d", GGML_BF16, 1, 3),
             ("e", GGML_F32, 1, 1), ("f", GGML_Q6_K, 1, 256)]


# More ggml types and ranks 1 to 4 (ggml writes a shape's trailing 1s
# away: ggml_n_dims). (No tensor of no elements: gguf_write_to_file
# asserts that every tensor has data.)
MORE_TYPES = [(f"blk.{t}", t, (256, 2, 1, 1)) for t in MORE_BLOCK_TYPES] + [
    ("i16", GGML_I16, (3, 2, 2, 1)), ("i32", GGML_I32, (5, 1, 1, 2)),
    ("i64", GGML_I64, (2, 3, 1, 1)), ("f64", GGML_F64, (1, 1, 1, 1)),
    ("f32.4d", GGML_F32, (2, 3, 4, 5)), ("f16.3d", GGML_F16, (8, 1, 3, 1)),
    ("q4.4d", GGML_Q4_0, (32, 1, 2, 3))]


@pytest.mark.parametrize("keys,tensors", [(THREE_KEYS, SIX_TYPES),
                                          (EVERY_KEY, ODD_SIZES),
                                          (THREE_KEYS, MORE_TYPES),
                                          ([], SIX_TYPES), (THREE_KEYS, [])],
                         ids=["three-keys-six-types", "every-key-odd-sizes",
                              "more-types-and-ranks", "no-keys",
                              "no-tensors"])
def test_ggml_file_round_trips_byte_for_byte(tmp_path, keys, tensors):
    lib = ggml_library()
    source = tmp_path / "ggml.gguf"
    write_with_ggml(lib, source, keys, tensors)
    direct = tmp_path / "direct.gguf"
    convert(source, "-o", direct)
    assert_same_file(source, direct)
    module = tmp_path / "via.vmpk"
    convert(source, "-o", module)
    back = tmp_path / "back.gguf"
    convert(module, "-o", back)
    assert_same_file(source, back)


def test_no_quantization_version_is_added(tmp_path):
    """The key issue 26 named: a file without general.quantization_version
    with quantized tensors keeps having none."""
    lib = ggml_library()
    source = tmp_path / "q.gguf"
    write_with_ggml(lib, source, THREE_KEYS, SIX_TYPES)
    out = tmp_path / "out.gguf"
    convert(source, "-o", out)
    assert b"general.quantization_version" not in out.read_bytes()


def test_version_2_becomes_version_3_and_nothing_else(tmp_path):
    """Version 2 has version 3's layout; the writer always writes 3, so the
    version word is the only difference (docs/interop.md)."""
    lib = ggml_library()
    source = tmp_path / "v3.gguf"
    write_with_ggml(lib, source, THREE_KEYS, SIX_TYPES)
    v2 = bytearray(source.read_bytes())
    assert v2[4:8] == b"\x03\0\0\0"
    v2[4] = 2
    old = tmp_path / "v2.gguf"
    old.write_bytes(v2)
    out = tmp_path / "out.gguf"
    convert(old, "-o", out)
    assert_same_file(source, out)
