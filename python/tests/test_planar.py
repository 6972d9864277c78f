# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""vmpack.PlanarWeight, Segment.planar and save_file of planar weights
(docs/python.md, "Planar quantized weights"; docs/quant.md, sections 4
and 9).

The reference is ggml itself and its block layouts: a GGUF of rows
quantized by llama.cpp's libggml-base.so (ggml_quantize_chunk, written by
ggml's gguf writer, read back by ggml's gguf reader; via
test/vmpack-convert/ggml_dequant.py), skipped where the library is absent,
and the block structs of ggml-common.h (ggml-org/ggml,
src/ggml-common.h: block_q4_0, block_q4_1, block_q5_0, block_q5_1,
block_q8_0, block_iq4_nl, block_mxfp4, block_q2_K, block_q3_K,
block_q4_K, block_q5_K, block_q6_K), decoded here in numpy, independently
of vmpack, into the parts of docs/quant.md's table. The tests without
ggml build planar weights from random values and check the blocks
save_file joins them into with the same decoder."""

import json
import struct
import subprocess

import numpy as np
import pytest

import vmpack
from conftest import BUILD_DIR

# Block sizes and bytes (ggml-common.h: QK4_0 = QK8_0 = QK_MXFP4 = 32,
# QK_K = 256, and the sizeof of each block struct).
BLOCK = {"Q4_0": (32, 18), "Q4_1": (32, 20), "Q5_0": (32, 22),
         "Q5_1": (32, 24), "Q8_0": (32, 34), "IQ4_NL": (32, 18),
         "MXFP4": (32, 17), "Q2_K": (256, 84), "Q3_K": (256, 110),
         "Q4_K": (256, 144), "Q5_K": (256, 176), "Q6_K": (256, 210)}
# ggml-common.h's kvalues_iq4nl, and the E2M1 values (OCP MX spec; ggml's
# kvalues_mxfp4 are twice these).
KVALUES_IQ4NL = np.array([-127, -104, -83, -65, -49, -35, -22, -10, 1, 13,
                          25, 38, 53, 69, 89, 113], dtype=np.float32)
E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0,
                 -1.5, -2.0, -3.0, -4.0, -6.0], dtype=np.float32)


# --- the independent decoder: ggml blocks -> planar parts ----------------

def _f16(blk, offset):
    return blk[:, offset:offset + 2].copy().view(np.float16)[:, 0]


def _lo_hi(qs):
    """Nibbles: element j is lo(qs[j]), element j + len(qs) hi(qs[j])."""
    return np.concatenate([qs & 15, qs >> 4], axis=1)


def _k4_scales(scales):
    """ggml's get_scale_min_k4 for j = 0..7 over scales[12]."""
    s = scales.astype(np.uint8)
    sc = np.empty((s.shape[0], 8), np.uint8)
    mn = np.empty((s.shape[0], 8), np.uint8)
    sc[:, :4] = s[:, 0:4] & 63
    mn[:, :4] = s[:, 4:8] & 63
    sc[:, 4:] = (s[:, 8:12] & 15) | ((s[:, 0:4] >> 6) << 4)
    mn[:, 4:] = (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)
    return sc, mn


