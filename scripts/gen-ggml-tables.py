#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes lib/Quant/GgmlTables.cpp: the code books and grids that ggml's
block formats define (IQ1_S/IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S,
IQ4_NL/IQ4_XS, and the E2M1 values of MXFP4/NVFP4).

Every entry is measured, not copied: the script builds blocks whose scale
makes the decoded value a known multiple of one grid entry and runs ggml's
own reference dequantizer (dequantize_row_* in llama.cpp's libggml-base.so)
on them. unittests/Quant/GgmlTablesTest.cpp repeats the measurement and
requires every entry to match.

usage: gen-ggml-tables.py [path/to/libggml-base.so] > lib/Quant/GgmlTables.cpp
"""

import ctypes
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_LIB = os.path.join(
    ROOT, "third_party/npm/node_modules/@node-llama-cpp/linux-x64/bins/"
    "linux-x64/libggml-base.so")


def f16(x):
    return struct.pack("<e", x)


class Ggml:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)

    def dequant(self, name, blocks, nelem):
        fn = getattr(self.lib, "dequantize_row_" + name)
        fn.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_float),
                       ctypes.c_int64]
        fn.restype = None
        out = (ctypes.c_float * nelem)()
        fn(bytes(blocks), out, nelem)
        return list(out)


def exact_int(v, scale):
    q = v / scale
    assert q == int(q), (v, scale)
    return int(q)


def iq2xxs(g):
    """block_iq2_xxs: d, then per 32 elements two u32: four 8-bit grid
    indices, then signs (7 bits x 4) and a 4-bit scale. Scale 0 and d = 1
    give db = 0.125, so element = grid byte / 8."""
    grid = []
    for b in range(256 // 32):
        blk = bytearray(f16(1.0))
        for ib in range(8):
            blk += bytes(32 * b + 4 * ib + l for l in range(4)) + bytes(4)
        y = g.dequant("iq2_xxs", blk, 256)
        for e in range(32):
            grid.append([exact_int(y[8 * e + j], 0.125) for j in range(8)])
    return grid


def iq2xs(g):
    """block_iq2_xs: d, qs[32] (9-bit index, 7 sign bits), scales[8]."""
    grid = []
    for b in range(512 // 32):
        blk = bytearray(f16(1.0))
        for e in range(32):
            blk += struct.pack("<H", 32 * b + e)
        blk += bytes(8)
        y = g.dequant("iq2_xs", blk, 256)
        for e in range(32):
            grid.append([exact_int(y[8 * e + j], 0.125) for j in range(8)])
    return grid


def iq2s(g):
    """block_iq2_s: d, qs[32] low index bytes, signs[32], qh[8] (2 high
    index bits per group of 8), scales[8]."""
    grid = []
    for b in range(1024 // 32):
        qs, qh = bytearray(), bytearray()
        for ib in range(8):
            h = 0
            for l in range(4):
                idx = 32 * b + 4 * ib + l
                qs.append(idx & 255)
                h |= (idx >> 8) << (2 * l)
            qh.append(h)
        blk = bytearray(f16(1.0)) + qs + bytes(32) + qh + bytes(8)
        y = g.dequant("iq2_s", blk, 256)
        for e in range(32):
            grid.append([exact_int(y[8 * e + j], 0.125) for j in range(8)])
    return grid


def iq3xxs(g):
    """block_iq3_xxs: d, qs[64] grid indices, then 8 u32 of signs and a
    4-bit scale. Scale 0 and d = 1 give db = 0.25."""
    grid = []
    for b in range(256 // 64):
        blk = bytearray(f16(1.0)) + bytes(64 * b + e for e in range(64))
        blk += bytes(32)
        y = g.dequant("iq3_xxs", blk, 256)
        for e in range(64):
            grid.append([exact_int(y[4 * e + j], 0.25) for j in range(4)])
    return grid


def iq3s(g):
    """block_iq3_s: d, qs[64] low index bytes, qh[8] (the ninth bits),
    signs[32], scales[4]. Scale 0 and d = 1 give db = 1."""
    grid = []
    for b in range(512 // 64):
        hi = 0xFF if b >= 4 else 0
        blk = bytearray(f16(1.0)) + bytes((64 * b + e) & 255 for e in range(64))
        blk += bytes([hi] * 8) + bytes(32) + bytes(4)
        y = g.dequant("iq3_s", blk, 256)
        for e in range(64):
            grid.append([exact_int(y[4 * e + j], 1.0) for j in range(4)])
    return grid


def iq1s(g):
    """block_iq1_s: d, qs[32] low index bytes, qh[8] u16 (3 high index bits
    per group of 8, a 3-bit scale, the sign of delta). Scale 0, d = 1 and
    delta = +0.125 give element = grid value + 0.125."""
    grid = []
    for b in range(2048 // 32):
        qs, qh = bytearray(), bytearray()
        for ib in range(8):
            h = 0
            for l in range(4):
                idx = 32 * b + 4 * ib + l
                qs.append(idx & 255)
                h |= (idx >> 8) << (3 * l)
            qh += struct.pack("<H", h)
        blk = bytearray(f16(1.0)) + qs + qh
        y = g.dequant("iq1_s", blk, 256)
        for e in range(32):
            row = []
            for j in range(8):
                v = y[8 * e + j] - 0.125
                assert v == int(v)
                row.append(int(v))
            grid.append(row)
    return grid


def codebook16(g, name, scale_bytes):
    """A 16-entry code book: one block with scale 1 and nibbles 0..15 in the
    low halves of its first 16 bytes."""
    blk = bytearray(scale_bytes) + bytes(range(16))
    y = g.dequant(name, blk, 32)
    return [exact_int(y[j], 1.0) for j in range(16)]


def u64_rows(grid, signed):
    out = []
    for row in grid:
        v = 0
        for j, x in enumerate(row):
            v |= ((x & 255) if signed else x) << (8 * j)
        out.append(v)
    return out


def u32_rows(grid):
    out = []
    for row in grid:
        v = 0
        for j, x in enumerate(row):
            v |= x << (8 * j)
        out.append(v)
    return out


def emit(name, ctype, values, per_line, fmt):
    lines = [f"const {ctype} {name}[{len(values)}] = {{"]
    for i in range(0, len(values), per_line):
        lines.append("    " + ", ".join(fmt(v) for v in values[i:i + per_line])
                     + ",")
    lines.append("};")
    return "\n".join(lines)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_LIB
    g = Ggml(path)
    h64 = lambda v: f"0x{v:016x}"
    h32 = lambda v: f"0x{v:08x}"
    dec = lambda v: str(v)
    parts = [
        emit("kIq2xxsGrid", "uint64_t", u64_rows(iq2xxs(g), False), 4, h64),
        emit("kIq2xsGrid", "uint64_t", u64_rows(iq2xs(g), False), 4, h64),
        emit("kIq2sGrid", "uint64_t", u64_rows(iq2s(g), False), 4, h64),
        emit("kIq3xxsGrid", "uint32_t", u32_rows(iq3xxs(g)), 8, h32),
        emit("kIq3sGrid", "uint32_t", u32_rows(iq3s(g)), 8, h32),
        emit("kIq1sGrid", "uint64_t", u64_rows(iq1s(g), True), 4, h64),
        emit("kIq4nlValues", "int8_t", codebook16(g, "iq4_nl", f16(1.0)), 16,
             dec),
        # E8M0 128 is 2^1; ggml's MXFP4 scale is half of it, 1.
        emit("kFp4Values", "int8_t", codebook16(g, "mxfp4", bytes([128])), 16,
             dec),
    ]
    print("""//===- GgmlTables.cpp - Code books and grids of ggml's block types --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Generated by scripts/gen-ggml-tables.py from measurements of ggml's own
// reference dequantizers (llama.cpp's libggml-base.so); do not edit.
// unittests/Quant/GgmlTablesTest.cpp checks every entry against ggml.
// The format defines these values in ggml-org/ggml src/ggml-common.h
// (iq2xxs_grid, iq2xs_grid, iq2s_grid, iq3xxs_grid, iq3s_grid, iq1s_grid,
// kvalues_iq4nl, kvalues_mxfp4), commit d99724f. Grid rows are little-endian:
// byte j of a row is element j of the group.
//
//===----------------------------------------------------------------------===//

// clang-format off

#include "vmpack/Quant/GgmlTables.h"

namespace vmpack::quant {
""")
    print("\n\n".join(parts))
    print("\n} // namespace vmpack::quant")


if __name__ == "__main__":
    main()
