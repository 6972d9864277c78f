# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A slow, obvious numpy reading of docs/packing.md, for the tests.

Written from the specification alone (not from lib/Pack): the `packed`,
`word` and `byte` encodings as bit patterns, sign-aware widening, and the
float formats' decoding to float32. The tests compare the C runtime (through
the Python package) against this.
"""

import numpy as np

# docs/packing.md section 4: exponent bits, mantissa bits, bias, and how
# the format spells NaN and infinity.
#   ieee: all-ones exponent is Inf (mantissa 0) or NaN
#   fn:   no Inf; NaN is all ones (exponent and mantissa)
#   fnuz: no Inf, no negative zero; NaN is the sign bit alone
#   none: no Inf, no NaN
#   e8m0: unsigned 2^(e - 127), 0xFF is NaN, no zero
FLOAT_FORMATS = {
    "f4E2M1FN": (2, 1, 1, "none"),
    "f6E2M3FN": (2, 3, 1, "none"),
    "f6E3M2FN": (3, 2, 3, "none"),
    "f8E5M2": (5, 2, 15, "ieee"),
    "f8E4M3": (4, 3, 7, "ieee"),
    "f8E4M3FN": (4, 3, 7, "fn"),
    "f8E5M2FNUZ": (5, 2, 16, "fnuz"),
    "f8E4M3FNUZ": (4, 3, 8, "fnuz"),
    "f8E4M3B11FNUZ": (4, 3, 11, "fnuz"),
    "f8E3M4": (3, 4, 3, "ieee"),
    "f8E8M0FNU": (8, 0, 127, "e8m0"),
    "bf16": (8, 7, 127, "ieee"),
    "f16": (5, 10, 15, "ieee"),
    "tf32": (8, 10, 127, "ieee"),
    "f32": (8, 23, 127, "ieee"),
}


def float_width(name):
    e, m, _, kind = FLOAT_FORMATS[name]
    return e + m + (0 if kind == "e8m0" else 1)


def _bits_to_int(bits):
    """Rows of little-endian bits (uint8 0/1) -> Python ints (any width)."""
    return [int("".join(str(b) for b in row[::-1]) or "0", 2) for row in bits]


def patterns(raw, encoding, width, count):
    """The `count` W-bit patterns stored in `raw`, as Python ints."""
    raw = np.frombuffer(bytes(raw), dtype=np.uint8)
    if encoding == "packed" or (encoding == "word" and width % 8 == 0):
        bits = np.unpackbits(raw, bitorder="little")
        assert bits.size >= count * width
        assert not bits[count * width:].any(), "padding bits must be zero"
        return _bits_to_int(bits[:count * width].reshape(count, width))
    if encoding == "byte":
        per = (width + 7) // 8
        assert raw.size == count * per
        values = [int.from_bytes(raw[k * per:(k + 1) * per].tobytes(), "little")
                  for k in range(count)]
        assert all(v >> width == 0 for v in values), "byte: zero-extended"
        return values
    assert encoding == "word"
    if width == 1:
        assert raw.size == count and set(raw.tolist()) <= {0, 1}
        return raw.astype(int).tolist()
    assert width <= 64
    # P = 8 * PowerOf2Ceil(ceil(min(2W, 64) / 8)) bits hold E = P // W.
    p_bytes = 1
    while p_bytes < (min(2 * width, 64) + 7) // 8:
        p_bytes *= 2
    per_word = p_bytes * 8 // width
    words = [int.from_bytes(raw[i:i + p_bytes].tobytes(), "little")
             for i in range(0, raw.size, p_bytes)]
    assert len(words) == -(-count // per_word)
    mask = (1 << width) - 1
    out = []
    for k in range(count):
        out.append((words[k // per_word] >> ((k % per_word) * width)) & mask)
    used = count % per_word
    if used:
        assert words[-1] >> (used * width) == 0, "word: unused bits are zero"
    return out


def widen(values, width, signed):
    """Sign- or zero-extension of W-bit patterns to Python ints."""
    if not signed:
        return list(values)
    half = 1 << (width - 1)
    return [v - (1 << width) if v & half else v for v in values]


def decode_float(values, name):
    """W-bit patterns of float format `name` -> float32 array."""
    e_bits, m_bits, bias, kind = FLOAT_FORMATS[name]
    out = np.empty(len(values), dtype=np.float64)
    e_max = (1 << e_bits) - 1
    for k, p in enumerate(values):
        if kind == "e8m0":
            out[k] = np.nan if p == 0xFF else 2.0 ** (p - 127)
            continue
        sign = -1.0 if p >> (e_bits + m_bits) & 1 else 1.0
        e = (p >> m_bits) & e_max
        m = p & ((1 << m_bits) - 1)
        if kind == "ieee" and e == e_max:
            out[k] = sign * np.inf if m == 0 else np.nan
            continue
        if kind == "fn" and e == e_max and m == (1 << m_bits) - 1:
            out[k] = np.nan
            continue
        if kind == "fnuz" and p == 1 << (e_bits + m_bits):
            out[k] = np.nan
            continue
        if e == 0:
            out[k] = sign * 2.0 ** (1 - bias) * (m / (1 << m_bits))
        else:
            out[k] = sign * 2.0 ** (e - bias) * (1 + m / (1 << m_bits))
    return out.astype(np.float32)


def same_floats(a, b):
    """Equal values, NaN where the other has NaN, and equal signs of zero."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    if a.shape != b.shape:
        return False
    nan = np.isnan(a)
    if not np.array_equal(nan, np.isnan(b)):
        return False
    return np.array_equal(a[~nan], b[~nan]) and \
        np.array_equal(np.signbit(a[~nan]), np.signbit(b[~nan]))
