# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""make_onnx.py KIND OUT.onnx: ONNX models for vmpack-dump's tests, built
with the onnx package (Debian python3-onnx), checked by onnx.checker
(except nbits, whose INT4 and opset 21 are newer than onnx 1.12).

  dense   MatMul + Gather over float32 initializers: W [4, 6] and E [5, 3]
          in raw_data, B [6] in float_data (a typed field), a Constant
          node's value C [2] (int64), metadata_props {"author": "vmpack
          test"}.
  external  the same model with W and E in external data: W in w.bin,
          E in e.bin (two files beside the model), B and C inline.
  nbits   com.microsoft MatMulNBits, 4 bits, block size 16, K 32, N 4:
          B uint8 [4, 2, 8], S float32 [8], Z packed uint8 [4]; and a
          DequantizeLinear over an INT4 initializer Q [4, 6] with per-axis
          scales S1 [6] (axis 1) and zero points Z1 [6].
  bignbits  nbits with K 4096, N 64, block size 32 and Q [256, 1024]:
          2^18 elements each, more than one writer's chunk of floats.
  badnbits  nbits with the MatMulNBits node's K 48, which B's shape
          (2 blocks of 16) disagrees with.
  escape  dense with W's external data at "../w.bin", outside the model's
          directory.

Every value is fixed (no randomness), so the tests can check bytes.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.external_data_helper import set_external_data


def pack4(values):
    """Two 4-bit elements per byte, the first in the low nibble (onnx.proto)."""
    v = np.asarray(values).ravel().astype(np.int64) & 0xF
    if v.size % 2:
        v = np.append(v, 0)
    return (v[0::2] | (v[1::2] << 4)).astype(np.uint8).tobytes()


def dense():
    w = np.arange(24, dtype=np.float32).reshape(4, 6)
    e = (np.arange(15, dtype=np.float32) - 7).reshape(5, 3)
    b = helper.make_tensor("B", TensorProto.FLOAT, [6],
                           [0.5, 1, 1.5, 2, 2.5, 3])  # float_data
    c = numpy_helper.from_array(np.array([7, -1], dtype=np.int64), "C")
    g = helper.make_graph(
        [helper.make_node("Constant", [], ["c"], value=c),
         helper.make_node("MatMul", ["x", "W"], ["xw"]),
         helper.make_node("Add", ["xw", "B"], ["y"]),
         helper.make_node("Gather", ["E", "ids"], ["z"])],
        "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["M", 4]),
         helper.make_tensor_value_info("ids", TensorProto.INT64, ["L"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", 6]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, ["L", 3])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(e, "E"), b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    helper.set_model_props(m, {"author": "vmpack test"})
    return m


def external():
    m = dense()
    for t in m.graph.initializer:
        if t.name == "W":
            set_external_data(t, "w.bin")
        elif t.name == "E":
            set_external_data(t, "e.bin")
    return m


def nbits(K_attr=None, K=32, N=4, block=16, rows=4, cols=6):
    K_attr = K if K_attr is None else K_attr
    blocks = K // block
    q = (np.arange(N * K) * 5 % 16).reshape(N, K)
    z = (np.arange(N * blocks) * 3 % 16).reshape(N, blocks)
    s = (2.0 ** (np.arange(N * blocks) % 3 - 1)).astype(np.float32)
    B = np.frombuffer(pack4(q), np.uint8).reshape(N, blocks, block // 2)
    Z = np.frombuffer(pack4(z), np.uint8).copy()
    qd = (np.arange(rows * cols) % 16 - 8).reshape(rows, cols)
    Q = TensorProto()
    Q.name = "Q"
    Q.dims.extend([rows, cols])
    Q.data_type = 22  # INT4 (onnx.proto; IR version 10, newer than onnx 1.12)
    Q.raw_data = pack4(qd)
    Z1 = TensorProto()
    Z1.name = "Z1"
    Z1.dims.extend([cols])
    Z1.data_type = 22
    Z1.raw_data = pack4(np.arange(cols) % 5 - 2)
    g = helper.make_graph(
        [helper.make_node("MatMulNBits", ["a", "B", "S", "Z"], ["y"],
                          domain="com.microsoft", K=K_attr, N=N, bits=4,
                          block_size=block),
         helper.make_node("DequantizeLinear", ["Q", "S1", "Z1"], ["W1"],
                          axis=1),
         helper.make_node("MatMul", ["x", "W1"], ["y1"])],
        "nbits",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["M", K]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["M", rows])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", N]),
         helper.make_tensor_value_info("y1", TensorProto.FLOAT, ["M", cols])],
        [numpy_helper.from_array(np.ascontiguousarray(B), "B"),
         numpy_helper.from_array(s, "S"), numpy_helper.from_array(Z, "Z"),
         Q, numpy_helper.from_array(
             (2.0 ** (np.arange(cols) % 4 - 2)).astype(np.float32), "S1"),
         Z1])
    m = helper.make_model(g, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m


def escape():
    m = dense()
    for t in m.graph.initializer:
        if t.name == "W":
            set_external_data(t, "../w.bin")
            t.ClearField("raw_data")
    return m


def main(kind, out):
    m = {"dense": dense, "external": external, "nbits": nbits,
         "bignbits": lambda: nbits(K=4096, N=64, block=32, rows=256,
                                   cols=1024),
         "badnbits": lambda: nbits(48), "escape": escape}[kind]()
    if kind == "external":
        # Writes each tensor's bytes to its location beside the model.
        import os
        from onnx.external_data_helper import write_external_data_tensors
        m = write_external_data_tensors(m, os.path.dirname(os.path.abspath(out)))
    onnx.save(m, out)
    # onnx 1.12 (Debian's) knows neither INT4 nor opset 21; the checker
    # would refuse escape's location itself. A path: external data is
    # found beside the model.
    if kind not in ("nbits", "bignbits", "badnbits", "escape"):
        onnx.checker.check_model(out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
