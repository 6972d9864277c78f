#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""An independent safetensors reader: json + numpy only, no vmpack code.

Usage: read_safetensors.py [--any-metadata] FILE [IREE_DUMP_PARAMETERS]

FILE may be a Hugging Face shard index (NAME.safetensors.index.json): then
every shard it names is read and checked as above, and the index must map
every tensor to the shard that holds it, no tensor may be in two shards, and
metadata.total_size must be the sum of the tensors' byte lengths.

Reads FILE as the safetensors format describes it (8-byte little-endian
header length, JSON header, data buffer) and checks every tensor written by
vmpack-formats-testgen against the sample pattern: scalar k of tensor number
t is (k * 37 + t * 11) mod 2^W (0/1 for i1). Logical types recorded under
__metadata__["vmpack.type.NAME"] (docs/interop.md) are decoded from the dense
little-endian bit stream. With IREE_DUMP_PARAMETERS, also checks that IREE's
parser lists every tensor at the same file offsets.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np

NUMPY = {"BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "U16": np.uint16,
         "I16": np.int16, "U32": np.uint32, "I32": np.int32, "U64": np.uint64,
         "I64": np.int64, "F16": np.float16, "F32": np.float32,
         "F64": np.float64, "C64": np.complex64}
# Bits per scalar of the dtypes numpy has no type for.
OTHER_BITS = {"BF16": 16, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
              "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8, "F6_E2M3": 6, "F6_E3M2": 6,
              "F4": 4}
FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 19,
              "f80": 80, "f128": 128, "index": 64}


def scalar_bits(mlir):
    """(W, scalars per element) of an MLIR element type spelling."""
    m = re.fullmatch(r"complex<(.*)>", mlir)
    if m:
        return scalar_bits(m.group(1))[0], 2
    m = re.fullmatch(r"(?:i|si|ui)(\d+)", mlir)
    if m:
        return int(m.group(1)), 1
    if mlir in FLOAT_BITS:
        return FLOAT_BITS[mlir], 1
    m = re.fullmatch(r"f(\d)E\d+M\d+.*", mlir)
    if m:
        return int(m.group(1)), 1
    raise ValueError("unknown element type " + mlir)


def parse_tensor_type(text):
    m = re.fullmatch(r"tensor<((?:\d+x)*)(.+)>", text)
    if not m:
        raise ValueError("bad tensor type " + text)
    dims = [int(d) for d in m.group(1).split("x") if d]
    return dims, m.group(2)


def pattern(bits, count, t):
    k = np.arange(count, dtype=np.uint64)
    v = k * np.uint64(37) + np.uint64(t * 11)
    if bits == 1:
        return v & np.uint64(1)
    if bits >= 64:
        return v
    return v & np.uint64((1 << bits) - 1)


def unpack_bits(raw, bits, count):
    """Scalars of a dense little-endian bit stream, least significant first."""
    stream = np.unpackbits(raw, bitorder="little")
    out = np.zeros(count, dtype=np.uint64)
    for b in range(bits):
        out |= stream[b:count * bits:bits].astype(np.uint64) << np.uint64(b)
    return out


