#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks vmpack-convert --dequant-split against ggml's reference
dequantization, computed independently with struct + numpy.

Usage: check_dequant.py BLOCKS.gguf SPLIT.safetensors

Parses the GGUF file (ggml-org/ggml docs/gguf.md, "File Structure"), and for
every Q4_0, Q4_1 and Q8_0 tensor NAME computes its values as
dequantize_row_q4_0/_q4_1/_q8_0 in ggml's src/ggml-quants.c do; then reads
NAME.q, NAME.d (and NAME.m) from the safetensors file (i4/ui4 stored as a
packed bit stream, least significant nibble first, docs/interop.md) and
requires q * d + m to equal those values exactly, element by element.
"""
import json
import struct
import sys

import numpy as np

BLOCK = {2: ("Q4_0", 18), 3: ("Q4_1", 20), 8: ("Q8_0", 34)}
SCALAR = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?",
          10: "Q", 11: "q", 12: "d"}


def read_gguf(blob):
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, blob, pos)
        pos += struct.calcsize("<" + fmt)
        return values

    def string():
        nonlocal pos
        (n,) = take("Q")
        pos += n
        return blob[pos - n:pos].decode("utf-8")

    def value(t):
        if t == 8:
            return string()
        if t == 9:
            et, n = take("IQ")
            return [value(et) for _ in range(n)]
        return take(SCALAR[t])[0]

    magic, version, n_tensors, n_kv = take("IIQQ")
    assert magic == 0x46554747 and version == 3
    kv = {}
    for _ in range(n_kv):
        key = string()
        (t,) = take("I")
        kv[key] = value(t)
    tensors = []
    for _ in range(n_tensors):
        name = string()
        (n_dims,) = take("I")
        dims = take("Q" * n_dims)
        t, offset = take("IQ")
        tensors.append((name, list(reversed(dims)), t, offset))
    align = kv.get("general.alignment", 32)
    data = (pos + align - 1) // align * align
    return tensors, data


def reference(t, blocks):
    """ggml's dequantize_row_* over an array of blocks -> float32 values."""
    d = blocks[:, 0:2].copy().view(np.float16).astype(np.float32)
    if t == 8:
        q = blocks[:, 2:34].copy().view(np.int8).astype(np.float32)
        return (q * d).reshape(-1)
    qs = blocks[:, 4:20] if t == 3 else blocks[:, 2:18]
    lo = (qs & 0x0F).astype(np.int32)
    hi = (qs >> 4).astype(np.int32)
    x = np.concatenate([lo, hi], axis=1)  # elements j and j + 16
    if t == 2:
        return ((x - 8).astype(np.float32) * d).reshape(-1)
    m = blocks[:, 2:4].copy().view(np.float16).astype(np.float32)
    return (x.astype(np.float32) * d + m).reshape(-1)


def main():
    gguf = open(sys.argv[1], "rb").read()
    st = open(sys.argv[2], "rb").read()
    n = int.from_bytes(st[:8], "little")
    header = json.loads(st[8:8 + n])
    meta = header.pop("__metadata__", {})
    buf = np.frombuffer(st, dtype=np.uint8, offset=8 + n)

    def tensor(name):
        begin, end = header[name]["data_offsets"]
        return header[name], buf[begin:end]

    tensors, data = read_gguf(gguf)
    checked = 0
    for name, shape, t, offset in tensors:
        if t not in BLOCK:
            continue
        _, size = BLOCK[t]
        count = int(np.prod(shape))
        raw = np.frombuffer(gguf, dtype=np.uint8, count=count // 32 * size,
                            offset=data + offset).reshape(-1, size)
        want = reference(t, raw)
        info, q = tensor(name + ".q")
        if t == 8:
            assert info["dtype"] == "I8" and info["shape"] == shape
            qv = q.view(np.int8).astype(np.int32)
        else:
            element = "i4" if t == 2 else "ui4"
            expect_type = "tensor<%sx%s>" % ("x".join(map(str, shape)), element)
            assert meta["vmpack.type." + name + ".q"] == expect_type
            qv = np.stack([q & 0x0F, q >> 4], axis=1).reshape(-1).astype(np.int32)
            if t == 2:
                qv = np.where(qv >= 8, qv - 16, qv)
        dinfo, d = tensor(name + ".d")
        assert dinfo["dtype"] == "F16"
        assert dinfo["shape"] == shape[:-1] + [shape[-1] // 32]
        dv = np.repeat(d.view(np.float16).astype(np.float32), 32)
        got = qv.astype(np.float32) * dv
        if t == 3:
            _, m = tensor(name + ".m")
            got = got + np.repeat(m.view(np.float16).astype(np.float32), 32)
        if not np.array_equal(got, want):
            bad = np.nonzero(got != want)[0][0]
            raise SystemExit("%s: element %d is %r, ggml gives %r" %
                             (name, bad, got[bad], want[bad]))
        checked += 1
    if not checked:
        raise SystemExit("no Q4_0, Q4_1 or Q8_0 tensors in " + sys.argv[1])
    print("dequant-split matches ggml's reference for %d tensors" % checked)


if __name__ == "__main__":
    main()
