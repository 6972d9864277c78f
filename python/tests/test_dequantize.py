# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Segment.dequantize, Segment.quant_info and
Module.get_tensor(name, dequantize=True).

Two references: ggml itself (llama.cpp's libggml-base.so through ctypes,
via test/vmpack-convert/ggml_dequant.py: rows quantized by
ggml_quantize_chunk, a GGUF written by ggml's gguf writer, values from its
dequantize_row_*), and, where ggml is absent, Q4_0 and Q8_0 decoded here in
numpy from the block layout of ggml-common.h. float16 must be numpy's
rounding of the float32 values (to nearest even), bfloat16 the nearest-even
rounding of their bits."""

import ctypes
import subprocess

import numpy as np
import pytest

import vmpack
from conftest import BUILD_DIR


def bf16_bits(f32):
    """Nearest-even bfloat16 bits of float32 values (no NaNs here)."""
    bits = f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def check_rounded(segment, ref):
    finite = np.isfinite(ref)
    f16 = segment.dequantize("float16")
    assert f16.dtype == np.float16 and f16.shape == ref.shape
    with np.errstate(over="ignore"):
        expected16 = ref.astype(np.float16)
    assert np.array_equal(f16.view(np.uint16)[finite],
                          expected16.view(np.uint16)[finite])
    assert np.isnan(f16[np.isnan(ref)]).all()
    bf16 = segment.dequantize("bfloat16")
    assert bf16.dtype == np.uint16 and bf16.shape == ref.shape
    assert np.array_equal(bf16[finite], bf16_bits(ref)[finite])


def test_matches_ggml(ggml_file):
    script, lib, path = ggml_file
    k = script.PER_ROW * script.ROWS
    with vmpack.open(path) as m:
        seen = 0
        for segment in m.values():
            info = segment.quant_info
            if info is None:
                assert segment.name == "plain.f32"
                continue
            name = script.TYPES[info["ggml_type"]]
            assert info["scheme"].lower() == "ggml." + name.lower()
            assert info["shape"] == (script.ROWS, script.PER_ROW)
            assert info["element_count"] == k
            assert info["has_fast_kernel"] == (
                info["ggml_type"] in (2, 3, 6, 7, 8, 12, 14, 39))
            blocks = bytes(segment.raw)
            ref = np.empty(k, dtype=np.float32)
            getattr(lib, "dequantize_row_" + name)(
                ctypes.create_string_buffer(blocks, len(blocks)),
                ref.ctypes.data_as(ctypes.c_void_p), k)
            ref = ref.reshape(info["shape"])
            got = segment.dequantize()
            assert got.dtype == np.float32 and got.shape == ref.shape
            assert np.array_equal(got.view(np.uint32), ref.view(np.uint32)), \
                name
            assert np.array_equal(
                m.get_tensor(segment.name, dequantize=True).view(np.uint32),
                ref.view(np.uint32))
            check_rounded(segment, ref)
            seen += 1
        assert seen == len(script.TYPES)
        plain = m.get_tensor("plain.f32", dequantize=True)
        assert np.array_equal(plain, m["plain.f32"].numpy())


def numpy_q4_0(raw):
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 18)
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    qs = blocks[:, 2:].astype(np.int32)
    codes = np.concatenate([(qs & 15) - 8, (qs >> 4) - 8], axis=1)
    return (codes.astype(np.float32) * d).reshape(-1)


def numpy_q8_0(raw):
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 34)
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    qs = blocks[:, 2:].copy().view(np.int8).astype(np.float32)
    return (qs * d).reshape(-1)


@pytest.fixture(scope="module")
def sample_file(tmp_path_factory):
    gen = BUILD_DIR / "bin" / "vmpack-formats-testgen" if BUILD_DIR else None
    if gen is None or not gen.exists():
        pytest.skip(f"vmpack-formats-testgen is not built "
                    f"(VMPACK_BUILD_DIR={BUILD_DIR})")
    path = tmp_path_factory.mktemp("q") / "q.gguf"
    subprocess.run([str(gen), "gguf-q", str(path)], check=True)
    return path


def test_matches_numpy_decode_ranges_and_errors(sample_file):
    with vmpack.open(sample_file) as m:
        for name, decode in (("q103.Q4_0", numpy_q4_0),
                             ("q107.Q8_0", numpy_q8_0)):
            segment = m[name]
            ref = decode(bytes(segment.raw))
            info = segment.quant_info
            assert info["block_size"] == 32
            assert info["shape"] == (3, 64)
            got = segment.dequantize(np.float32)
            assert np.array_equal(got.reshape(-1).view(np.uint32),
                                  ref.view(np.uint32))
            check_rounded(segment, ref.reshape(info["shape"]))
            # A range inside blocks, into a caller's array, on 3 threads.
            part = segment.dequantize(first=5, count=100, threads=3)
            assert part.shape == (100,)
            assert np.array_equal(part, ref[5:105])
            out = np.zeros(100, dtype=np.float16)
            assert segment.dequantize("float16", 7, 100, out=out) is out
            assert np.array_equal(out, ref[7:107].astype(np.float16))
        segment = m["q103.Q4_0"]
        with pytest.raises(vmpack.OutOfRangeError):
            segment.dequantize(first=190, count=3)
        with pytest.raises(vmpack.BufferTooSmallError):
            segment.dequantize(count=10, out=np.empty(9, dtype=np.float32))
        with pytest.raises(vmpack.InvalidArgumentError):
            segment.dequantize(count=10, out=np.empty(10, dtype=np.float16))
        with pytest.raises(vmpack.UnsupportedError):
            segment.dequantize("float64")