def check_file(path, any_metadata, iree):
    """Checks one safetensors file; returns {tensor: byte length}."""
    blob = open(path, "rb").read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = np.frombuffer(blob, dtype=np.uint8, offset=8 + n)
    meta = header.pop("__metadata__", {})
    # vmpack-formats-testgen writes format=pt; converted files may not
    # carry it (--any-metadata).
    assert any_metadata or meta.get("format") == "pt", meta
    checked = 0
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = data[begin:end]
        t = int(re.match(r"t(\d+)\.", name).group(1))
        logical = meta.get("vmpack.type." + name)
        dtype = info["dtype"]
        if logical:
            dims, element = parse_tensor_type(logical)
        else:
            dims, element = info["shape"], name.split(".", 1)[1]
        bits, per = scalar_bits(element)
        count = int(np.prod(dims, dtype=np.int64)) * per
        if dtype in NUMPY and not (logical and dtype == "U8" and
                                   element != "ui8"):
            # numpy reads the tensor in its own type; compare the bit
            # patterns of its values.
            values = raw.view(NUMPY[dtype]).reshape(info["shape"])
            assert list(values.shape) == dims, (name, values.shape, dims)
            width = values.dtype.itemsize * 8 // per
            words = raw.view({8: np.uint8, 16: np.uint16, 32: np.uint32,
                              64: np.uint64}[width]).astype(np.uint64)
            if dtype == "BOOL":
                assert values.dtype == np.bool_
                words = values.reshape(-1).astype(np.uint64)
        else:
            stored = OTHER_BITS.get(dtype, bits if dtype == "U8" else None)
            if dtype in ("BF16",) or (dtype.startswith("F8")):
                words = raw.view({8: np.uint8, 16: np.uint16}[stored]).astype(np.uint64)
            else:
                words = unpack_bits(raw, bits, count)
            assert (end - begin) * 8 >= count * bits, name
        expect = pattern(bits, count, t)
        if not np.array_equal(words, expect):
            raise SystemExit("%s: %s differs from the pattern: %s vs %s" %
                             (path, name, words[:8], expect[:8]))
        checked += 1
    print("numpy reader: %s: %d tensors match" % (path, checked))

    if iree:
        out = subprocess.run([iree, "--parameters=" + path],
                             capture_output=True, text=True, check=True).stdout
        listed = {}
        for line in out.splitlines():
            m = re.match(r"\s*(\d+) \|\s*(\d+) \|\s*(\d+) \| `(.*)`$", line)
            if m:
                listed[m.group(4)] = (int(m.group(1)), int(m.group(3)))
        for name, info in header.items():
            begin, end = info["data_offsets"]
            want = (8 + n + begin, end - begin)
            if listed.get(name) != want:
                raise SystemExit("IREE lists %s at %s, expected %s" %
                                 (name, listed.get(name), want))
        if len(listed) != len(header):
            raise SystemExit("IREE lists %d entries, expected %d" %
                             (len(listed), len(header)))
        print("iree-dump-parameters: %d entries at the same offsets" % len(listed))
    return {name: info["data_offsets"][1] - info["data_offsets"][0]
            for name, info in header.items()}


def main():
    args = sys.argv[1:]
    any_metadata = args[:1] == ["--any-metadata"]
    if any_metadata:
        args = args[1:]
    path = args[0]
    iree = args[1] if len(args) > 1 else None
    if not path.endswith(".index.json"):
        check_file(path, any_metadata, iree)
        return
    index = json.load(open(path, encoding="utf-8"))
    weight_map = index["weight_map"]
    folder = os.path.dirname(path)
    held = {}
    for shard in sorted(set(weight_map.values())):
        assert "/" not in shard and shard.endswith(".safetensors"), shard
        for name, length in check_file(os.path.join(folder, shard),
                                       any_metadata, iree).items():
            if name in held:
                raise SystemExit("%s is in %s and %s" %
                                 (name, held[name][0], shard))
            held[name] = (shard, length)
    if set(held) != set(weight_map):
        raise SystemExit("the index lists %d tensors, the shards hold %d" %
                         (len(weight_map), len(held)))
    for name, shard in weight_map.items():
        if held[name][0] != shard:
            raise SystemExit("the index puts %s in %s, it is in %s" %
                             (name, shard, held[name][0]))
    total = sum(length for _, length in held.values())
    if index["metadata"]["total_size"] != total:
        raise SystemExit("total_size is %s, the tensors take %d bytes" %
                         (index["metadata"]["total_size"], total))
    print("index: %d tensors in %d shards, total_size %d" %
          (len(held), len(set(weight_map.values())), total))


if __name__ == "__main__":
    main()
