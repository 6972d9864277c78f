# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Every element type in every encoding: the compiler's bytes read by the
numpy reference of docs/packing.md (reference.py), and the C runtime's
unpack (through vmpack) cross-checked against both the reference and the
values the test wrote."""

import random

import numpy as np
import pytest

import vmpack
from conftest import compile_text, needs_compiler
from reference import (FLOAT_FORMATS, decode_float, float_width, patterns,
                       same_floats, widen)

INT_TYPES = ["i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9", "i12",
             "i15", "i16", "i17", "i24", "i31", "i32", "i33", "i63", "i64",
             "si3", "si8", "si16", "ui1", "ui3", "ui4", "ui7", "ui8", "ui12",
             "ui16", "ui32", "ui64", "index"]
FLOAT_TYPES = list(FLOAT_FORMATS) + ["f64"]
COMPLEX_TYPES = ["complex<i5>", "complex<i8>", "complex<ui3>",
                 "complex<f16>", "complex<f32>", "complex<f64>",
                 "complex<bf16>", "complex<f8E4M3FN>"]
ENCODINGS = ["packed", "word", "byte"]


def scalar_info(scalar):
    """(width, signed, float format or None) of an MLIR scalar type."""
    if scalar == "index":
        return 64, True, None
    if scalar == "f64":
        return 64, True, "f64"
    if scalar in FLOAT_FORMATS:
        return float_width(scalar), True, scalar
    if scalar.startswith("ui"):
        return int(scalar[2:]), False, None
    if scalar.startswith("si"):
        return int(scalar[2:]), True, None
    return int(scalar[1:]), True, None


def nested(items, shape):
    """Row-major items as MLIR's nested [[...], ...] literal of `shape`."""
    if not shape:
        return items[0]
    step = len(items) // shape[0]
    return "[" + ", ".join(nested(items[k * step:(k + 1) * step], shape[1:])
                           for k in range(shape[0])) + "]"


