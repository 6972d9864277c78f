#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ONNX interop: models built with the onnx package (Debian python3-onnx),
their weights read, replaced and written by vmpack-convert, and run in ONNX
Runtime (npm onnxruntime-node, through run_ort.cjs).

Usage: onnx_runtime.py VMPACK_CONVERT NODE_MODULES WORK_DIR

For each model (MatMul + Gather + Conv over float32; DequantizeLinear over
INT4 and UINT4, per axis and blocked; com.microsoft MatMulNBits):
  1. vmpack-convert M.onnx -o M.safetensors gives the model's bytes;
  2. M.safetensors --onnx-template=M.onnx gives a model ONNX Runtime runs to
     the original model's outputs, bit for bit;
  3. new weights (same types and shapes, from a safetensors file written
     here) through --onnx-template, with external data and with
     --onnx-inline, give the numpy reference's outputs exactly (weights and
     inputs are small integers and powers of two, so float32 is exact);
  4. the float model also goes through .gguf, .vmpk and .irpa... and back
     (.gguf and .vmpk keep types), and onnx.checker and numpy_helper read
     vmpack's outputs;
  5. a template whose tensor disagrees is refused, naming the tensor, and
     nothing is written.
Exits 77 (skip) when onnx, numpy, node or onnxruntime-node is missing.
"""
import copy
import json
import os
import struct
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"SKIP: {e} (Debian: python3-onnx, python3-numpy)")
    sys.exit(77)

convert, modules, work = (os.path.abspath(a) for a in sys.argv[1:4])
here = os.path.dirname(os.path.abspath(__file__))
if not os.path.isdir(os.path.join(modules, "onnxruntime-node")):
    print(f"SKIP: {modules}/onnxruntime-node not found "
          "(scripts/install-npm-deps.sh installs it)")
    sys.exit(77)
if subprocess.run(["node", "--version"], capture_output=True).returncode:
    print("SKIP: node not found")
    sys.exit(77)
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(5)
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(args, expect=0):
    p = subprocess.run([convert, "-q"] + args, capture_output=True, text=True)
    if p.returncode != expect:
        raise SystemExit(f"vmpack-convert {' '.join(args)}: exit "
                         f"{p.returncode}\n{p.stderr}")
    return p.stderr


def ort(model, inputs):
    spec = {k: {"type": "int64" if v.dtype == np.int64 else "float32",
                "dims": list(v.shape), "data": v.ravel().tolist()}
            for k, v in inputs.items()}
    path = os.path.join(work, "inputs.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    p = subprocess.run(["node", os.path.join(here, "run_ort.cjs"), modules,
                        model, path], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"ONNX Runtime on {model}:\n{p.stderr}")
    out = json.loads(p.stdout)
    return {k: np.array(v["data"], dtype=np.float64).reshape(v["dims"])
            for k, v in out.items()}


def pack4(values):
    """Two 4-bit elements per byte, the first in the low nibble (onnx.proto)."""
    v = np.asarray(values).ravel().astype(np.int64) & 0xF
    if v.size % 2:
        v = np.append(v, 0)
    return (v[0::2] | (v[1::2] << 4)).astype(np.uint8).tobytes()


def int4_tensor(name, values, signed):
    t = TensorProto()
    t.name = name
    t.dims.extend(values.shape)
    t.data_type = 22 if signed else 21  # INT4, UINT4 (onnx.proto)
    t.raw_data = pack4(values)
    return t


def write_safetensors(path, tensors):
    """tensors: name -> numpy array, or (bytes, mlir_type) for types
    safetensors has no dtype for (vmpack's vmpack.type record)."""
    dtypes = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64",
              np.dtype(np.uint8): "U8"}
    header, blobs, meta, at = {}, [], {}, 0
    for name, t in tensors.items():
        if isinstance(t, tuple):
            data, mlir = t
            meta["vmpack.type." + name] = mlir
            entry = {"dtype": "U8", "shape": [len(data)]}
        else:
            data = np.ascontiguousarray(t).tobytes()
            entry = {"dtype": dtypes[t.dtype], "shape": list(t.shape)}
        entry["data_offsets"] = [at, at + len(data)]
        header[name] = entry
        blobs.append(data)
        at += len(data)
    if meta:
        header["__metadata__"] = meta
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    return {k: data[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]]
            for k, v in header.items()}


