# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Hugging Face quantized checkpoints for vmpack-convert's tests, written by
numpy implementations of each project's packer (independent of vmpack's
C++; docs/quant.md section 8 cites the reference code):

  hf_quant.py write DIR gptq BITS GROUP sym|asym v1|v2|none [act|runs] [SEED]
  hf_quant.py write DIR awq 4 GROUP asym [SEED]
      (with "coarse" anywhere: scales of 6 significant bits, so that an
      asymmetric 4-bit weight has an exact Q4_1 form)
      a model directory: config.json with the quantization_config,
      model.safetensors with two quantized linears (q_proj, down_proj),
      a bias and an embedding that pass through, and reference.npz with
      every linear's values (q - z) * s in float32.
  hf_quant.py write DIR ct pack|naive BITS GROUP sym|asym [act] [bf16] [SEED]
      compressed-tensors (GROUP -1: strategy channel, 0: tensor), written
      as compressed_tensors/compressors/quantized_compressors/
      pack_quantized.py (pack_to_int32) and naive_quantized.py store it;
      reference (q - z) * s as quantization/lifecycle/forward.py
      (_dequantize) computes it, in float32.
  hf_quant.py write DIR ct float 8 GROUP sym [bf16|f32] [block] [SEED]
      compressed-tensors float-quantized FP8 E4M3 weights (random bytes but
      NaN), scales per channel (-1), tensor (0), group, or with "block"
      blocks of 64 x 128 (a partial last row of blocks); reference
      e4m3(q) * s in float32 (forward.py _dequantize), e4m3 decoded by the
      OCP FP8 formula.
  hf_quant.py write DIR mlx BITS GROUP [bf16] [SEED]
      MLX affine (mlx/ops.cpp pack_and_quantize, affine_dequantize):
      reference q * s + b in float32, the product rounded, then the sum.
  hf_quant.py write DIR bnb nf4|fp4 BLOCKSIZE [dq] [SEED]
      bitsandbytes 4-bit (dq: double-quantized absmax), written as
      bitsandbytes/backends/default/ops.py quantize_4bit and
      quantize_blockwise and bitsandbytes/functional.py quantize_4bit,
      QuantState.as_dict(packed=True) store it, with a third module of 65
      elements (a partial last block, a half-filled last byte); reference
      table[q] * absmax in float32 with the tables of csrc/kernels.cu, the
      absmax (nested_quant_map[qa] * nested_absmax) + nested_offset.
  hf_quant.py write DIR mlx mxfp4 [zero8] [SEED]
      MLX mxfp4 (mlx/ops.cpp fp_quantize: E2M1 codes packed as the affine
      4-bit ones, E8M0 scales, groups of 32), with E8M0 scales 0, 1 and 254
      in some groups; code 8 (-0.0) only with zero8; reference
      lut[q] * 2^(e - 127) in float32 (fp_dequantize).
  hf_quant.py floats DIR OUT.safetensors f32|f16|bf16
      OUT's linear weights equal the reference (f16/bf16: rounded once,
      to nearest even, from the float32), the other tensors DIR's bytes.
  hf_quant.py gguf DIR OUT.gguf LIB
      ggml (libggml-base.so through ctypes) reads OUT and decodes every
      linear with its own dequantize_row_*; the values equal the reference.
  hf_quant.py sweep VMPACK_CONVERT WORKDIR [LIB]
      all of the above for every checkpoint of SWEEP.
  hf_quant.py hostile DIR KIND
      damages the GPTQ checkpoint DIR in one way (see hostile()).
  hf_quant.py decode DIR
      DIR (written by vmpack-convert -o DIR/, with reference.npz copied
      in) unpacked by numpy as its config.json says equals the reference.
  hf_quant.py same DIR OUT.safetensors
      every tensor of OUT has the bytes of DIR's tensor of the same name.
  hf_quant.py planar DIR OUT.safetensors
      OUT (--quant=planar) holds each linear as NAME.q, NAME.d, NAME.m
      whose values, decoded by numpy from the packed bits by
      docs/quant.md's formulas, equal the reference bit for bit.
  hf_quant.py same-bytes A.safetensors B.safetensors
      the same tensor names and bytes (types and shapes aside).
