# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""onnx_dequant.py MODEL.onnx OUT.safetensors f32|f16: checks that OUT (from
vmpack-convert MODEL --dequantize) holds, under each codes' name, every
MatMulNBits weight of MODEL as (code - zero point) * scale per block of
block_size along K ([N, K]; 4 bits, packed zero points, as make_onnx.py
builds them) and every DequantizeLinear over INT4 as (q - zero point) *
scale per index of its axis, computed here with numpy from the model's
initializers; and that the scales and zero points are gone. Prints one
line per weight."""
import json
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def nibbles(raw, count, signed):
    b = np.frombuffer(raw, np.uint8)
    v = np.empty(b.size * 2, np.int64)
    v[0::2] = b & 15
    v[1::2] = b >> 4
    v = v[:count]
    return (v ^ 8) - 8 if signed else v


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    header.pop("__metadata__", None)
    return {k: (v["dtype"], v["shape"],
                data[v["data_offsets"][0]:v["data_offsets"][1]])
            for k, v in header.items()}


def main(model_path, out_path, dtype):
    model = onnx.load(model_path)
    inits = {t.name: t for t in model.graph.initializer}
    out = read_safetensors(out_path)
    npdt = {"f32": np.float32, "f16": np.float16}[dtype]
    want = {}
    for node in model.graph.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a)
                 for a in node.attribute}
        if node.op_type == "MatMulNBits":
            K, N, block = attrs["K"], attrs["N"], attrs["block_size"]
            blocks = K // block
            q = nibbles(inits[node.input[1]].raw_data, N * K, False)
            s = numpy_helper.to_array(inits[node.input[2]]).astype(np.float32)
            z = nibbles(inits[node.input[3]].raw_data, N * blocks, False)
            q = q.reshape(N, K)
            z = np.repeat(z.reshape(N, blocks), block, axis=1)
            s = np.repeat(s.reshape(N, blocks), block, axis=1)
            want[node.input[1]] = ((q - z).astype(np.float32) * s, [N, K])
        elif node.op_type == "DequantizeLinear" and \
                inits[node.input[0]].data_type == 22:
            t = inits[node.input[0]]
            shape = list(t.dims)
            q = nibbles(t.raw_data, int(np.prod(shape)), True).reshape(shape)
            s = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)
            z = nibbles(inits[node.input[2]].raw_data, s.size, True)
            axis = attrs.get("axis", 1)
            view = [1] * len(shape)
            view[axis] = shape[axis]
            want[t.name] = ((q - z.reshape(view)).astype(np.float32) *
                            s.reshape(view), shape)
        else:
            continue
        for gone in node.input[1 + (node.op_type == "MatMulNBits"):]:
            if gone in out:
                sys.exit(f"{out_path}: {gone} is still there")
    for name, (values, shape) in want.items():
        got_dtype, got_shape, data = out[name]
        got = np.frombuffer(data, npdt).reshape(shape)
        if got_dtype != dtype.upper() or got_shape != shape or \
                not np.array_equal(got, values.astype(npdt)):
            sys.exit(f"{out_path}: {name} ({got_dtype} {got_shape}) is not "
                     f"(q - z) * s")
        print(f"{name} {shape}: {got.size} values = (q - z) * s")


if __name__ == "__main__":
    main(*sys.argv[1:])