def small(shape, lo=-3, hi=4):
    return rng.integers(lo, hi, size=shape).astype(np.float32)


# --- The float model: MatMul, Gather, Conv. ---------------------------------
def dense_model(W, E, K, B):
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"]),
         helper.make_node("Gather", ["E", "idx"], ["z"]),
         helper.make_node("Conv", ["img", "K", "B"], ["c"], pads=[1, 1, 1, 1])],
        "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("idx", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("img", TensorProto.FLOAT, [1, 2, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 4]),
         helper.make_tensor_value_info("c", TensorProto.FLOAT, [1, 3, 5, 5])],
        [numpy_helper.from_array(W, "W"), numpy_helper.from_array(E, "E"),
         numpy_helper.from_array(K, "K"), numpy_helper.from_array(B, "B")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def conv_ref(img, K, B):
    n, ci, h, w = img.shape
    co = K.shape[0]
    p = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, co, h, w), np.float64)
    for o in range(co):
        for i in range(h):
            for j in range(w):
                out[0, o, i, j] = (p[0, :, i:i + 3, j:j + 3] * K[o]).sum() + B[o]
    return out


def dense_ref(w, inputs):
    return {"y": inputs["x"].astype(np.float64) @ w["W"],
            "z": w["E"][inputs["idx"]].astype(np.float64),
            "c": conv_ref(inputs["img"], w["K"], w["B"])}


dense_w = {"W": small((3, 4)), "E": small((5, 4)), "K": small((3, 2, 3, 3)),
           "B": small((3,))}
dense_in = {"x": small((2, 3)), "idx": np.array([4, 1], np.int64),
            "img": small((1, 2, 5, 5))}