class Case:
    """One constant: its type, shape and the bit patterns written."""

    def __init__(self, name, element, shape, values):
        self.name, self.element, self.shape = name, element, shape
        self.complex = element.startswith("complex<")
        self.scalar = element[8:-1] if self.complex else element
        self.width, self.signed, self.float = scalar_info(self.scalar)
        self.values = values  # W-bit patterns, two per complex element

    @property
    def count(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def literal(self):
        """The dense<...> attribute spelling these patterns."""
        if self.float:
            per = (self.width + 7) // 8
            data = b"".join(v.to_bytes(per, "little") for v in self.values)
            return f'dense<"0x{data.hex().upper()}">'
        if self.scalar in ("i1", "ui1") and not self.complex:
            items = ["true" if v else "false" for v in self.values]
        else:
            numbers = widen(self.values, self.width, self.signed)
            if self.complex:
                items = [f"({numbers[2 * k]}, {numbers[2 * k + 1]})"
                         for k in range(len(numbers) // 2)]
            else:
                items = [str(v) for v in numbers]
        return f"dense<{nested(items, self.shape)}>"

    def tensor_type(self):
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + \
            self.element + ">"


def make_cases():
    rng = random.Random(13)
    cases = []

    def patterns_for(width, n):
        edges = [0, 1, (1 << width) - 1, 1 << (width - 1),
                 (1 << (width - 1)) - 1]
        out = [edges[k % len(edges)] for k in range(min(n, len(edges)))]
        while len(out) < n:
            out.append(rng.getrandbits(width))
        return out

    for t in INT_TYPES:
        width = scalar_info(t)[0]
        shape = (5, 7) if t == "i4" else (37,)
        n = int(np.prod(shape))
        cases.append(Case(f"t.{t}", t, shape, patterns_for(width, n)))
    for t in FLOAT_TYPES:
        width = scalar_info(t)[0]
        n = 1 << width if width <= 8 else 600
        values = list(range(n)) if width <= 8 else patterns_for(width, n)
        shape = (n // 4, 4) if n % 4 == 0 else (n,)
        cases.append(Case(f"t.{t}", t, shape, values))
    for t in COMPLEX_TYPES:
        width = scalar_info(t[8:-1])[0]
        cases.append(Case(f"t.{t}", t, (11,), patterns_for(width, 22)))
    # Large enough that unpacking releases the GIL.
    cases.append(Case("big.i4", "i4", (300, 400),
                      [rng.getrandbits(4) for _ in range(120000)]))
    return cases


CASES = make_cases()


@pytest.fixture(scope="module", params=ENCODINGS)
def module(request, tmp_path_factory):
    body = "\n".join(
        f"  ml_program.global private @\"{c.name}\"({c.literal()} : "
        f"{c.tensor_type()}) : {c.tensor_type()}" for c in CASES)
    path = compile_text(tmp_path_factory.mktemp(request.param),
                        "module @types {\n" + body + "\n}\n",
                        encoding=request.param, alignment=16)
    with vmpack.open(path) as m:
        yield request.param, m


def scalar_shape(case):
    return case.shape + ((2,) if case.complex else ())


def expected_ints(case):
    return np.array(widen(case.values, case.width, case.signed),
                    dtype=object).reshape(scalar_shape(case))


@needs_compiler
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_stored_bytes_follow_the_spec(module, case):
    encoding, m = module
    s = m[case.name]
    assert s.mlir_type == case.tensor_type()
    assert s.element_type == case.element
    assert s.shape == case.shape and s.encoding == encoding
    assert s.nbytes == len(s.raw) and s.raw.readonly
    assert s.offset % 16 == 0
    assert patterns(s.raw, encoding, case.width, len(case.values)) == \
        case.values


@needs_compiler
@pytest.mark.parametrize("case", [c for c in CASES if not c.float],
                         ids=lambda c: c.name)
def test_integers(module, case):
    encoding, m = module
    s = m[case.name]
    expected = expected_ints(case)
    for dtype, bits in (("int8", 8), ("int16", 16), ("int32", 32)):
        if case.width > bits or (case.width == bits and not case.signed):
            with pytest.raises(vmpack.UnsupportedError, match="does not fit"):
                s.numpy(dtype)
            continue
        got = s.numpy(dtype)
        assert got.dtype == np.dtype(dtype) and got.shape == expected.shape
        assert got.tolist() == expected.tolist()
    # float32 holds integers of up to 24 bits of magnitude exactly (its
    # significand): those convert, wider ones are refused.
    magnitude = case.width - 1 if case.signed else case.width
    if magnitude <= 24 and not case.complex:
        got = s.numpy("float32")
        assert got.dtype == np.float32 and got.shape == expected.shape
        assert got.tolist() == expected.tolist()
    else:
        with pytest.raises(vmpack.UnsupportedError, match="float32"):
            s.numpy("float32")
    if case.width > 32 and case.width not in (64,):
        with pytest.raises(vmpack.UnsupportedError):
            s.numpy()
        return
    natural = s.numpy()
    if case.scalar == "i1" and not case.complex:
        # i1 is numpy.bool_; the integers (true is -1) on request above.
        assert natural.dtype == np.bool_
        assert natural.tolist() == (expected != 0).tolist()
        return
    assert natural.tolist() == expected.tolist()
    if case.width in (8, 16, 32, 64):
        # Zero-copy: a read-only view of the mapped file.
        assert not natural.flags.writeable
        assert np.shares_memory(natural, np.frombuffer(s.raw, np.uint8))
        assert natural.dtype.kind == ("i" if case.signed else "u")
        assert natural.dtype.itemsize * 8 == case.width
    else:
        assert natural.flags.writeable  # a fresh array
        assert natural.dtype.itemsize * 8 >= case.width


@needs_compiler
@pytest.mark.parametrize("case", [c for c in CASES if c.float],
                         ids=lambda c: c.name)
def test_floats(module, case):
    encoding, m = module
    s = m[case.name]
    if case.float == "f64":
        with pytest.raises(vmpack.UnsupportedError):
            s.numpy("float32")
        view = s.numpy()
        assert view.dtype == np.float64 or view.dtype == np.complex128
        assert view.view(np.uint64).ravel().tolist() == case.values
        assert np.shares_memory(view, np.frombuffer(s.raw, np.uint8))
        return
    reference = decode_float(case.values, case.float)
    got = s.numpy("float32")
    assert got.shape == scalar_shape(case)
    assert same_floats(got.ravel(), reference)
    for dtype in ("int8", "int16", "int32"):
        with pytest.raises(vmpack.UnsupportedError):
            s.numpy(dtype)
    natural = s.numpy()
    if case.complex:
        if natural.dtype.kind == "c":
            assert natural.shape == case.shape
            pairs = np.stack([natural.real, natural.imag], -1)
        else:  # complex<f16>: float16 pairs on a trailing axis
            assert natural.shape == case.shape + (2,)
            pairs = natural
        if case.float in ("f16", "f32"):  # zero-copy
            assert np.shares_memory(natural, np.frombuffer(s.raw, np.uint8))
            assert natural.dtype in (np.float16, np.complex64)
        else:
            assert natural.dtype == np.complex64
        assert same_floats(np.asarray(pairs, np.float32).ravel(), reference)
        return
    assert natural.shape == case.shape
    if case.float in ("f16", "f32"):
        # numpy's own float16/float32 read the stored bytes in place.
        assert natural.dtype == {"f16": np.float16, "f32": np.float32}[
            case.float]
        assert np.shares_memory(natural, np.frombuffer(s.raw, np.uint8))
        assert not natural.flags.writeable
    else:
        assert natural.dtype == np.float32 and natural.flags.writeable
    assert same_floats(np.asarray(natural, np.float32).ravel(), reference)


@needs_compiler
@pytest.mark.parametrize("case", [c for c in CASES if c.width < 32 or (
    c.width == 32 and (c.signed or c.float))],
                         ids=lambda c: c.name)
def test_element_ranges(module, case):
    """unpack(first, count) of sub-ranges starting and ending anywhere in a
    byte equals the same slice of the whole."""
    _, m = module
    s = m[case.name]
    dtype = "float32" if case.float else "int32"
    whole = s.unpack(dtype=dtype)
    n = s.size
    per = 2 if case.complex else 1
    for first, count in ((0, n), (1, n - 1), (n // 3, n // 3), (n - 1, 1),
                         (n, 0), (5, 3)):
        part = s.unpack(first, count, dtype)
        assert part.tobytes() == whole[first * per:(first + count) * per] \
            .tobytes()
    with pytest.raises(vmpack.OutOfRangeError, match="exceed"):
        s.unpack(n, 1, dtype)
    with pytest.raises(vmpack.OutOfRangeError):
        s.unpack(1, n, dtype)