def decode_planar(type_name, raw, shape):
    """The planar parts of the blocks `raw` (bytes) of a weight of `shape`,
    from ggml-common.h's layouts and docs/quant.md's element order."""
    size, nbytes = BLOCK[type_name]
    blk = np.frombuffer(raw, np.uint8).reshape(-1, nbytes)
    rows = shape[:-1]
    out = {}
    if type_name in ("Q4_0", "IQ4_NL"):
        out["d"] = _f16(blk, 0)
        q = _lo_hi(blk[:, 2:18])
        out["q"] = (q.astype(np.int8) - 8) if type_name == "Q4_0" else q
    elif type_name == "Q4_1":
        out["d"], out["m"] = _f16(blk, 0), _f16(blk, 2)
        out["q"] = _lo_hi(blk[:, 4:20])
    elif type_name in ("Q5_0", "Q5_1"):
        base = 2 if type_name == "Q5_0" else 4
        out["d"] = _f16(blk, 0)
        if type_name == "Q5_1":
            out["m"] = _f16(blk, 2)
        qh = blk[:, base:base + 4].copy().view("<u4")[:, 0]
        high = (qh[:, None] >> np.arange(32, dtype=np.uint32)) & 1
        q = _lo_hi(blk[:, base + 4:base + 20]) | (high << 4).astype(np.uint8)
        out["q"] = (q.astype(np.int8) - 16) if type_name == "Q5_0" else q
    elif type_name == "Q8_0":
        out["d"] = _f16(blk, 0)
        out["q"] = blk[:, 2:34].view(np.int8)
    elif type_name == "MXFP4":
        e = blk[:, 0].astype(np.int32)
        d = np.ldexp(np.float32(1), np.minimum(e, 254) - 127)
        d[e == 255] = np.nan
        out["d"] = d
        out["q"] = E2M1[_lo_hi(blk[:, 1:17])]
    elif type_name == "Q2_K":
        scales, qs = blk[:, 0:16], blk[:, 16:80]
        out["d"], out["m"] = _f16(blk, 80), _f16(blk, 82)
        q = np.empty((blk.shape[0], 256), np.uint8)
        for n in range(2):
            for s in range(4):
                for half in range(2):
                    e = 128 * n + 32 * s + 16 * half
                    src = qs[:, 32 * n + 16 * half:32 * n + 16 * half + 16]
                    q[:, e:e + 16] = (src >> (2 * s)) & 3
        out["q"], out["sd"], out["sm"] = q, scales & 15, scales >> 4
    elif type_name == "Q3_K":
        hmask, qs, sc = blk[:, 0:32], blk[:, 32:96], blk[:, 96:108]
        out["d"] = _f16(blk, 108)
        i = np.arange(16)
        low = np.where(i < 8, sc[:, i % 8] & 15, sc[:, i % 8] >> 4)
        high = (sc[:, 8 + i % 4] >> (2 * (i // 4))) & 3
        out["sd"] = (low | (high << 4)).astype(np.int8) - 32
        q = np.empty((blk.shape[0], 256), np.int8)
        for n in range(2):
            for s in range(4):
                e = 128 * n + 32 * s
                bits = (qs[:, 32 * n:32 * n + 32] >> (2 * s)) & 3
                set_ = (hmask >> (4 * n + s)) & 1
                q[:, e:e + 32] = bits.astype(np.int8) - np.where(set_, 0, 4)
        out["q"] = q
    elif type_name in ("Q4_K", "Q5_K"):
        out["d"], out["m"] = _f16(blk, 0), _f16(blk, 2)
        out["sd"], out["sm"] = _k4_scales(blk[:, 4:16])
        ql = blk[:, 16:144] if type_name == "Q4_K" else blk[:, 48:176]
        q = np.empty((blk.shape[0], 256), np.uint8)
        for c in range(4):
            q[:, 64 * c:64 * c + 32] = ql[:, 32 * c:32 * c + 32] & 15
            q[:, 64 * c + 32:64 * c + 64] = ql[:, 32 * c:32 * c + 32] >> 4
            if type_name == "Q5_K":
                qh = blk[:, 16:48]
                q[:, 64 * c:64 * c + 32] |= ((qh >> (2 * c)) & 1) << 4
                q[:, 64 * c + 32:64 * c + 64] |= ((qh >> (2 * c + 1)) & 1) << 4
        out["q"] = q
    elif type_name == "Q6_K":
        ql, qh = blk[:, 0:128], blk[:, 128:192]
        out["sd"] = blk[:, 192:208].view(np.int8)
        out["d"] = _f16(blk, 208)
        q = np.empty((blk.shape[0], 256), np.int16)
        for n in range(2):
            L, H = ql[:, 64 * n:64 * n + 64], qh[:, 32 * n:32 * n + 32]
            b = 128 * n
            q[:, b:b + 32] = (L[:, :32] & 15) | ((H & 3) << 4)
            q[:, b + 32:b + 64] = (L[:, 32:] & 15) | (((H >> 2) & 3) << 4)
            q[:, b + 64:b + 96] = (L[:, :32] >> 4) | (((H >> 4) & 3) << 4)
            q[:, b + 96:b + 128] = (L[:, 32:] >> 4) | (((H >> 6) & 3) << 4)
        out["q"] = (q - 32).astype(np.int8)
    blocks_per_row = shape[-1] // size
    return {k: np.ascontiguousarray(v).reshape(
        tuple(rows) + (blocks_per_row * (v.size // blk.shape[0]),))
        for k, v in out.items()}


def formula(type_name, parts):
    """docs/quant.md's value of every element, in float32, in ggml's order
    of operations (dequantize_row_*)."""
    f = np.float32
    size = BLOCK[type_name][0]
    q = parts["q"].astype(f)
    k = q.shape[-1]

    def per(part, n):  # a part of one value per n elements, broadcast
        return np.repeat(parts[part].astype(f), n, axis=-1)[..., :k]

    if type_name in ("Q4_0", "Q5_0", "Q8_0"):
        return q * per("d", size)
    if type_name in ("Q4_1", "Q5_1"):
        return q * per("d", size) + per("m", size)
    if type_name == "IQ4_NL":
        return per("d", size) * KVALUES_IQ4NL[parts["q"]]
    if type_name == "MXFP4":
        return q * per("d", size)
    sub = 16 if type_name in ("Q2_K", "Q3_K", "Q6_K") else 32
    dl = per("d", 256) * per("sd", sub)
    if type_name in ("Q3_K", "Q6_K"):
        return dl * q
    return dl * q - per("m", 256) * per("sm", sub)


def same_values(a, b):
    """Equal values of the same dtype kind, -0 and NaN included."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        return bool(np.array_equal(a64, b64, equal_nan=True) and
                    np.array_equal(np.signbit(a64), np.signbit(b64)))
    return bool(np.array_equal(a, b))


# --- ggml's own blocks ---------------------------------------------------

def ggml_tensors(ggml_file, path):
    """name -> (ggml type number, bytes), by ggml's own gguf reader."""
    script, lib, _ = ggml_file
    return script.tensors(lib, str(path))


@pytest.fixture(scope="module")
def planar_weights(ggml_file):
    """Segment.planar() of every block tensor of ggml's file whose type has
    a planar form; the others must be refused, naming the segment."""
    _, _, path = ggml_file
    weights, refused = {}, []
    with vmpack.open(path) as m:
        for name, segment in m.items():
            type_name = (segment.quant_info or {}).get("scheme", "")[5:]
            if type_name in vmpack.PLANAR_TYPES:
                weights[name] = segment.planar()
            else:
                with pytest.raises(vmpack.UnsupportedError) as e:
                    segment.planar()
                assert repr(name) in str(e.value)
                refused.append(name)
    assert sorted(refused) == ["plain.f32", "w.iq4_xs", "w.tq1_0",
                               "w.tq2_0"]
    assert sorted(w.ggml_type for w in weights.values()) == sorted(BLOCK)
    return weights


def test_parts_are_ggmls_blocks_decoded(ggml_file, planar_weights):
    """Every part equals the numpy decoding of ggml's bytes (read by ggml's
    own gguf reader), with the dtype and shape of PLANAR_TYPES."""
    _, _, path = ggml_file
    blocks = ggml_tensors(ggml_file, path)
    for name, w in planar_weights.items():
        layout = vmpack.PLANAR_TYPES[w.ggml_type]
        ref = decode_planar(w.ggml_type, blocks[name][1], list(w.shape))
        assert set(w.parts) == set(ref) == {p[0] for p in layout["parts"]}
        for suffix, _type, _bits, per_block, dtype in layout["parts"]:
            got = w.parts[suffix]
            assert got.dtype == np.dtype(dtype), (name, suffix)
            assert got.shape == w.shape[:-1] + (
                w.shape[-1] // layout["block_size"] * per_block,)
            assert same_values(got, ref[suffix]), (name, suffix)
        assert w.part_types == {p[0]: p[1] for p in layout["parts"]}
    q4 = planar_weights["w.q4_K"]
    assert q4.q.dtype == np.uint8 and q4.q.max() <= 15
    assert q4.sd.dtype == np.uint8 and q4.sd.max() <= 63


def test_formula_is_dequantize_bit_for_bit(ggml_file, planar_weights):
    _, _, path = ggml_file
    with vmpack.open(path) as m:
        for name, w in planar_weights.items():
            values = formula(w.ggml_type, w.parts)
            expected = m[name].dequantize()
            assert values.dtype == np.float32
            assert np.array_equal(values.view(np.uint32),
                                  expected.view(np.uint32)), name


@pytest.mark.parametrize("quant", [None, "ggml"])
def test_joined_to_gguf_gives_ggmls_blocks_back(ggml_file, planar_weights,
                                                tmp_path, quant):
    """quant="ggml", and by default for .gguf: ggml's reader sees every
    tensor of its own type with its own bytes."""
    _, _, path = ggml_file
    out = tmp_path / "back.gguf"
    vmpack.save_file(planar_weights, out, quant=quant)
    original, back = ggml_tensors(ggml_file, path), ggml_tensors(ggml_file,
                                                                 out)
    assert list(back) == list(planar_weights)
    for name in planar_weights:
        assert back[name] == original[name], name
    with vmpack.open(out) as m:
        assert not any(k.startswith("vmpack.planar.") for k in m.metadata)


def read_safetensors(path):
    """json + numpy, from the safetensors README's "Format" section."""
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    return header.pop("__metadata__", {}), header, raw[8 + n:]


def unpack_bits(data, width, count, signed):
    """docs/packing.md's `packed` layout: element i in bits [i*W, i*W+W)
    of a little-endian bit stream."""
    bits = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little")
    bits = bits[:count * width].reshape(count, width).astype(np.int64)
    values = (bits << np.arange(width)).sum(axis=1)
    if signed:
        values = np.where(values >= 1 << (width - 1), values - (1 << width),
                          values)
    return values


def test_safetensors_planar_set(ggml_file, planar_weights, tmp_path):
    """The planar set as an independent reader sees it: NAME.q, NAME.d, ...
    in order, safetensors dtypes where the format has one (F16, I8,
    F8_E8M0, F4), else U8 bytes in the packed layout with their
    vmpack.type record, every value the part's, and the planar record.
    (si8, an alias of I8, recorded too). Then vmpack-convert --quant=ggml
    joins it back into ggml's blocks."""
    out = tmp_path / "p.safetensors"
    vmpack.save_file(planar_weights, out)
    metadata, header, data = read_safetensors(out)
    expected_names = [f"{name}.{p[0]}" for name, w in planar_weights.items()
                      for p in vmpack.PLANAR_TYPES[w.ggml_type]["parts"]]
    assert list(header) == expected_names
    native = {"f16": "F16", "si8": "I8", "f8E8M0FNU": "F8_E8M0",
              "f4E2M1FN": "F4"}
    for name, w in planar_weights.items():
        assert metadata[f"vmpack.planar.{name}"] == w.ggml_type
        for suffix, mlir, bits, _, _ in \
                vmpack.PLANAR_TYPES[w.ggml_type]["parts"]:
            full = f"{name}.{suffix}"
            entry, part = header[full], w.parts[suffix]
            a, b = entry["data_offsets"]
            raw = data[a:b]
            dims = "x".join(str(n) for n in part.shape)
            if mlir in native:
                assert entry["dtype"] == native[mlir], full
                assert entry["shape"] == list(part.shape), full
                # si8 is an alias row of I8 (docs/interop.md): recorded.
                assert metadata.get(f"vmpack.type.{full}") == (
                    f"tensor<{dims}x{mlir}>" if mlir == "si8" else None)
                if mlir == "f16":
                    got = np.frombuffer(raw, "<f2")
                elif mlir == "si8":
                    got = np.frombuffer(raw, np.int8)
                elif mlir == "f8E8M0FNU":
                    e = np.frombuffer(raw, np.uint8).astype(np.int32)
                    got = np.where(e == 255, np.nan,
                                   np.ldexp(1.0, e - 127))
                else:
                    got = E2M1[unpack_bits(raw, 4, part.size, False)]
            else:
                assert entry["dtype"] == "U8", full
                assert entry["shape"] == [(part.size * bits + 7) // 8], full
                assert metadata[f"vmpack.type.{full}"] == \
                    f"tensor<{dims}x{mlir}>"
                got = unpack_bits(raw, bits, part.size, mlir[0] == "s")
            assert same_values(got.reshape(part.shape), part), full

    # vmpack-convert joins the set into ggml's own blocks.
    back = tmp_path / "back.gguf"
    tool = BUILD_DIR / "bin" / "vmpack-convert" if BUILD_DIR else None
    if tool and tool.exists():
        subprocess.run([str(tool), str(out), "--quant=ggml", "-o",
                        str(back)], check=True, capture_output=True)
    else:
        vmpack.convert(out, back, quant="ggml")
    original, joined = ggml_tensors(ggml_file, ggml_file[2]), \
        ggml_tensors(ggml_file, back)
    assert list(joined) == list(planar_weights)
    for name in planar_weights:
        assert joined[name] == original[name], name


# --- without ggml: planar weights from random values ---------------------

def random_planar(type_name, rows=4, blocks=64, seed=0):
    """A PlanarWeight of random values of each part's type (widened as
    Segment.planar widens them), each part starting with every value its
    type has where the part is large enough (every code; every E2M1 value,
    -0 included; every E8M0 exponent and its NaN, 0xFF), and float16 parts
    with +-0, a subnormal and the largest finite value."""
    rng = np.random.default_rng(seed)
    layout = vmpack.PLANAR_TYPES[type_name]
    parts = {}
    for suffix, mlir, bits, per_block, dtype in layout["parts"]:
        shape = (rows, blocks * per_block)
        if mlir == "f16":
            values = rng.integers(0, 1 << 16, shape, dtype=np.uint16)
            values[(values & 0x7C00) == 0x7C00] = 0x3C00  # no inf/NaN
            values.reshape(-1)[:4] = [0x0000, 0x8000, 0x0001, 0x7BFF]
            values = values.view(np.float16)
        elif mlir == "f8E8M0FNU":
            every = np.append(np.ldexp(np.float32(1), np.arange(255) - 127),
                              np.nan).astype(np.float32)
            values = every[rng.integers(0, 256, shape)]
            values.reshape(-1)[:256] = every
        elif mlir == "f4E2M1FN":
            values = E2M1[rng.integers(0, 16, shape)]
            values.reshape(-1)[:16] = E2M1
        else:
            low = -(1 << (bits - 1)) if mlir[0] == "s" else 0
            values = rng.integers(low, low + (1 << bits), shape)
            count = min(values.size, 1 << bits)
            values.reshape(-1)[:count] = np.arange(low, low + count)
        parts[suffix] = values.astype(dtype)
    return vmpack.PlanarWeight(type_name.lower(), **parts)


@pytest.mark.parametrize("type_name", sorted(BLOCK))
def test_random_planar_weights_join_and_split(type_name, tmp_path):
    """Random parts joined into blocks (the default for .gguf) are blocks
    the ggml-common.h decoder reads back as those parts, planar() gives
    them back, and a .vmpk and safetensors planar set converts
    (vmpack.convert, quant="ggml") into the same GGUF file."""
    w = random_planar(type_name)
    out = tmp_path / "w.gguf"
    vmpack.save_file({"w": w, "plain": np.arange(4, dtype=np.float32)}, out)
    with vmpack.open(out) as m:
        assert list(m) == ["w", "plain"]
        assert m["w"].foreign_type == "ggml." + type_name
        raw = bytes(m["w"].raw)
        back = m["w"].planar()
    assert back.ggml_type == type_name
    ref = decode_planar(type_name, raw, list(w.shape))
    for suffix, part in w.parts.items():
        assert same_values(ref[suffix], part), suffix
        assert same_values(back.parts[suffix], part), suffix
    for ext in ("vmpk", "safetensors"):
        planar = tmp_path / f"p.{ext}"
        vmpack.save_file({"w": w, "plain": np.arange(4, dtype=np.float32)},
                         planar)
        with vmpack.open(planar) as m:
            assert m.metadata["vmpack.planar.w"] == type_name
            assert [k for k in m if k.startswith("w.")] == \
                ["w." + s for s in w.parts]
        joined = tmp_path / f"j.{ext}.gguf"
        vmpack.convert(planar, joined, quant="ggml")
        assert joined.read_bytes() == out.read_bytes(), ext


def test_quant_planar_in_gguf_and_conversion(tmp_path):
    """quant="planar" keeps the set in a GGUF file too; quant="q8_0" joins
    a Q4_0 weight and converts it exactly, as vmpack-convert
    --quant=q8_0 does."""
    w = random_planar("Q4_0")
    out = tmp_path / "p.gguf"
    vmpack.save_file({"w": w}, out, quant="planar")
    with vmpack.open(out) as m:
        assert list(m) == ["w.q", "w.d"]
        assert m.metadata["vmpack.planar.w"] == "Q4_0"
        assert m["w.q"].numpy().tolist() == w.q.tolist()
    q4 = tmp_path / "q4.gguf"
    q8 = tmp_path / "q8.gguf"
    vmpack.save_file({"w": w}, q4, quant="ggml")
    vmpack.save_file({"w": w}, q8, quant="q8_0")
    with vmpack.open(q4) as a, vmpack.open(q8) as b:
        assert b["w"].foreign_type == "ggml.Q8_0"
        assert np.array_equal(a["w"].dequantize().view(np.uint32),
                              b["w"].dequantize().view(np.uint32))
        assert b["w"].planar().q.tolist() == w.q.tolist()


def errors_of(tmp_path, tensors, **options):
    out = tmp_path / "e.safetensors"
    with pytest.raises(vmpack.InvalidArgumentError) as e:
        vmpack.save_file(tensors, out, **options)
    assert not out.exists()
    assert not list(tmp_path.iterdir())  # no temporary file left
    return str(e.value)


def test_errors_name_the_tensor(tmp_path):
    w = random_planar("Q4_K")
    q4_0 = random_planar("Q4_0")
    # A part of the wrong shape.
    bad = vmpack.PlanarWeight("Q4_K", w.q, w.d[:, :1], w.m, w.sd, w.sm)
    message = errors_of(tmp_path, {"layer.w": bad})
    assert "'layer.w.d'" in message and "shape" in message
    # A missing part.
    message = errors_of(tmp_path, {"w": vmpack.PlanarWeight(
        "Q4_K", w.q, w.d, w.m, sd=w.sd)})
    assert "'w.sm'" in message
    # A part the type does not have.
    message = errors_of(tmp_path, {"w": vmpack.PlanarWeight(
        "Q4_0", q4_0.q, q4_0.d, m=q4_0.d)})
    assert "'w.m'" in message
    # A value out of range: Q4_0's codes are si4, -8..7.
    q = q4_0.q.copy()
    q[1, 5] = 8
    message = errors_of(tmp_path, {"w": vmpack.PlanarWeight("Q4_0", q,
                                                            q4_0.d)})
    assert "'w.q'" in message and "8" in message and "[1, 5]" in message
    sd = w.sd.astype(np.int16)
    sd[0, 0] = 64  # ui6
    message = errors_of(tmp_path, {"w": vmpack.PlanarWeight(
        "Q4_K", w.q, w.d, w.m, sd, w.sm)})
    assert "'w.sd'" in message and "64" in message
    # Unknown types, and types without a planar form.
    message = errors_of(tmp_path, {"w": vmpack.PlanarWeight("Q9_9", q, w.d)})
    assert "'w'" in message and "Q9_9" in message and "Q4_K" in message
    message = errors_of(tmp_path, {"w": vmpack.PlanarWeight("q8_k", q, w.d)})
    assert "'w'" in message and "Q8_K has no planar form" in message
    with pytest.raises(vmpack.InvalidArgumentError, match="Q9_9"):
        vmpack.PlanarWeight("Q9_9", q, w.d).part_types
    # Names taken twice; the record is save_file's to write.
    message = errors_of(tmp_path, {"w": q4_0, "w.q": np.zeros(3)})
    assert "'w.q'" in message and "twice" in message
    message = errors_of(tmp_path, {"w": q4_0},
                        metadata={"vmpack.planar.w": "Q4_0"})
    assert "vmpack.planar.w" in message
    message = errors_of(tmp_path, {"w": q4_0}, quant="gptq")
    assert "gptq" in message
    # Blocks have no safetensors form: joining into one is refused.
    with pytest.raises(vmpack.Error, match="'w'"):
        vmpack.save_file({"w": q4_0}, tmp_path / "x.safetensors",
                         quant="ggml")
    assert not (tmp_path / "x.safetensors").exists()


def test_planar_of_a_segment_that_is_not_blocks(tmp_path):
    out = tmp_path / "a.safetensors"
    vmpack.save_file({"a": np.zeros(4, np.float16)}, out)
    with vmpack.open(out) as m:
        with pytest.raises(vmpack.UnsupportedError, match="'a'"):
            m["a"].planar()


def test_layout_comes_from_the_quant_layer():
    """PLANAR_TYPES is the C++ table (quant::ggmlPlanarParts): the types of
    docs/quant.md's table, codes first, and each type's bits per block add
    up to its block's bytes (every bit in one part)."""
    assert sorted(vmpack.PLANAR_TYPES) == sorted(list(BLOCK) + ["NVFP4"])
    for name, t in vmpack.PLANAR_TYPES.items():
        assert t["parts"][0][0] == "q"
        bits = sum(p[2] * p[3] for p in t["parts"])
        assert bits == 8 * t["block_bytes"], name
        if name in BLOCK:
            assert (t["block_size"], t["block_bytes"]) == BLOCK[name]
    assert vmpack.PLANAR_TYPES["Q6_K"]["parts"] == (
        ("q", "si6", 6, 256, "int8"), ("d", "f16", 16, 1, "float16"),
        ("sd", "si8", 8, 16, "int8"))
