#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints docs/quant.md's test vectors: one block of each quantized ggml type
and some of its values as ggml's own dequantizer (llama.cpp's
libggml-base.so) gives them. Every byte of a block is (37 * k + 11) mod 256
for its offset k, except the listed scale bytes. Q8_1, which ggml does not
dequantize, is computed from its formula. unittests/Quant/DocVectorsTest.cpp
reads the lines back from docs/quant.md and decodes them with vmpack.

usage: gen-quant-vectors.py [path/to/libggml-base.so]
"""

import ctypes
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "third_party/npm/node_modules/@node-llama-cpp/"
                   "linux-x64/bins/linux-x64/libggml-base.so")

ONE, HALF, NAN = "003c", "0038", "017d"  # float16 1.0, 0.5, a signalling NaN
# name, ggml number, elements, bytes, {offset: hex bytes}
TYPES = [
    ("Q4_0", 2, 32, 18, {0: ONE}), ("Q4_1", 3, 32, 20, {0: ONE, 2: HALF}),
    ("Q5_0", 6, 32, 22, {0: ONE}), ("Q5_1", 7, 32, 24, {0: ONE, 2: HALF}),
    ("Q8_0", 8, 32, 34, {0: NAN}), ("Q8_1", 9, 32, 36, {0: HALF, 2: ONE}),
    ("Q2_K", 10, 256, 84, {80: ONE, 82: HALF}),
    ("Q3_K", 11, 256, 110, {108: ONE}),
    ("Q4_K", 12, 256, 144, {0: ONE, 2: HALF}),
    ("Q5_K", 13, 256, 176, {0: ONE, 2: HALF}),
    ("Q6_K", 14, 256, 210, {208: ONE}),
    ("Q8_K", 15, 256, 292, {0: "0000803f"}),
    ("IQ2_XXS", 16, 256, 66, {0: ONE}), ("IQ2_XS", 17, 256, 74, {0: ONE}),
    ("IQ3_XXS", 18, 256, 98, {0: ONE}), ("IQ1_S", 19, 256, 50, {0: ONE}),
    ("IQ4_NL", 20, 32, 18, {0: ONE}), ("IQ3_S", 21, 256, 110, {0: ONE}),
    ("IQ2_S", 22, 256, 82, {0: ONE}), ("IQ4_XS", 23, 256, 136, {0: ONE}),
    ("IQ1_M", 29, 256, 56, {}), ("TQ1_0", 34, 256, 54, {52: ONE}),
    ("TQ2_0", 35, 256, 66, {64: ONE}), ("MXFP4", 39, 32, 17, {0: "7f"}),
    ("NVFP4", 40, 64, 36, {0: "38304080"}), ("Q1_0", 41, 128, 18, {0: ONE}),
    ("Q2_0", 42, 64, 18, {0: ONE}),
]


def block(nbytes, fields):
    b = bytearray((37 * k + 11) % 256 for k in range(nbytes))
    for off, hexbytes in fields.items():
        raw = bytes.fromhex(hexbytes)
        b[off:off + len(raw)] = raw
    return bytes(b)


def main():
    lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else LIB)
    lib.ggml_get_type_traits.restype = ctypes.c_void_p
    for name, num, n, nbytes, fields in TYPES:
        b = block(nbytes, fields)
        if name == "Q8_1":
            d = struct.unpack("<e", b[0:2])[0]
            y = [struct.unpack("<f", struct.pack("<f", d * struct.unpack(
                "b", b[4 + j:5 + j])[0]))[0] for j in range(n)]
            bits = [struct.unpack("<I", struct.pack("<f", v))[0] for v in y]
        else:
            fn = getattr(lib, "dequantize_row_" + name.lower().replace(
                "_k", "_K"))
            out = (ctypes.c_uint32 * n)()
            fn(b, out, ctypes.c_int64(n))
            bits = list(out)
        idx = sorted(set([0, 1, 2, 3, 17, n // 2 + 5, n - 1]))
        vals = []
        for i in idx:
            f = struct.unpack("<f", struct.pack("<I", bits[i]))[0]
            text = f"0x{bits[i]:08x}" if f != f else repr(f)
            vals.append(f"y[{i}]={text}")
        fl = " ".join(f"{o}={h}" for o, h in sorted(fields.items()))
        print(f"vector {name} {fl} -> {' '.join(vals)}".replace("  ", " "))


if __name__ == "__main__":
    main()