"""

import ctypes
import json
import os
import struct
import sys

import numpy as np

MODULES = [("model.layers.0.self_attn.q_proj", 64, 256),
           ("model.layers.0.mlp.down_proj", 96, 512)]


# --- safetensors, by the format's README -------------------------------------

DTYPES = {"F32": np.float32, "F16": np.float16, "I32": np.int32,
          "BF16": np.uint16, "U8": np.uint8, "I8": np.int8, "U32": np.uint32,
          "I64": np.int64, "F8_E4M3": np.uint8, "F8_E8M0": np.uint8}

# The tensors a quantized linear is stored as, in every scheme.
PACKED = (".qweight", ".qzeros", ".scales", ".g_idx", ".weight_packed",
          ".weight_scale", ".weight_zero_point", ".weight_shape",
          ".weight_g_idx", ".biases", ".weight.absmax", ".weight.quant_map",
          ".weight.nested_absmax", ".weight.nested_quant_map",
          ".weight.quant_state.bitsandbytes__nf4",
          ".weight.quant_state.bitsandbytes__fp4")


def write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, (dtype, arr) in tensors.items():
        b = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape),
                        "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_safetensors(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        a, b = e["data_offsets"]
        out[name] = (e["dtype"], e["shape"], raw[8 + n + a:8 + n + b])
    return out


# --- GPTQ: AutoGPTQ's QuantLinear.pack (qlinear_cuda_old.py) -----------------

def gptq_pack_rows(intweight, bits):
    """intweight [K, N] uint32 -> [K * bits / 32, N]: 32 / bits codes of
    consecutive rows per word, the first in the low bits; 3-bit codes in
    words of 10, 10 + 1 split code, 10 (AutoGPTQ's loop)."""
    k, n = intweight.shape
    q = np.zeros((k * bits // 32, n), dtype=np.uint32)
    if bits in (2, 4, 8):
        per = 32 // bits
        for row in range(q.shape[0]):
            for j in range(per):
                q[row] |= intweight[row * per + j] << np.uint32(bits * j)
        return q
    assert bits == 3
    i = row = 0
    while row < q.shape[0]:
        for j in range(10):
            q[row] |= intweight[i + j] << np.uint32(3 * j)
        i += 10
        q[row] |= intweight[i] << np.uint32(30)
        row += 1
        q[row] |= (intweight[i] >> np.uint32(2)) & np.uint32(1)
        i += 1
        for j in range(10):
            q[row] |= intweight[i + j] << np.uint32(3 * j + 1)
        i += 10
        q[row] |= intweight[i] << np.uint32(31)
        row += 1
        q[row] |= (intweight[i] >> np.uint32(1)) & np.uint32(3)
        i += 1
        for j in range(10):
            q[row] |= intweight[i + j] << np.uint32(3 * j + 2)
        i += 10
        row += 1
    return q


def coarse(scales):
    """Scales of at most 6 significant bits: then -z * s (z < 32) is exact
    in float16, and an asymmetric 4-bit weight has an exact Q4_1 form."""
    m, e = np.frexp(scales.astype(np.float32))
    return np.ldexp(np.round(m * 64) / 64, e).astype(np.float16)


COARSE = False


def gptq_linear(rng, out_f, in_f, bits, group, sym, fmt, order):
    maxq = (1 << bits) - 1
    gsize = in_f if group == -1 else group
    groups = in_f // gsize
    if order == "act":
        # desc_act: the columns are quantized in a permuted order, groups
        # of gsize consecutive permuted columns (GPTQ's g_idx).
        perm = rng.permutation(in_f)
        g_idx = np.empty(in_f, dtype=np.int32)
        g_idx[perm] = np.arange(in_f) // gsize
    elif order == "runs":
        # Act-order whose groups are whole permuted runs of 32 columns.
        runs = rng.permutation(in_f // 32)
        g_idx = np.repeat(runs * 32 // gsize, 32).astype(np.int32)
    else:
        g_idx = (np.arange(in_f) // gsize).astype(np.int32)
    codes = rng.integers(0, maxq + 1, size=(out_f, in_f), dtype=np.uint32)
    if sym:
        zeros = np.full((groups, out_f), 1 << (bits - 1), dtype=np.uint32)
    else:  # v1 stores zero - 1: a zero of 0 has no v1 form
        low = 1 if fmt == "v1" else 0
        zeros = rng.integers(low, maxq + 1, size=(groups, out_f),
                             dtype=np.uint32)
    scales = (rng.random((groups, out_f)) * 0.02 + 1e-3).astype(np.float16)
    if COARSE:
        scales = coarse(scales)
    qweight = gptq_pack_rows(codes.T.copy(), bits)
    stored = zeros - (1 if fmt == "v1" else 0)
    qzeros = gptq_pack_rows(stored.T.copy(), bits).T.copy()
    ref = ((codes.astype(np.int32) - zeros.T[:, g_idx].astype(np.int32))
           .astype(np.float32) * scales.T[:, g_idx].astype(np.float32))
    parts = {"qweight": ("I32", qweight.view(np.int32)),
             "qzeros": ("I32", qzeros.view(np.int32)),
             "scales": ("F16", scales)}
    parts["g_idx"] = ("I32", g_idx)
    return parts, ref.astype(np.float32)


# --- AWQ: AutoAWQ's WQLinear_GEMM.from_linear (awq/modules/linear/gemm.py) ---

AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]


def awq_pack_cols(intweight):
    """[K, N] -> [K, N / 8]: word c holds columns 8c + AWQ_ORDER[i] in
    nibble i."""
    k, n = intweight.shape
    q = np.zeros((k, n // 8), dtype=np.uint32)
    for col in range(n // 8):
        for i in range(8):
            q[:, col] |= intweight[:, col * 8 + AWQ_ORDER[i]] << np.uint32(4 * i)
    return q


def awq_linear(rng, out_f, in_f, group):
    groups = in_f // group
    codes = rng.integers(0, 16, size=(in_f, out_f), dtype=np.uint32)
    zeros = rng.integers(0, 16, size=(groups, out_f), dtype=np.uint32)
    scales = (rng.random((groups, out_f)) * 0.02 + 1e-3).astype(np.float16)
    if COARSE:
        scales = coarse(scales)
    g = np.arange(in_f) // group
    ref = ((codes.astype(np.int32) - zeros[g].astype(np.int32))
           .astype(np.float32) * scales[g].astype(np.float32)).T
    return ({"qweight": ("I32", awq_pack_cols(codes).view(np.int32)),
             "qzeros": ("I32", awq_pack_cols(zeros).view(np.int32)),
             "scales": ("F16", scales)}, np.ascontiguousarray(ref))


# --- compressed-tensors (neuralmagic/compressed-tensors) ---------------------

def ct_pack_to_int32(value, bits, packed_dim=1):
    """pack_quantized.py pack_to_int32: int8 codes + 2^(bits-1) as uint8,
    rows padded to whole words of 32 // bits codes, code j of a word
    shifted left by bits * j and summed (here OR: the fields do not
    overlap); packed_dim 0 packs along the rows."""
    v = (value.astype(np.int32) + (1 << (bits - 1))).astype(np.uint32)
    if packed_dim == 0:
        v = v.T
    rows, cols = v.shape
    per = 32 // bits
    padded = -(-cols // per) * per
    v = np.pad(v, ((0, 0), (0, padded - cols)))
    v = v.reshape(rows, padded // per, per)
    shifts = (np.arange(per, dtype=np.uint32) * np.uint32(bits))
    packed = np.bitwise_or.reduce(v << shifts, axis=2).astype(np.uint32)
    if packed_dim == 0:
        packed = packed.T
    return np.ascontiguousarray(packed).view(np.int32)


def scales_of(rng, shape, dtype):
    s = (rng.random(shape) * 0.02 + 1e-3).astype(np.float32)
    if COARSE:
        s = coarse(s).astype(np.float32)
    if dtype == "BF16":
        bits = to_bf16(s)
        return bits, (bits.astype(np.uint32) << 16).view(np.float32)
    h = s.astype(np.float16)
    return h, h.astype(np.float32)


def e4m3(b):
    """OCP FP8 E4M3FN: sign, 4 exponent bits (bias 7), 3 mantissa bits; no
    infinities; S.1111.111 is NaN."""
    b = b.astype(np.int64)
    e, m = (b >> 3) & 15, b & 7
    v = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7))
    v = np.where((e == 15) & (m == 7), np.nan, v)
    return np.where(b & 0x80, -v, v).astype(np.float32)


def ct_float_linear(rng, out_f, in_f, group, block, sdtype):
    q = rng.integers(0, 256, size=(out_f, in_f)).astype(np.uint8)
    q[(q & 0x7F) == 0x7F] = 0x3C  # no NaN codes
    if block:
        br, bc = 64, 128
        shape = (-(-out_f // br), -(-in_f // bc))
    elif group == 0:
        shape = (1,)
    else:
        shape = (out_f, 1 if group == -1 else in_f // group)
    if sdtype == "F32":
        sc = (rng.random(shape) * 0.02 + 1e-3).astype(np.float32)
        s32 = sc
    else:
        sc, s32 = scales_of(rng, shape, sdtype)
    r, c = np.arange(out_f)[:, None], np.arange(in_f)[None, :]
    if block:
        s_full = s32[r // br, c // bc]
    elif group == 0:
        s_full = np.full((out_f, in_f), s32[0], np.float32)
    else:
        s_full = s32[r, c // (in_f if group == -1 else group)]
    ref = (e4m3(q) * s_full).astype(np.float32)
    return {"weight": ("F8_E4M3", q), "weight_scale": (sdtype, sc)}, ref


def ct_linear(rng, out_f, in_f, fmt, bits, group, sym, act, sdtype):
    """One compressed-tensors linear: random int codes in
    [-2^(bits-1), 2^(bits-1)), zero points in the same range (asymmetric),
    scales [out, groups] (group), [out, 1] (channel, GROUP -1) or [1]
    (tensor, GROUP 0)."""
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1))
    gsize = in_f if group <= 0 else group
    groups = in_f // gsize
    q = rng.integers(lo, hi, size=(out_f, in_f)).astype(np.int8)
    if group == 0:
        sc, s32 = scales_of(rng, (1,), sdtype)
        s_full = np.full((out_f, groups), s32[0], np.float32)
    else:
        sc, s32 = scales_of(rng, (out_f, groups), sdtype)
        s_full = s32
    zp = (np.zeros((out_f, groups), np.int8) if sym else
          rng.integers(lo, hi, size=(out_f, groups)).astype(np.int8))
    if act:
        perm = rng.permutation(in_f)
        g_idx = np.empty(in_f, dtype=np.int32)
        g_idx[perm] = np.arange(in_f) // gsize
    else:
        g_idx = (np.arange(in_f) // gsize).astype(np.int32)
    # forward.py _dequantize: (x_q - zero_point) * scale, here in float32
    # (exact: a 9-bit integer times an 11- or 8-bit significand).
    ref = ((q.astype(np.float32) - zp[:, g_idx].astype(np.float32)) *
           s_full[:, g_idx])
    parts = {}
    if fmt == "pack":
        parts["weight_packed"] = ("I32", ct_pack_to_int32(q, bits))
        parts["weight_shape"] = ("I64", np.array([out_f, in_f], np.int64))
    else:
        parts["weight"] = ("I8", q)
    parts["weight_scale"] = (sdtype, sc)
    if not sym:
        parts["weight_zero_point"] = (
            ("I32", ct_pack_to_int32(zp, bits, packed_dim=0)) if fmt == "pack"
            else ("I8", zp))
    if act:
        parts["weight_g_idx"] = ("I32", g_idx)
    return parts, ref.astype(np.float32)


# --- MLX affine (ml-explore/mlx mlx/ops.cpp) ----------------------------------

def mlx_pack(q, bits):
    """pack_and_quantize: widths dividing 32 as sums of q * 2^(bits * j)
    over 32 // bits codes; others bit by bit, 32 bits per word, low first
    (both: each row a little-endian bit stream)."""
    rows, cols = q.shape
    if 32 % bits == 0:
        per = 32 // bits
        shifts = np.arange(0, 32, bits, dtype=np.uint64)
        v = q.astype(np.uint64).reshape(rows, cols // per, per)
        return (v << shifts).sum(axis=2).astype(np.uint32)
    b = (q.astype(np.uint32)[:, :, None] >> np.arange(bits, dtype=np.uint32)) & 1
    b = b.reshape(rows, -1, 32).astype(np.uint64)
    return (b << np.arange(32, dtype=np.uint64)).sum(axis=2).astype(np.uint32)


def mlx_linear(rng, out_f, in_f, bits, group, sdtype):
    groups = in_f // group
    q = rng.integers(0, 1 << bits, size=(out_f, in_f), dtype=np.uint32)
    sc, s32 = scales_of(rng, (out_f, groups), sdtype)
    bi, b32 = scales_of(rng, (out_f, groups), sdtype)
    b32 = -b32 * np.float32(1 << (bits - 1))
    bi = b32.astype(np.float16) if sdtype == "F16" else to_bf16(b32)
    b32 = (bi.astype(np.float32) if sdtype == "F16" else
           (bi.astype(np.uint32) << 16).view(np.float32))
    g = np.arange(in_f) // group
    # affine_dequantize: multiply(w, scales), then add(.., biases).
    prod = q.astype(np.float32) * s32[:, g]
    ref = (prod + b32[:, g]).astype(np.float32)
    return ({"weight": ("U32", mlx_pack(q, bits)), "scales": (sdtype, sc),
             "biases": (sdtype, bi)}, ref)


# --- bitsandbytes 4-bit (bitsandbytes-foundation/bitsandbytes) --------------

# csrc/kernels.cu nf4_dequantization_lut; fp4_dequantization_lut times the
# sign bit (csrc/cpu_ops.cpp fp4_lut): code 8 is -0.0.
BNB_LUT = {
    "nf4": np.array([
        -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
        -0.28444138169288635, -0.18477343022823334, -0.09105003625154495,
        0.0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634,
        0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
        0.7229568362236023, 1.0], np.float32),
    "fp4": np.array([
        0.0, 0.005208333333, 0.66666667, 1.0, 0.33333333, 0.5, 0.16666667,
        0.25, -0.0, -0.005208333333, -0.66666667, -1.0, -0.33333333, -0.5,
        -0.16666667, -0.25], np.float32),
}


def bnb_4bit_type(name):
    """functional.py get_4bit_type: the quant_map a checkpoint stores."""
    if name == "nf4":
        data = BNB_LUT["nf4"].astype(np.float64).tolist()
    else:
        data = [0, 0.0625, 8.0, 12.0, 4.0, 6.0, 2.0, 3.0, -0, -0.0625, -8.0,
                -12.0, -4.0, -6.0, -2.0, -3.0]
    t = np.array(data, np.float32)
    t = (t / np.abs(t).max()).astype(np.float32)
    # The kernels' tables are the same float32 numbers (but for -0.0).
    assert (t == BNB_LUT[name]).all(), name
    return t


def bnb_dynamic_map():
    """functional.py create_dynamic_map(signed=True, 7, 8)."""
    data, non_sign, max_exp = [], 7, 7
    for i in range(max_exp):
        items = int(2 ** (i + non_sign - max_exp) + 1)
        b = np.linspace(0.1, 1, items, dtype=np.float32)
        means = (b[:-1] + b[1:]) / np.float32(2)
        data += (np.float32(10 ** (-(max_exp - 1) + i)) * means).tolist()
        data += (-np.float32(10 ** (-(max_exp - 1) + i)) * means).tolist()
    data += [0, 1.0]
    data += [0] * (256 - len(data))
    return np.array(sorted(data), np.float32)


def bnb_blocks(a, blocksize):
    """absmax of each block of a (flat float32) and a * (1 / absmax) clamped
    to [-1, 1] (ops.py quantize_4bit / quantize_blockwise); the last block
    may be partial."""
    n = a.size
    nb = -(-n // blocksize)
    pad = np.zeros(nb * blocksize, np.float32)
    pad[:n] = np.abs(a)
    absmax = pad.reshape(nb, blocksize).max(axis=1).astype(np.float32)
    am = np.maximum(absmax, np.float32(1e-38))
    inv = (np.float32(1.0) / am).astype(np.float32)
    blk = np.arange(n) // blocksize
    scaled = np.clip(a * inv[blk], -1, 1).astype(np.float32)
    return absmax, scaled


def bnb_quantize_4bit(a, blocksize, quant_type):
    code = bnb_4bit_type(quant_type)
    order = np.argsort(code, kind="stable")
    bounds = ((code[order[:-1]] + code[order[1:]]) / np.float32(2)).astype(
        np.float32)
    absmax, scaled = bnb_blocks(a, blocksize)
    if scaled.size % 2:
        scaled = np.concatenate([scaled, np.zeros(1, np.float32)])
    q = np.searchsorted(bounds, scaled, side="left")  # torch.bucketize
    if quant_type != "nf4":
        q = order[q]
    q8 = q.astype(np.uint8)
    return ((q8[::2] << 4) | q8[1::2]).reshape(-1, 1), absmax, code


def bnb_linear(rng, out_f, in_f, quant_type, blocksize, dq):
    w = rng.standard_normal((out_f, in_f)).astype(np.float16)
    a = w.astype(np.float32).reshape(-1)
    packed, absmax, code = bnb_quantize_4bit(a, blocksize, quant_type)
    state = {"quant_type": quant_type, "blocksize": blocksize,
             "dtype": "float16", "shape": [out_f, in_f]}
    parts = {"weight": ("U8", packed)}
    if dq:
        # functional.py quantize_4bit(compress_statistics=True): the absmax
        # less its mean, quantize_blockwise'd in blocks of 256.
        offset = np.float32(absmax.mean(dtype=np.float32))
        dmap = bnb_dynamic_map()
        bounds = ((dmap[:-1] + dmap[1:]) / np.float32(2)).astype(np.float32)
        absmax2, scaled2 = bnb_blocks((absmax - offset).astype(np.float32),
                                      256)
        qa = np.searchsorted(bounds, scaled2, side="left").astype(np.uint8)
        blk = np.arange(absmax.size) // 256
        # dequantize_blockwise, then += offset: two float32 roundings.
        prod = (dmap[qa] * absmax2[blk]).astype(np.float32)
        absmax_used = (prod + offset).astype(np.float32)
        parts["weight.absmax"] = ("U8", qa)
        parts["weight.quant_map"] = ("F32", code)
        parts["weight.nested_absmax"] = ("F32", absmax2)
        parts["weight.nested_quant_map"] = ("F32", dmap)
        state.update({"nested_blocksize": 256, "nested_dtype": "float32",
                      "nested_offset": float(offset)})
    else:
        absmax_used = absmax
        parts["weight.absmax"] = ("F32", absmax)
        parts["weight.quant_map"] = ("F32", code)
    js = np.frombuffer(json.dumps(state).encode(), np.uint8)
    parts["weight.quant_state.bitsandbytes__" + quant_type] = ("U8", js)
    # dequantize_4bit: code[q] * absmax in float32 (high nibble first).
    p = packed.reshape(-1)
    q = np.empty(p.size * 2, np.uint8)
    q[0::2], q[1::2] = p >> 4, p & 15
    n = out_f * in_f
    blk = np.arange(n) // blocksize
    ref = (BNB_LUT[quant_type][q[:n]] * absmax_used[blk]).astype(np.float32)
    return parts, ref.reshape(out_f, in_f)


def write(args):
    global COARSE
    COARSE = "coarse" in args
    args = [a for a in args if a != "coarse"]
    if args[1] in ("ct", "mlx", "bnb"):
        return write_ct_mlx(args)
    d, method = args[0], args[1]
    os.makedirs(d, exist_ok=True)
    bits, group = int(args[2]), int(args[3])
    sym = args[4] == "sym"
    if method == "gptq":
        fmt = args[5]
        order = args[6] if len(args) > 6 and args[6] in ("act", "runs") else ""
        seed = int(args[-1]) if args[-1].isdigit() else 1
    else:
        fmt, order = "", ""
        seed = int(args[5]) if len(args) > 5 else 1
    rng = np.random.default_rng(seed)
    tensors, refs = {}, {}
    tensors["model.embed_tokens.weight"] = (
        "F16", rng.standard_normal((16, 64)).astype(np.float16))
    for name, out_f, in_f in MODULES:
        if method == "gptq":
            parts, ref = gptq_linear(rng, out_f, in_f, bits, group, sym, fmt,
                                     order)
        else:
            parts, ref = awq_linear(rng, out_f, in_f, group)
        for k, v in parts.items():
            tensors[name + "." + k] = v
        tensors[name + ".bias"] = (
            "F16", rng.standard_normal(out_f).astype(np.float16))
        refs[name + ".weight"] = ref
    write_safetensors(os.path.join(d, "model.safetensors"), tensors)
    if method == "gptq":
        q = {"quant_method": "gptq", "bits": bits, "group_size": group,
             "desc_act": order != "", "sym": sym}
        if fmt != "none":
            q["checkpoint_format"] = "gptq" if fmt == "v1" else "gptq_v2"
    else:
        q = {"quant_method": "awq", "bits": 4, "group_size": group,
             "zero_point": True, "version": "gemm"}
    with open(os.path.join(d, "config.json"), "w") as f:
        # Not LlamaForCausalLM: a llama-family folder written as GGUF is a
        # llama.cpp model (docs/llama.md), which needs the whole config.
        json.dump({"architectures": ["TestQuantizedForCausalLM"],
                   "quantization_config": q}, f, indent=2)
    np.savez(os.path.join(d, "reference.npz"), **refs)


# mlx/ops.cpp fp_dequantize's lut for mxfp4.
E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0,
                 -1.5, -2.0, -3.0, -4.0, -6.0], np.float32)


def mlx_mxfp4_linear(rng, out_f, in_f, zero8):
    q = rng.integers(0, 16, size=(out_f, in_f), dtype=np.uint32)
    if not zero8:
        # fp_quantize's argmin picks code 0 for a zero: 8 never appears.
        q[q == 8] = 0
    e = rng.integers(110, 136, size=(out_f, in_f // 32)).astype(np.uint8)
    e[0, :3] = [0, 1, 254]  # subnormal scales and an overflow to infinity
    scale = np.where(e == 0, np.float32(2.0 ** -127),
                     (2.0 ** (e.astype(np.float64) - 127))).astype(np.float32)
    g = np.arange(in_f) // 32
    with np.errstate(over="ignore"):
        ref = (E2M1[q] * scale[:, g]).astype(np.float32)
    return {"weight": ("U32", mlx_pack(q, 4)), "scales": ("U8", e)}, ref


def write_ct_mlx(args):
    d, method = args[0], args[1]
    os.makedirs(d, exist_ok=True)
    sdtype = ("BF16" if "bf16" in args else "F32" if "f32" in args else
              "F16")
    act = "act" in args
    dq = "dq" in args
    block = "block" in args
    rest = [a for a in args[2:]
            if a not in ("bf16", "f32", "act", "dq", "block")]
    rng_seed = 1
    modules = MODULES
    if method == "bnb":
        qtype, bsize = rest[0], int(rest[1])
        if len(rest) > 2:
            rng_seed = int(rest[2])
        modules = MODULES + [("model.layers.0.mlp.odd_proj", 5, 13)]
    elif method == "ct":
        fmt, bits, group, sym = rest[0], int(rest[1]), int(rest[2]), \
            rest[3] == "sym"
        if len(rest) > 4:
            rng_seed = int(rest[4])
    elif rest[0] == "mxfp4":
        bits, group = 4, 32
        zero8 = "zero8" in rest
        rest = [a for a in rest if a != "zero8"]
        if len(rest) > 1:
            rng_seed = int(rest[1])
    else:
        bits, group = int(rest[0]), int(rest[1])
        if len(rest) > 2:
            rng_seed = int(rest[2])
    mxfp4 = method == "mlx" and rest[0] == "mxfp4"
    rng = np.random.default_rng(rng_seed)
    tensors, refs = {}, {}
    tensors["model.embed_tokens.weight"] = (
        "F16", rng.standard_normal((16, 64)).astype(np.float16))
    for name, out_f, in_f in modules:
        if method == "bnb":
            parts, ref = bnb_linear(rng, out_f, in_f, qtype, bsize, dq)
        elif method == "ct" and fmt == "float":
            parts, ref = ct_float_linear(rng, out_f, in_f, group, block,
                                         sdtype)
        elif method == "ct":
            parts, ref = ct_linear(rng, out_f, in_f, fmt, bits, group, sym,
                                   act, sdtype)
        elif mxfp4:
            parts, ref = mlx_mxfp4_linear(rng, out_f, in_f, zero8)
        else:
            parts, ref = mlx_linear(rng, out_f, in_f, bits, group, sdtype)
        for k, v in parts.items():
            tensors[name + "." + k] = v
        tensors[name + ".bias"] = (
            "F16", rng.standard_normal(out_f).astype(np.float16))
        refs[name + ".weight"] = ref
    write_safetensors(os.path.join(d, "model.safetensors"), tensors)
    cfg = {"architectures": ["TestQuantizedForCausalLM"]}
    if method == "bnb":
        # transformers' BitsAndBytesConfig.to_dict().
        cfg["quantization_config"] = {
            "quant_method": "bitsandbytes", "load_in_4bit": True,
            "load_in_8bit": False, "bnb_4bit_quant_type": qtype,
            "bnb_4bit_use_double_quant": dq,
            "bnb_4bit_compute_dtype": "float16",
            "bnb_4bit_quant_storage": "uint8", "llm_int8_threshold": 6.0}
    elif method == "ct":
        w = {"num_bits": bits, "type": "float" if fmt == "float" else "int",
             "symmetric": sym,
             "strategy": ("block" if block else "tensor" if group == 0 else
                          "channel" if group == -1 else "group"),
             "group_size": group if group > 0 else None,
             "actorder": "group" if act else None, "dynamic": False}
        if block:
            w["block_structure"] = [64, 128]
        cfg["quantization_config"] = {
            "quant_method": "compressed-tensors",
            "format": fmt + "-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"],
                                          "weights": w,
                                          "input_activations": None}},
            "ignore": ["lm_head"], "quantization_status": "compressed"}
    else:
        cfg["quantization"] = {"group_size": group, "bits": bits}
        if mxfp4:
            cfg["quantization"]["mode"] = "mxfp4"
        cfg["quantization_config"] = dict(cfg["quantization"])
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    np.savez(os.path.join(d, "reference.npz"), **refs)


def reference(d):
    with np.load(os.path.join(d, "reference.npz")) as z:
        return {k: z[k] for k in z.files}


def to_bf16(x):
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def floats(d, out, dtype):
    refs = reference(d)
    got = read_safetensors(out)
    src = read_safetensors(os.path.join(d, "model.safetensors"))
    want_dtype = {"f32": "F32", "f16": "F16", "bf16": "BF16"}[dtype]
    for name, ref in refs.items():
        dt, shape, raw = got[name]
        if dt != want_dtype or shape != list(ref.shape):
            sys.exit("%s: %s %s, expected %s %s" % (name, dt, shape,
                                                    want_dtype, list(ref.shape)))
        want = (ref.tobytes() if dtype == "f32" else
                ref.astype(np.float16).tobytes() if dtype == "f16" else
                to_bf16(ref).tobytes())
        if raw != want:
            a = np.frombuffer(raw, np.uint8)
            b = np.frombuffer(want, np.uint8)
            e = int(np.nonzero(a != b)[0][0])
            sys.exit("%s: byte %d differs from the reference" % (name, e))
    passed = 0
    for name, (dt, shape, raw) in src.items():
        if name in refs:
            continue
        if name.endswith(PACKED):
            if name in got:
                sys.exit("%s: a packed part is still in %s" % (name, out))
            continue
        if got.get(name) != (dt, shape, raw):
            sys.exit("%s: not passed through unchanged" % name)
        passed += 1
    print("%d linears equal the reference (%s), %d tensors passed through" %
          (len(refs), dtype, passed))


def same(d, out):
    src = read_safetensors(os.path.join(d, "model.safetensors"))
    got = read_safetensors(out)
    if set(src) != set(got):
        sys.exit("tensors differ: %s" % sorted(set(src) ^ set(got)))
    for name in src:
        if src[name] != got[name]:
            sys.exit("%s: differs" % name)
    print("%d tensors byte for byte" % len(src))


class GgufParams(ctypes.Structure):
    _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.c_void_p)]


def gguf(d, out, lib_path):
    lib = ctypes.CDLL(lib_path)
    p, sz, i64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64
    for name, res, argt in [
            ("gguf_init_from_file", p, [ctypes.c_char_p, GgufParams]),
            ("gguf_get_n_tensors", i64, [p]),
            ("gguf_get_tensor_name", ctypes.c_char_p, [p, i64]),
            ("gguf_get_tensor_type", ctypes.c_int, [p, i64]),
            ("gguf_get_tensor_offset", sz, [p, i64]),
            ("gguf_get_tensor_size", sz, [p, i64]),
            ("gguf_get_data_offset", sz, [p])]:
        f = getattr(lib, name)
        f.restype, f.argtypes = res, argt
    names = {2: "q4_0", 3: "q4_1", 6: "q5_0", 7: "q5_1", 8: "q8_0",
             39: "mxfp4"}
    g = lib.gguf_init_from_file(out.encode(), GgufParams(True, None))
    if not g:
        sys.exit("ggml cannot read " + out)
    raw = open(out, "rb").read()
    base = lib.gguf_get_data_offset(g)
    refs = reference(d)
    seen = {}
    for i in range(lib.gguf_get_n_tensors(g)):
        name = lib.gguf_get_tensor_name(g, i).decode()
        if name not in refs:
            continue
        t = lib.gguf_get_tensor_type(g, i)
        if t not in names:
            sys.exit("%s: ggml type %d" % (name, t))
        ref = refs[name]
        off = base + lib.gguf_get_tensor_offset(g, i)
        size = lib.gguf_get_tensor_size(g, i)
        blocks = ctypes.create_string_buffer(raw[off:off + size], size)
        k = ref.size
        vals = (ctypes.c_float * k)()
        f = getattr(lib, "dequantize_row_" + names[t])
        f.restype, f.argtypes = None, [p, p, i64]
        f(blocks, vals, k)
        got = np.frombuffer(bytes(vals), np.float32).reshape(ref.shape)
        if got.tobytes() != ref.tobytes():
            e = np.argwhere(got.view(np.uint32) != ref.view(np.uint32))[0]
            sys.exit("%s%s: ggml %r, reference %r" % (name, list(e),
                                                      got[tuple(e)],
                                                      ref[tuple(e)]))
        seen[name] = names[t].upper()
    if set(seen) != set(refs):
        sys.exit("missing from %s: %s" % (out, sorted(set(refs) - set(seen))))
    print("%d linears decode in ggml to the reference: %s" %
          (len(seen), ", ".join(sorted(set(seen.values())))))


def hostile(d, kind):
    """Damages the GPTQ checkpoint DIR (written by `write`) in one way."""
    path = os.path.join(d, "model.safetensors")
    t = {n: (dt, np.frombuffer(raw, DTYPES[dt]).reshape(shape))
         for n, (dt, shape, raw) in read_safetensors(path).items()}
    m = "model.layers.0.self_attn.q_proj."
    cfg_path = os.path.join(d, "config.json")
    cfg = json.load(open(cfg_path))
    q = cfg["quantization_config"]
    qc = cfg.get("quantization_config", {})
    w = (qc.get("config_groups", {}).get("group_0", {}).get("weights", {}))
    qs = m + "weight.quant_state.bitsandbytes__" + qc.get(
        "bnb_4bit_quant_type", "")

    def set_state(**kw):
        dt, a = t[qs]
        st = json.loads(bytes(a))
        st.update(kw)
        t[qs] = ("U8", np.frombuffer(json.dumps(st).encode(), np.uint8))

    if kind == "bnb-no-state":
        del t[qs]
    elif kind == "bnb-state-json":
        t[qs] = ("U8", np.frombuffer(b'{"quant_type": "nf4", ', np.uint8))
    elif kind == "bnb-state-key":
        set_state(compress_statistics=True)
    elif kind == "bnb-blocksize":
        set_state(blocksize=48)
    elif kind == "bnb-shape":
        set_state(shape=[64, 255])
    elif kind == "bnb-type":
        qc["bnb_4bit_quant_type"] = "fp4"
    elif kind == "bnb-dq":
        qc["bnb_4bit_use_double_quant"] = False
    elif kind == "bnb-absmax":
        dt, a = t[m + "weight.absmax"]
        t[m + "weight.absmax"] = (dt, a[:-1])
    elif kind == "bnb-quant-map":
        dt, a = t[m + "weight.quant_map"]
        a = a.copy()
        a[3] = np.float32(0.5)
        t[m + "weight.quant_map"] = (dt, a)
    elif kind == "bnb-nested":
        del t[m + "weight.nested_absmax"]
    elif kind == "bnb-orphan":
        t["model.extra.weight.absmax"] = t[m + "weight.absmax"]
    elif kind == "bnb-8bit":
        qc["load_in_4bit"], qc["load_in_8bit"] = False, True
    elif kind == "ct-no-scale":
        del t[m + "weight_scale"]
    elif kind == "ct-no-shape":
        del t[m + "weight_shape"]
    elif kind == "ct-shape":  # 8 more input features than packed
        t[m + "weight_shape"] = ("I64", np.array([64, 264], np.int64))
    elif kind == "ct-bits":
        w["num_bits"] = 8
    elif kind == "ct-zp-sym":  # a zero point stored for a symmetric scheme
        t[m + "weight_zero_point"] = ("I32", np.zeros((8, 8), np.int32))
    elif kind == "ct-zp-shape":
        dt, a = t[m + "weight_zero_point"]
        t[m + "weight_zero_point"] = (dt, a[:, :-1])
    elif kind == "ct-g-idx":
        dt, a = t[m + "weight_g_idx"]
        a = a.copy()
        a[3] = 99
        t[m + "weight_g_idx"] = (dt, a)
    elif kind == "ct-format":
        qc["format"] = "nvfp4-pack-quantized"
    elif kind == "ct-float":  # int codes labelled float-quantized
        qc["format"] = "float-quantized"
    elif kind == "ct-fp8-asym":
        w["symmetric"] = False
    elif kind == "ct-fp8-scales":  # a block scale short
        dt, a = t[m + "weight_scale"]
        t[m + "weight_scale"] = (dt, a[:, :-1])
    elif kind == "ct-block":
        w["strategy"] = "block"
    elif kind == "ct-orphan":
        t["model.extra.weight_zero_point"] = t[m + "weight_scale"]
    elif kind == "mlx-no-biases":
        del t[m + "biases"]
    elif kind == "mlx-group":
        cfg["quantization"]["group_size"] = 32
    elif kind == "mlx-mode":
        cfg["quantization"]["mode"] = "nvfp4"
    elif kind == "mlx-mxfp4-biases":  # an affine checkpoint labelled mxfp4
        cfg["quantization"]["mode"] = "mxfp4"
        cfg["quantization"]["group_size"] = 32
    elif kind == "mlx-mxfp4-bits":
        cfg["quantization"]["bits"] = 8
    elif kind == "mlx-mxfp4-nan":
        dt, a = t[m + "scales"]
        a = a.copy()
        a[1, 2] = 0xFF
        t[m + "scales"] = (dt, a)
    elif kind == "mlx-mxfp4-scales":
        dt, a = t[m + "scales"]
        t[m + "scales"] = ("F16", a.astype(np.float16))
    elif kind == "mlx-bits":
        cfg["quantization"]["bits"] = 7
    elif kind == "mlx-layer":  # one module quantized otherwise
        cfg["quantization"][m[:-1]] = {"group_size": 64, "bits": 8}
    elif kind == "mlx-off":
        cfg["quantization"][m[:-1]] = False
    elif kind == "mlx-biases-dtype":
        dt, a = t[m + "biases"]
        t[m + "biases"] = ("F32", a.astype(np.float32))
    elif kind == "mlx-tiny-bias":  # a bias float16 holds only rounded
        dt, a = t[m + "biases"]
        a = a.copy()
        a[0, 0] = 0x3381  # bf16 (1 + 2^-7) * 2^-24: no float16 holds it
        t[m + "biases"] = (dt, a)
    elif kind in ("bf16-scale-huge", "bf16-scale-tiny"):
        # Group 1, output 2 of BF16 scales (F16 ones made BF16 first)
        # 65536, past float16's largest 65504, or (1 + 2^-7) * 2^-24,
        # finer than float16's subnormals.
        name = m + ("scales" if m + "scales" in t else "weight_scale")
        dt, a = t[name]
        if dt == "F16":
            a = to_bf16(a.astype(np.float32))
        a = a.copy()
        a[(2, 1) if name.endswith("weight_scale") else (1, 2)] = (
            0x4780 if kind == "bf16-scale-huge" else 0x3381)
        t[name] = ("BF16", a)
    elif kind == "no-qzeros":
        del t[m + "qzeros"]
    elif kind == "no-scales":
        del t[m + "scales"]
    elif kind == "nan-scale":  # group 1, output 2: a float16 NaN
        dt, a = t[m + "scales"]
        a = a.copy()
        a.view(np.uint16)[1, 2] = 0x7E00
        t[m + "scales"] = (dt, a)
    elif kind == "scales-shape":
        dt, a = t[m + "scales"]
        t[m + "scales"] = (dt, a[:, :-8])
    elif kind == "groups":  # 3 groups for 256 inputs
        dt, a = t[m + "scales"]
        t[m + "scales"] = (dt, np.concatenate([a, a[:1]]))
        dt, a = t[m + "qzeros"]
        t[m + "qzeros"] = (dt, np.concatenate([a, a[:1]]))
        q["group_size"] = 96
    elif kind == "g-idx":
        dt, a = t[m + "g_idx"]
        a = a.copy()
        a[5] = 7
        t[m + "g_idx"] = (dt, a)
    elif kind == "format":
        q["checkpoint_format"] = "marlin"
    elif kind == "bits":
        q["bits"] = 8
    elif kind == "qweight-dtype":
        dt, a = t[m + "qweight"]
        t[m + "qweight"] = ("F32", a.view(np.float32))
    elif kind == "orphan":
        t["model.extra.qzeros"] = t[m + "qzeros"]
    elif kind == "zero16":  # v1 zero points stored as 15: zero 16
        dt, a = t[m + "qzeros"]
        t[m + "qzeros"] = (dt, np.full_like(a, -1))
    elif kind == "method":
        q["quant_method"] = "hqq"
    elif kind == "json":
        open(cfg_path, "w").write('{"quantization_config": {"bits": 4,')
        return
    else:
        sys.exit("unknown damage " + kind)
    write_safetensors(path, t)
    json.dump(cfg, open(cfg_path, "w"))


# (checkpoint, the ggml type it becomes, or the refusal's words)
SWEEP = [
    ("gptq 4 128 sym v1", "Q4_0"), ("gptq 4 32 sym v2", "Q4_0"),
    ("gptq 4 -1 sym v1", "Q4_0"), ("gptq 4 128 sym v2 runs", "Q4_0"),
    ("gptq 4 32 sym v1 runs", "Q4_0"), ("gptq 8 128 sym v1", "Q8_0"),
    ("gptq 8 32 sym v2", "Q8_0"), ("gptq 4 128 asym v1 coarse", "Q4_1"),
    ("gptq 4 64 asym v2 runs coarse", "Q4_1"),
    ("gptq 4 128 asym v2", "is not exact in float16"),
    ("gptq 4 128 sym v1 act", "are not contiguous runs of 32"),
    ("gptq 2 64 sym v1", "2-bit symmetric codes have no exact ggml type"),
    ("gptq 3 128 sym v1", "3-bit symmetric codes have no exact ggml type"),
    ("gptq 3 32 asym v2", "3-bit asymmetric codes have no exact ggml type"),
    ("gptq 2 32 asym v1 act", "2-bit asymmetric codes"),
    ("gptq 3 64 asym v1 act", "3-bit asymmetric codes"),
    ("gptq 8 64 asym v2", "8-bit asymmetric codes"),
    ("awq 4 128 asym", "is not exact in float16"),
    ("awq 4 32 asym coarse", "Q4_1"), ("awq 4 64 asym coarse 7", "Q4_1"),
    ("ct pack 4 128 sym", "Q4_0"), ("ct pack 4 32 sym bf16", "Q4_0"),
    ("ct pack 4 -1 asym coarse", "Q4_1"),
    ("ct pack 4 64 asym", "is not exact in float16"),
    ("ct pack 4 32 sym act", "are not contiguous runs of 32"),
    ("ct pack 8 -1 sym", "Q8_0"), ("ct pack 8 0 sym bf16", "Q8_0"),
    ("ct pack 2 32 sym", "2-bit symmetric codes have no exact ggml type"),
    ("ct pack 3 64 asym act", "3-bit asymmetric codes"),
    ("ct naive 8 -1 sym", "Q8_0"), ("ct naive 8 128 asym", "8-bit asymmetric"),
    ("ct float 8 -1 sym bf16", "FP8 (E4M3) codes"),
    ("ct float 8 0 sym f32", "FP8 (E4M3) codes"),
    ("ct float 8 128 sym", "FP8 (E4M3) codes"),
    ("ct float 8 0 sym bf16 block 3", "FP8 (E4M3) codes"),
    ("mlx 4 64", "Q4_1"), ("mlx 4 32 bf16", "Q4_1"), ("mlx 4 128 3", "Q4_1"),
    ("mlx 5 64", "Q5_1"), ("mlx 2 32", "2-bit affine codes"),
    ("mlx 3 64 bf16", "3-bit affine codes"), ("mlx 6 128", "6-bit affine"),
    ("mlx 8 32", "8-bit affine codes"),
    ("mlx mxfp4", "MXFP4"), ("mlx mxfp4 zero8", "MLX's code 8 is -0.0"),
    ("bnb nf4 64", "no ggml block type's values"),
    ("bnb nf4 64 dq", "NF4's 16 values"), ("bnb fp4 64", "FP4's 16 values"),
    ("bnb fp4 128 dq 4", "FP4's 16 values"), ("bnb nf4 32 dq 5", "NF4's 16 values"),
    ("bnb nf4 4096 dq 6", "NF4's 16 values"),
]


def is_type(expect):
    """A SWEEP expectation that names a ggml type (Q4_0, MXFP4), not the
    words of a refusal."""
    return " " not in expect and expect.isupper()


def planar_refusal(spec):
    """The words of --quant=planar's refusal of a SWEEP checkpoint, or None
    when it is written."""
    words = spec.split()
    if words[0] == "bnb":
        return "bitsandbytes codes index a table of values"
    if words[:2] == ["ct", "float"]:
        return "FP8 (E4M3) codes"
    if "act" in words:
        return "act-order groups (g_idx) are not aligned runs of 32"
    if "zero8" in words:
        return "MLX's code 8 is -0.0"
    return None


def planar_back(spec):
    """The scheme a SWEEP checkpoint's planar sets are written back as, and
    whether every tensor is expected back byte for byte ("same") or the
    values only ("decode": act-order runs of 32 become groups of 32, a
    compressed-tensors tensor scale one per row, naive int8 packed
    words); None when there is no such scheme (MLX mxfp4, a ggml planar
    form)."""
    words = spec.split()
    if words[0] == "gptq":
        scheme = "gptq_v2" if words[4] == "v2" else "gptq"
        return scheme, "decode" if "runs" in words else "same"
    if words[0] == "awq":
        return "awq", "same"
    if words[0] == "ct":
        same = words[1] == "pack" and words[3] != "0"
        return "compressed-tensors", "same" if same else "decode"
    if words[0] == "mlx" and "mxfp4" not in words:
        return "mlx", "same"
    return None


def scheme_expect(spec, scheme):
    """What --quant=SCHEME does with a SWEEP checkpoint: "decode" (written,
    numpy decodes it), "same" (its own scheme, kept as stored) or the
    words of the refusal."""
    words = spec.split()
    own = {"compressed-tensors": "ct", "mlx": "mlx"}[scheme]
    if words[0] == own:
        return "same"
    if words[0] == "bnb":
        return ("bitsandbytes codes index a table of values"
                if own == "ct" else "its codes are not integers times a scale")
    if own == "ct" and words[0] == "mlx":
        # Random biases are not -z * s for integer zero points z.
        return ("its codes are floats (E2M1)" if "mxfp4" in words else
                "the bias is not -z * s for an integer z")
    if own == "ct":
        return "decode"
    if words[:2] == ["ct", "float"]:
        return "its codes are not integers times a scale"
    if "act" in words or "runs" in words:
        return "MLX affine has no act-order"
    if "asym" in words and "coarse" not in words:
        return "is not exact in"
    return "decode"


def same_or_decode(d, o, how):
    """The model directory O written from the checkpoint D, as HOW says:
    "same", every tensor of D byte for byte; otherwise decoded by numpy
    (with D's reference.npz copied into O) to the reference."""
    if how == "same":
        same(d, o + "model.safetensors")
    else:
        with open(os.path.join(d, "reference.npz"), "rb") as f:
            open(o + "reference.npz", "wb").write(f.read())
        decode(o)


def sweep(convert, work, lib=None):
    """Every SWEEP checkpoint: dequantized to f32, f16 and bf16 equal to
    the reference; GGUF decoded by ggml (with LIB) equal to it, or refused
    with the expected words; --quant=planar decoded by numpy equal to it,
    or refused (planar_refusal); safetensors -> safetensors byte for
    byte."""
    import subprocess

    def run(*cmd):
        return subprocess.run(list(cmd), capture_output=True, text=True)

    for spec, expect in SWEEP:
        d = os.path.join(work, spec.replace(" ", "_"))
        write([d] + spec.split())
        for dt in ("f32", "f16", "bf16"):
            out = d + "." + dt + ".safetensors"
            r = run(convert, "-q", d, "--dequantize=" + dt, "-o", out)
            if r.returncode:
                sys.exit("%s --dequantize=%s: %s" % (spec, dt, r.stderr))
            floats(d, out, dt)
        out = d + ".gguf"
        r = run(convert, d, "-o", out)
        if is_type(expect):
            if r.returncode or ("exactly to " + expect) not in r.stdout:
                sys.exit("%s: expected %s: %s%s" % (spec, expect, r.stdout,
                                                    r.stderr))
            if lib:
                gguf(d, out, lib)
        elif r.returncode != 1 or expect not in r.stderr or \
                os.path.exists(out):
            sys.exit("%s: expected a refusal with '%s': %s" %
                     (spec, expect, r.stderr))
        # --quant=planar: exact, or refused for what it cannot hold.
        out = d + ".planar.safetensors"
        r = run(convert, "-q", d, "--quant=planar", "-o", out)
        why = planar_refusal(spec)
        if why is None:
            if r.returncode:
                sys.exit("%s --quant=planar: %s" % (spec, r.stderr))
            planar(d, out)
        elif r.returncode != 1 or why not in r.stderr or \
                os.path.exists(out):
            sys.exit("%s --quant=planar: expected a refusal with '%s': %s" %
                     (spec, why, r.stderr))
        # The planar sets read back and written in the checkpoint's own
        # scheme: every tensor byte for byte (or, where the scheme has
        # another form of the same values, decoded by numpy).
        back = planar_back(spec) if why is None else None
        if back:
            scheme, how = back
            o = d + ".planar." + scheme + "/"
            r = run(convert, "-q", out, "--quant=" + scheme, "-o", o)
            if r.returncode:
                sys.exit("%s planar -> %s: %s" % (spec, scheme, r.stderr))
            same_or_decode(d, o, how)
        # --quant=compressed-tensors and --quant=mlx: decoded by numpy as
        # the written config.json says, kept as stored, or refused.
        for scheme in ("compressed-tensors", "mlx"):
            out = d + "." + scheme + "/"
            r = run(convert, "-q", d, "--quant=" + scheme, "-o", out)
            how = scheme_expect(spec, scheme)
            if how in ("decode", "same"):
                if r.returncode:
                    sys.exit("%s --quant=%s: %s" % (spec, scheme, r.stderr))
                same_or_decode(d, out, how)
            elif r.returncode != 1 or how not in r.stderr or \
                    os.path.exists(out):
                sys.exit("%s --quant=%s: expected a refusal with '%s': %s" %
                         (spec, scheme, how, r.stderr))
        out = d + ".same.safetensors"
        r = run(convert, "-q", d, "-o", out)
        if r.returncode:
            sys.exit("%s: %s" % (spec, r.stderr))
        same(d, out)
        print("ok:", spec, "->", expect,
              "(ggml decodes it)" if lib and is_type(expect) else "")


def unpack_stream(words, bits, count):
    """Codes 0..count-1 of each column of `words` [W, N]: a little-endian
    bit stream down the column (AutoGPTQ's forward: shifts of 32 / bits
    codes per word, 3-bit codes split across words)."""
    w = words.view(np.uint32).astype(np.uint64)
    out = np.zeros((count, w.shape[1]), dtype=np.uint32)
    for e in range(count):
        bit = e * bits
        v = w[bit // 32] >> np.uint64(bit % 32)
        if bit % 32 + bits > 32:
            v |= w[bit // 32 + 1] << np.uint64(32 - bit % 32)
        out[e] = (v & np.uint64((1 << bits) - 1)).astype(np.uint32)
    return out


def decode(d):
    """Reads DIR as its config.json says, unpacking with numpy alone, and
    requires the values to equal DIR/reference.npz."""
    cfg = json.load(open(os.path.join(d, "config.json")))
    q = cfg["quantization_config"]
    t = read_safetensors(os.path.join(d, "model.safetensors"))
    refs = reference(d)

    def arr(name):
        dt, shape, raw = t[name]
        a = np.frombuffer(raw, DTYPES[dt]).reshape(shape)
        return ((a.astype(np.uint32) << 16).view(np.float32) if dt == "BF16"
                else a)

    if q.get("quant_method") == "compressed-tensors":
        return decode_ct(q, arr, refs, set(t))
    if "quantization" in cfg:
        return decode_mlx(cfg["quantization"], q, arr, refs)
    for name, ref in refs.items():
        m = name[:-len(".weight")]
        qw, qz, sc = arr(m + ".qweight"), arr(m + ".qzeros"), arr(m + ".scales")
        out_f, in_f = ref.shape
        gsize = in_f // sc.shape[0]
        if q["quant_method"] == "awq":
            w = qw.view(np.uint32)
            codes = np.zeros((in_f, out_f), dtype=np.uint32)
            zeros = np.zeros((sc.shape[0], out_f), dtype=np.uint32)
            for i in range(8):
                codes[:, AWQ_ORDER[i]::8] = (w >> np.uint32(4 * i)) & 15
                zeros[:, AWQ_ORDER[i]::8] = (qz.view(np.uint32) >>
                                             np.uint32(4 * i)) & 15
            g_idx = np.arange(in_f) // gsize
            codes = codes.T
        else:
            bits = q["bits"]
            codes = unpack_stream(qw, bits, in_f).T
            zeros = unpack_stream(qz.T.copy(), bits, out_f).T
            if q.get("checkpoint_format", "gptq") == "gptq":
                zeros = zeros + 1
            g_idx = arr(m + ".g_idx")
        vals = ((codes.astype(np.int32) - zeros.T[:, g_idx].astype(np.int32))
                .astype(np.float32) * sc.T[:, g_idx].astype(np.float32))
        if vals.tobytes() != ref.tobytes():
            sys.exit("%s: numpy's decode of %s differs from the reference" %
                     (name, d))
    print("%d linears of %s decode in numpy to the reference" %
          (len(refs), q["quant_method"] + "/" +
           q.get("checkpoint_format", q.get("version", ""))))


def read_typed(path):
    """OUT's tensors as numpy arrays of their logical element types: a
    sub-byte tensor is a U8 bit stream (docs/packing.md `packed`, low bits
    first) with its MLIR type in the vmpack.type.NAME metadata entry
    (docs/interop.md); returns (arrays, element type names, metadata)."""
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    arrays, types = {}, {}
    for name, e in header.items():
        a, b = e["data_offsets"]
        data = raw[8 + n + a:8 + n + b]
        mlir = meta.get("vmpack.type." + name)
        if e["dtype"] == "F4":
            # safetensors' own F4 (E2M1), two codes per byte, low first.
            mlir = "tensor<%sxf4E2M1FN>" % "x".join(map(str, e["shape"]))
        if mlir is None:
            dt = e["dtype"]
            arr = np.frombuffer(data, DTYPES[dt]).reshape(e["shape"])
            if dt == "BF16":
                arr = (arr.astype(np.uint32) << 16).view(np.float32)
            arrays[name] = arr
            types[name] = {"U8": "ui8", "I8": "si8"}.get(dt, dt)
            continue
        body = mlir[len("tensor<"):-1].split("x")
        shape, elem = [int(x) for x in body[:-1]], body[-1]
        # f4E2M1FN and f8E8M0FNU: the codes themselves.
        bits = int(elem[1]) if elem[0] == "f" else int(elem.lstrip("siu"))
        count = int(np.prod(shape))
        stream = np.unpackbits(np.frombuffer(data, np.uint8),
                               bitorder="little")[:count * bits]
        v = (stream.reshape(count, bits).astype(np.int64) <<
             np.arange(bits)).sum(axis=1)
        if elem.startswith("si"):
            v = np.where(v >= 1 << (bits - 1), v - (1 << bits), v)
        arrays[name] = v.reshape(shape)
        types[name] = elem
    return arrays, types, meta


def planar(d, out):
    """OUT (vmpack-convert DIR --quant=planar -o OUT.safetensors) holds each
    linear of DIR as NAME.q, NAME.d and NAME.m, recorded as a group planar
    set, whose values by docs/quant.md's formulas, computed here in numpy
    float32, equal the reference bit for bit; the other tensors are DIR's."""
    refs = reference(d)
    arrays, types, meta = read_typed(out)
    src = read_safetensors(os.path.join(d, "model.safetensors"))
    got = read_safetensors(out)
    forms = set()
    for name, ref in refs.items():
        if meta.get("vmpack.planar." + name) == "MXFP4":
            # ggml MXFP4's planar form (docs/quant.md section 4): E2M1
            # codes, E8M0 exponents, MLX's 2^(e - 127) (2^-127 for e = 0).
            q, e = arrays[name + ".q"], arrays[name + ".d"]
            scale = np.where(e == 0, np.float32(2.0 ** -127),
                             2.0 ** (e.astype(np.float64) - 127))
            g = np.arange(ref.shape[1]) // 32
            with np.errstate(over="ignore"):
                vals = (E2M1[q] * scale.astype(np.float32)[:, g])
            forms.add("MXFP4")
            if vals.astype(np.float32).tobytes() != ref.tobytes():
                sys.exit("%s: MXFP4 planar values differ" % name)
            continue
        if meta.get("vmpack.planar." + name) != "group":
            sys.exit("%s: no group planar record" % name)
        q, sc = arrays[name + ".q"], arrays[name + ".d"].astype(np.float32)
        if q.shape != ref.shape or ref.shape[1] % sc.shape[1]:
            sys.exit("%s: codes %s, scales %s for %s" % (
                name, q.shape, sc.shape, ref.shape))
        g = np.arange(ref.shape[1]) // (ref.shape[1] // sc.shape[1])
        qf = q.astype(np.float32)
        m = arrays.get(name + ".m")
        if m is None:
            if not types[name + ".q"].startswith("si"):
                sys.exit("%s: unsigned codes without offsets" % name)
            vals, form = qf * sc[:, g], "q*d"
        elif types[name + ".m"].startswith("ui"):
            vals = (qf - m.astype(np.float32)[:, g]) * sc[:, g]
            form = "(q-m)*d"
        else:
            vals = qf * sc[:, g] + m.astype(np.float32)[:, g]
            form = "q*d+m"
        forms.add("%s %s" % (types[name + ".q"], form))
        if vals.astype(np.float32).tobytes() != ref.tobytes():
            bad = np.nonzero(vals.astype(np.float32).view(np.uint32) !=
                             ref.view(np.uint32))
            sys.exit("%s: element %s differs from the reference" %
                     (name, (int(bad[0][0]), int(bad[1][0]))))
    passed = 0
    for name, v in src.items():
        if name.endswith(PACKED) or name in refs:
            continue
        if got.get(name) != v:
            sys.exit("%s: not passed through unchanged" % name)
        passed += 1
    print("%d linears (%s) equal the reference, %d tensors passed through" %
          (len(refs), ", ".join(sorted(forms)), passed))


def same_bytes(a, b):
    """Every tensor of safetensors file B has the bytes of A's tensor of
    the same name (B read back from a format without types, .irpa)."""
    x, y = read_safetensors(a), read_safetensors(b)
    if set(x) != set(y):
        sys.exit("tensors differ: %s" % sorted(set(x) ^ set(y)))
    for name in x:
        if x[name][2] != y[name][2]:
            sys.exit("%s: bytes differ" % name)
    print("%d tensors, the same bytes" % len(x))


def decode_ct(q, arr, refs, names):
    """compressed-tensors pack-quantized as unpack_from_int32 and forward.py
    _dequantize read it: weight_packed rows of int32 words, 32 // bits codes
    each, low first, minus 2^(bits-1); weight_zero_point packed the same way
    down the rows; (q - z) * s in float32."""
    (group,) = q["config_groups"].values()
    w = group["weights"]
    bits, per = w["num_bits"], 32 // w["num_bits"]
    half = 1 << (bits - 1)
    for name, ref in refs.items():
        m = name[:-len(".weight")]
        out_f, in_f = ref.shape
        if list(arr(m + ".weight_shape")) != [out_f, in_f]:
            sys.exit("%s: weight_shape differs" % name)
        words = arr(m + ".weight_packed").view(np.uint32).astype(np.uint64)
        k = np.arange(in_f)
        codes = ((words[:, k // per] >> (bits * (k % per)).astype(np.uint64))
                 & ((1 << bits) - 1)).astype(np.int32) - half
        sc = arr(m + ".weight_scale").astype(np.float32)
        gsize = in_f if w["strategy"] == "channel" else w["group_size"]
        g_idx = (arr(m + ".weight_g_idx") if m + ".weight_g_idx" in names
                 else np.arange(in_f) // gsize)
        if w["symmetric"]:
            zp = np.zeros(sc.shape, np.int32)
        else:
            zw = arr(m + ".weight_zero_point").view(np.uint32).astype(np.uint64)
            r = np.arange(out_f)
            zp = ((zw[r // per] >> (bits * (r % per)).astype(np.uint64)[:, None])
                  & ((1 << bits) - 1)).astype(np.int32) - half
        vals = ((codes - zp[:, g_idx]).astype(np.float32) * sc[:, g_idx])
        if vals.tobytes() != ref.tobytes():
            sys.exit("%s: numpy's decode of the compressed-tensors weight "
                     "differs from the reference" % name)
    print("%d linears of compressed-tensors/%s decode in numpy to the "
          "reference" % (len(refs), q["format"]))


def decode_mlx(quantization, q, arr, refs):
    """MLX affine as affine_dequantize reads it: weight rows as little-endian
    bit streams of `bits`-bit codes, (q * s) + b in float32; config.json's
    "quantization" and "quantization_config" the same."""
    if quantization != q:
        sys.exit("quantization and quantization_config differ")
    bits, gsize = quantization["bits"], quantization["group_size"]
    for name, ref in refs.items():
        m = name[:-len(".weight")]
        out_f, in_f = ref.shape
        words = arr(m + ".weight")
        stream = np.unpackbits(words.view(np.uint8), axis=1,
                               bitorder="little")
        codes = (stream.reshape(out_f, in_f, bits).astype(np.int64) <<
                 np.arange(bits)).sum(axis=2)
        g = np.arange(in_f) // gsize
        sc = arr(m + ".scales").astype(np.float32)
        bi = arr(m + ".biases").astype(np.float32)
        vals = codes.astype(np.float32) * sc[:, g] + bi[:, g]
        if vals.astype(np.float32).tobytes() != ref.tobytes():
            sys.exit("%s: numpy's decode of the MLX weight differs from the "
                     "reference" % name)
    print("%d linears of mlx %d-bit, groups of %d decode in numpy to the "
          "reference" % (len(refs), bits, gsize))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "write":
        write(args)
    elif cmd == "floats":
        floats(*args)
    elif cmd == "gguf":
        gguf(*args)
    elif cmd == "decode":
        decode(*args)
    elif cmd == "sweep":
        sweep(*args)
    elif cmd == "hostile":
        hostile(*args)
    elif cmd == "same":
        same(*args)
    elif cmd == "planar":
        planar(*args)
    elif cmd == "same-bytes":
        same_bytes(*args)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