# --- DequantizeLinear over INT4 / UINT4, then MatMul. -----------------------
def dq_model(q1, s1, z1, q2, s2, z2):
    g = helper.make_graph(
        [helper.make_node("DequantizeLinear", ["Q1", "S1", "Z1"], ["W1"],
                          axis=1),
         helper.make_node("DequantizeLinear", ["Q2", "S2", "Z2"], ["W2"],
                          axis=0, block_size=2),
         helper.make_node("MatMul", ["x", "W1"], ["y1"]),
         helper.make_node("MatMul", ["x", "W2"], ["y2"])],
        "dq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["M", 4])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT, ["M", 6]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, ["M", 6])],
        [int4_tensor("Q1", q1, True), numpy_helper.from_array(s1, "S1"),
         int4_tensor("Z1", z1, True), int4_tensor("Q2", q2, False),
         numpy_helper.from_array(s2, "S2"), int4_tensor("Z2", z2, False)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    return m


def dq_weights():
    return {"Q1": rng.integers(-8, 8, (4, 6)), "S1": 2.0 ** rng.integers(
                -2, 2, (6,)).astype(np.float32),
            "Z1": rng.integers(-8, 8, (6,)),
            "Q2": rng.integers(0, 16, (4, 6)), "S2": 2.0 ** rng.integers(
                -2, 2, (2, 6)).astype(np.float32),
            "Z2": rng.integers(0, 16, (2, 6))}


def dq_ref(w, inputs):
    w1 = (w["Q1"] - w["Z1"][None, :]) * w["S1"][None, :].astype(np.float64)
    s2 = np.repeat(w["S2"], 2, axis=0).astype(np.float64)
    z2 = np.repeat(w["Z2"], 2, axis=0)
    w2 = (w["Q2"] - z2) * s2
    x = inputs["x"].astype(np.float64)
    return {"y1": x @ w1, "y2": x @ w2}


def dq_safetensors(w):
    out = {}
    for k in ["Q1", "Z1", "Q2", "Z2"]:
        mlir = ("i4" if k.endswith("1") else "ui4")
        shape = "x".join(map(str, w[k].shape))
        out[k] = (pack4(w[k]), f"tensor<{shape}x{mlir}>")
    out["S1"], out["S2"] = w["S1"], w["S2"]
    return out


dq_in = {"x": small((2, 4))}


# --- com.microsoft MatMulNBits: 4 bits, block size 16. ----------------------
NB_K, NB_N, NB_BLOCK = 32, 4, 16


def nbits_model(w):
    g = helper.make_graph(
        [helper.make_node("MatMulNBits", ["a", "B", "S", "Z"], ["y"],
                          domain="com.microsoft", K=NB_K, N=NB_N, bits=4,
                          block_size=NB_BLOCK)],
        "nbits",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["M", NB_K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", NB_N])],
        [numpy_helper.from_array(w["B"], "B"),
         numpy_helper.from_array(w["S"], "S"),
         numpy_helper.from_array(w["Z"], "Z")])
    m = helper.make_model(g, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m


def nbits_weights():
    blocks = NB_K // NB_BLOCK
    q = rng.integers(0, 16, (NB_N, NB_K))
    z = rng.integers(0, 16, (NB_N, blocks))
    s = (2.0 ** rng.integers(-2, 2, (NB_N, blocks))).astype(np.float32)
    B = np.frombuffer(pack4(q), np.uint8).reshape(NB_N, blocks,
                                                  NB_BLOCK // 2).copy()
    Z = np.frombuffer(pack4(z), np.uint8).copy()  # N * ceil(blocks / 2)
    return {"B": B, "S": s.ravel(), "Z": Z, "_q": q, "_z": z, "_s": s}


def nbits_ref(w, inputs):
    s = np.repeat(w["_s"], NB_BLOCK, axis=1).astype(np.float64)
    z = np.repeat(w["_z"], NB_BLOCK, axis=1)
    W = (w["_q"] - z) * s  # [N, K]
    return {"y": inputs["a"].astype(np.float64) @ W.T}


nbits_in = {"a": small((2, NB_K))}


def same(a, b):
    return set(a) == set(b) and all(
        a[k].shape == b[k].shape and np.array_equal(a[k], b[k]) for k in a)


def exercise(name, model, weights_st, ref, inputs, new_w, new_st, checker):
    d = os.path.join(work, name)
    for sub in ["", "rt", "new", "inl", "plain"]:
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    src = os.path.join(d, name + ".onnx")
    onnx.save(model, src)
    ext = os.path.join(d, name + "-ext.onnx")
    onnx.save(copy.deepcopy(model), ext, save_as_external_data=True,
              all_tensors_to_one_file=True, location=name + "-ext.bin",
              size_threshold=0)
    base = ort(src, inputs)
    check(all(np.array_equal(base[k], v) for k, v in ref.items()),
          f"{name}: ONNX Runtime on the onnx package's model = numpy")
    # 1. Reading, inline and external.
    st = os.path.join(d, name + ".safetensors")
    run([src, "-o", st])
    got = read_safetensors(st)
    check(got == weights_st, f"{name}: vmpack reads the initializers' bytes")
    st2 = os.path.join(d, name + "-ext.safetensors")
    run([ext, "-o", st2])
    check(read_safetensors(st2) == weights_st,
          f"{name}: the same from external data")
    # 2. The same weights through a template.
    rt = os.path.join(d, "rt", name + ".onnx")
    run([st, "--onnx-template=" + src, "-o", rt])
    check(same(ort(rt, inputs), base),
          f"{name}: template with its own weights = the original's outputs")
    # 3. New weights, external and inline.
    nst = os.path.join(d, name + "-new.safetensors")
    write_safetensors(nst, new_st)
    want = ref_new = None
    for sub, extra in [("new", []), ("inl", ["--onnx-inline"])]:
        out = os.path.join(d, sub, name + ".onnx")
        run([nst, "--onnx-template=" + ext, "-o", out] + extra)
        has_data = os.path.exists(out + ".data")
        check(has_data == (sub == "new"),
              f"{name}: {sub}: external data file {'written' if sub == 'new' else 'absent'}")
        got = ort(out, inputs)
        check(all(np.array_equal(got[k], v) for k, v in new_w.items()),
              f"{name}: {sub}: ONNX Runtime with vmpack's new weights = numpy")
        if checker:
            m = onnx.load(out)
            onnx.checker.check_model(m)
            check(True, f"{name}: {sub}: onnx.checker accepts vmpack's model")
    # 4. Without a template: a graph of initializers, read by numpy_helper.
    plain = os.path.join(d, "plain", name + ".onnx")
    run([src, "-o", plain])
    if checker:
        m = onnx.load(plain)
        onnx.checker.check_model(m)
        arrays = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
        orig = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        check(same(arrays, orig), f"{name}: numpy_helper reads vmpack's "
              "initializers-only model")
    return base


# --- A GPTQ or AWQ checkpoint into a template's MatMulNBits nodes. ----------
# The checkpoints are test/vmpack-convert/hf_quant.py's, packed with numpy
# as AutoGPTQ and AutoAWQ pack them; the template has one MatMulNBits per
# linear, its initializers named as onnxruntime's MatMulNBitsQuantizer
# names them (WEIGHT_Q4, WEIGHT_scales, WEIGHT_zero_points).

def nbits_template(path, linears, others, block, zero_points, scale_type):
    nodes, inits, inputs, outputs = [], [], [], []
    elem = TensorProto.FLOAT16 if scale_type == np.float16 else \
        TensorProto.FLOAT
    for i, (name, n, k) in enumerate(linears):
        blocks = k // block
        inits.append(numpy_helper.from_array(
            np.zeros((n, blocks, block // 2), np.uint8), name + "_Q4"))
        inits.append(numpy_helper.from_array(
            np.zeros(n * blocks, scale_type), name + "_scales"))
        ins = [f"a{i}", name + "_Q4", name + "_scales"]
        if zero_points:
            inits.append(numpy_helper.from_array(
                np.zeros(n * ((blocks + 1) // 2), np.uint8),
                name + "_zero_points"))
            ins.append(name + "_zero_points")
        nodes.append(helper.make_node(
            "MatMulNBits", ins, [f"y{i}"], domain="com.microsoft", K=k, N=n,
            bits=4, block_size=block))
        inputs.append(helper.make_tensor_value_info(f"a{i}", elem, ["M", k]))
        outputs.append(helper.make_tensor_value_info(f"y{i}", elem,
                                                     ["M", n]))
    for name, array in others.items():
        inits.append(numpy_helper.from_array(np.zeros_like(array), name))
    g = helper.make_graph(nodes, "gptq", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    onnx.save(m, path)


def unquantized(ckpt, hf_quant):
    """Zeros shaped and typed as the checkpoint's other tensors, which the
    template holds under the same names."""
    stored = hf_quant.read_safetensors(os.path.join(ckpt,
                                                    "model.safetensors"))
    return {k: np.zeros(shape, hf_quant.DTYPES[dtype])
            for k, (dtype, shape, _) in stored.items()
            if not k.endswith((".qweight", ".qzeros", ".scales", ".g_idx"))}


def gptq_into_matmulnbits():
    sys.path.insert(0, os.path.join(here, "..", "vmpack-convert"))
    import hf_quant
    d = os.path.join(work, "gptq-nbits")
    os.makedirs(d, exist_ok=True)
    linears = [(name + ".weight", n, k) for name, n, k in hf_quant.MODULES]
    cases = [("gptq", ["gptq", "4", "32", "asym", "v1"], 32, True),
             ("gptq-sym", ["gptq", "4", "32", "sym", "v2"], 16, False),
             ("awq", ["awq", "4", "32", "asym"], 32, True)]
    for label, args, block, zp in cases:
        ckpt = os.path.join(d, label)
        hf_quant.write([ckpt] + args)
        others = unquantized(ckpt, hf_quant)
        templ = os.path.join(d, label + "-template.onnx")
        nbits_template(templ, linears, others, block, zp, np.float32)
        out = os.path.join(d, label + ".onnx")
        err = run([ckpt, "--onnx-template=" + templ, "-o", out])
        ref = np.load(os.path.join(ckpt, "reference.npz"))
        ok = True
        for i, (name, n, k) in enumerate(linears):
            eye = ort(out, {f"a{j}": np.eye(kk, dtype=np.float32) if j == i
                            else np.zeros((1, kk), np.float32)
                            for j, (_, _, kk) in enumerate(linears)})
            ok = ok and np.array_equal(eye[f"y{i}"].T,
                                       ref[name].astype(np.float64))
        check(ok, f"{label}: GPTQ/AWQ weights through a MatMulNBits template "
                  f"(block {block}) run in ONNX Runtime to the checkpoint's "
                  "(q - z) * s exactly")
    # A block wider than the checkpoint's groups has no exact form.
    ckpt = os.path.join(d, "gptq")
    templ = os.path.join(d, "wide-template.onnx")
    others = unquantized(ckpt, hf_quant)
    nbits_template(templ, linears, others, 64, True, np.float32)
    bad = os.path.join(d, "wide.onnx")
    err = run([ckpt, "--onnx-template=" + templ, "-o", bad], expect=1)
    check("model.layers.0.self_attn.q_proj.weight" in err and
          "would span two groups" in err and not os.path.exists(bad),
          "gptq: a MatMulNBits block of 64 over groups of 32 is refused, "
          "naming the tensor, and nothing is written")
    # A symmetric node (no zero_points) refuses asymmetric zero points.
    templ = os.path.join(d, "nozp-template.onnx")
    nbits_template(templ, linears, others, 32, False, np.float32)
    err = run([ckpt, "--onnx-template=" + templ, "-o", bad], expect=1)
    check("the node has no zero_points" in err and not os.path.exists(bad),
          "gptq: asymmetric codes into a node without zero_points are "
          "refused")


def main():
    # Float model.
    new = {k: small(v.shape) for k, v in dense_w.items()}
    base = exercise("dense", dense_model(**dense_w),
                    {k: v.tobytes() for k, v in dense_w.items()},
                    dense_ref(dense_w, dense_in), dense_in,
                    dense_ref(new, dense_in), new, checker=True)
    d = os.path.join(work, "dense")
    src = os.path.join(d, "dense.onnx")
    for fmt in ["gguf", "vmpk"]:
        mid = os.path.join(d, "dense." + fmt)
        run([src, "-o", mid])
        out = os.path.join(d, "via-" + fmt + ".onnx")
        run([mid, "--onnx-template=" + src, "-o", out])
        check(same(ort(out, dense_in), base),
              f"dense: .onnx -> .{fmt} -> .onnx runs to the same outputs")
    run([src, "-o", os.path.join(d, "dense.irpa")])
    # 5. A disagreeing template.
    wrong = os.path.join(d, "wrong.safetensors")
    write_safetensors(wrong, {"W": small((4, 3))})
    bad = os.path.join(d, "bad.onnx")
    err = run([wrong, "--onnx-template=" + src, "-o", bad], expect=1)
    check("tensor 'W'" in err and not os.path.exists(bad) and
          not os.path.exists(bad + ".data"),
          "dense: a shape mismatch names the tensor and writes nothing")

    # DequantizeLinear over INT4 / UINT4.
    w = dq_weights()
    nw = dq_weights()
    st = {k: (v[0] if isinstance(v, tuple) else v.tobytes())
          for k, v in dq_safetensors(w).items()}
    exercise("dq", dq_model(w["Q1"], w["S1"], w["Z1"], w["Q2"], w["S2"],
                            w["Z2"]), st, dq_ref(w, dq_in), dq_in,
             dq_ref(nw, dq_in), dq_safetensors(nw), checker=False)

    # MatMulNBits.
    w = nbits_weights()
    nw = nbits_weights()
    exercise("nbits", nbits_model(w),
             {k: w[k].tobytes() for k in ["B", "S", "Z"]},
             nbits_ref(w, nbits_in), nbits_in, nbits_ref(nw, nbits_in),
             {k: nw[k] for k in ["B", "S", "Z"]}, checker=False)

    # --dequantize: the quantized weights as floats, against ONNX Runtime's
    # own dequantization (an identity input gives the weight itself).
    def floats(path, name):
        data = read_safetensors(path)[name]
        return np.frombuffer(data, np.float32)

    d = os.path.join(work, "nbits")
    deq = os.path.join(d, "nbits-f32.safetensors")
    run([os.path.join(d, "nbits.onnx"), "--dequantize", "-o", deq])
    eye = ort(os.path.join(d, "nbits.onnx"),
              {"a": np.eye(NB_K, dtype=np.float32)})["y"]  # W^T
    got = floats(deq, "B").reshape(NB_N, NB_K)
    check(np.array_equal(got, eye.T) and
          set(read_safetensors(deq)) == {"B"},
          "nbits: --dequantize gives B as ONNX Runtime's [N, K] weight, "
          "scales and zero points gone")
    d = os.path.join(work, "dq")
    deq = os.path.join(d, "dq-f32.safetensors")
    run([os.path.join(d, "dq.onnx"), "--dequantize", "-o", deq])
    eye = ort(os.path.join(d, "dq.onnx"), {"x": np.eye(4, dtype=np.float32)})
    check(np.array_equal(floats(deq, "Q1").reshape(4, 6), eye["y1"]) and
          np.array_equal(floats(deq, "Q2").reshape(4, 6), eye["y2"]) and
          set(read_safetensors(deq)) == {"Q1", "Q2"},
          "dq: --dequantize gives INT4 per-axis and UINT4 blocked weights "
          "as ONNX Runtime's DequantizeLinear")

    # MatMulNBits of 2 and 8 bits, without zero points (2^(bits-1)), with
    # float16 scales and zero points of the scales' type.
    for bits, zp, scale_type in [(2, "packed", np.float32),
                                 (8, None, np.float32),
                                 (4, "typed", np.float16)]:
        name = f"nbits{bits}-{zp}"
        blocks, k, n = NB_K // NB_BLOCK, NB_K, NB_N
        q = rng.integers(0, 2 ** bits, (n, k))
        z = rng.integers(0, 2 ** bits, (n, blocks))
        s_ = (2.0 ** rng.integers(-2, 2, (n, blocks))).astype(scale_type)
        per = 8 // bits

        def packb(v):
            v = np.asarray(v).ravel()
            v = np.append(v, np.zeros(-len(v) % per, np.int64))
            out = np.zeros(len(v) // per, np.uint8)
            for i in range(per):
                out |= (v[i::per] << (i * bits)).astype(np.uint8)
            return out

        inits = [numpy_helper.from_array(
                     packb(q).reshape(n, blocks, NB_BLOCK * bits // 8), "B"),
                 numpy_helper.from_array(s_.ravel(), "S")]
        inputs = ["a", "B", "S"]
        if zp == "packed":
            inits.append(numpy_helper.from_array(
                np.concatenate([packb(z[r]) for r in range(n)]), "Z"))
            inputs.append("Z")
        elif zp == "typed":
            inits.append(numpy_helper.from_array(
                z.astype(scale_type).ravel(), "Z"))
            inputs.append("Z")
        else:
            z = np.full((n, blocks), 2 ** (bits - 1))
        elem = TensorProto.FLOAT16 if scale_type == np.float16 else \
            TensorProto.FLOAT
        g = helper.make_graph(
            [helper.make_node("MatMulNBits", inputs, ["y"],
                              domain="com.microsoft", K=k, N=n, bits=bits,
                              block_size=NB_BLOCK)], name,
            [helper.make_tensor_value_info("a", elem, ["M", k])],
            [helper.make_tensor_value_info("y", elem, ["M", n])], inits)
        m = helper.make_model(g, opset_imports=[
            helper.make_opsetid("", 21),
            helper.make_opsetid("com.microsoft", 1)])
        m.ir_version = 10
        path = os.path.join(work, name + ".onnx")
        onnx.save(m, path)
        want = (q - np.repeat(z, NB_BLOCK, axis=1)) * np.repeat(
            s_.astype(np.float64), NB_BLOCK, axis=1)
        deq = os.path.join(work, name + ".safetensors")
        run([path, "--dequantize", "-o", deq])
        got = floats(deq, "B").reshape(n, k)
        if scale_type == np.float32:
            eye = ort(path, {"a": np.eye(k, dtype=np.float32)})["y"].T
        else:
            eye = want  # the float16 binding needs Float16Array; numpy only
        check(np.array_equal(got, eye) and np.array_equal(got, want),
              f"{name}: --dequantize = ONNX Runtime's weight = numpy")

    gptq_into_matmulnbits()

    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all ONNX Runtime checks passed")


main()
