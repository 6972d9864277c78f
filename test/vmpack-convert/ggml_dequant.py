# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ggml's own side of the --dequantize tests, through llama.cpp's
libggml-base.so (ctypes; no numpy):

  ggml_dequant.py LIB write OUT.gguf
      quantizes rows (normal values; a row of zeros, huge and tiny
      magnitudes) with ggml_quantize_chunk into one tensor per block type
      and writes them, plus an F32 tensor, with ggml's gguf writer.
  ggml_dequant.py LIB check IN.gguf OUT.safetensors f32|f16|bf16
      reads IN.gguf with ggml's gguf reader, decodes every block tensor with
      ggml's dequantize_row_*, rounds to f16 (Python's struct, to nearest
      even) or bf16 (here, from the bits), and requires OUT's tensor of the
      same name to have the same shape, dtype and bytes.
  ggml_dequant.py LIB requant IN.gguf OUT.gguf TYPE
      for `vmpack-convert IN.gguf --quant=TYPE --allow-rounding -o OUT.gguf`:
      every block tensor of IN (ggml's reader) decoded by ggml, and every
      block of OUT's tensor of the same name, of type TYPE, either decodes
      (by ggml) to exactly those values or is byte for byte the block
      ggml_quantize_chunk makes from them.
"""

import ctypes
import json
import math
import random
import struct
import sys

# Every type ggml_quantize_chunk quantizes without an importance matrix:
# the ones with vector kernels first, then the ones vmpack decodes through
# its reference decoder.
TYPES = {2: "q4_0", 3: "q4_1", 6: "q5_0", 7: "q5_1", 8: "q8_0", 12: "q4_K",
         14: "q6_K", 39: "mxfp4", 10: "q2_K", 11: "q3_K", 13: "q5_K",
         20: "iq4_nl", 23: "iq4_xs", 34: "tq1_0", 35: "tq2_0"}
PER_ROW, ROWS = 512, 5


class InitParams(ctypes.Structure):
    _fields_ = [("mem_size", ctypes.c_size_t), ("mem_buffer", ctypes.c_void_p),
                ("no_alloc", ctypes.c_bool)]


class GgufParams(ctypes.Structure):
    _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.c_void_p)]


def load(path):
    lib = ctypes.CDLL(path)
    p, sz, i64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64
    sigs = {
        "ggml_init": (p, [InitParams]),
        "ggml_new_tensor_2d": (p, [p, ctypes.c_int, i64, i64]),
        "ggml_set_name": (p, [p, ctypes.c_char_p]),
        "ggml_get_data": (p, [p]),
        "ggml_nbytes": (sz, [p]),
        "ggml_quantize_chunk": (sz, [ctypes.c_int, p, p, i64, i64, i64, p]),
        "gguf_init_empty": (p, []),
        "gguf_add_tensor": (None, [p, p]),
        "gguf_write_to_file": (ctypes.c_bool, [p, ctypes.c_char_p,
                                               ctypes.c_bool]),
        "gguf_init_from_file": (p, [ctypes.c_char_p, GgufParams]),
        "gguf_get_n_tensors": (i64, [p]),
        "gguf_get_tensor_name": (ctypes.c_char_p, [p, i64]),
        "gguf_get_tensor_type": (ctypes.c_int, [p, i64]),
        "gguf_get_tensor_offset": (sz, [p, i64]),
        "gguf_get_tensor_size": (sz, [p, i64]),
        "gguf_get_data_offset": (sz, [p]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    for name in TYPES.values():
        f = getattr(lib, "dequantize_row_" + name)
        f.restype, f.argtypes = None, [p, p, i64]
    return lib


def rows():
    rng = random.Random(21)
    out = []
    for r in range(ROWS):
        scale = [1.0, 0.0, 1e-6, 3e4, 1.0][r]
        for i in range(PER_ROW):
            v = rng.gauss(0, 1) * scale
            if r == 4 and i % 9 == 0:
                v *= 300.0
            out.append(v)
    return (ctypes.c_float * len(out))(*out)


def write(lib, path):
    ctx = lib.ggml_init(InitParams(64 << 20, None, False))
    gguf = lib.gguf_init_empty()
    src = rows()
    for t, name in sorted(TYPES.items()):
        tensor = lib.ggml_new_tensor_2d(ctx, t, PER_ROW, ROWS)
        lib.ggml_set_name(tensor, ("w." + name).encode())
        n = lib.ggml_quantize_chunk(t, src, lib.ggml_get_data(tensor), 0,
                                    ROWS, PER_ROW, None)
        assert n == lib.ggml_nbytes(tensor), (name, n)
        lib.gguf_add_tensor(gguf, tensor)
    plain = lib.ggml_new_tensor_2d(ctx, 0, 8, 2)
    lib.ggml_set_name(plain, b"plain.f32")
    ctypes.memmove(lib.ggml_get_data(plain), src, 64)
    lib.gguf_add_tensor(gguf, plain)
    if not lib.gguf_write_to_file(gguf, path.encode(), False):
        sys.exit("gguf_write_to_file failed")


def to_half(bits):
    f = struct.unpack("<f", struct.pack("<I", bits))[0]
    if math.isnan(f):
        return None  # any NaN
    if abs(f) >= 65520.0:
        return 0xFC00 if f < 0 else 0x7C00
    return struct.unpack("<H", struct.pack("<e", f))[0]


def to_bf16(bits):
    if bits & 0x7FFFFFFF > 0x7F800000:
        return None
    low = bits & 0xFFFF
    up = bits >> 16
    if low > 0x8000 or (low == 0x8000 and up & 1):
        up += 1
    return up


def check(lib, gguf_path, st_path, dtype):
    g = lib.gguf_init_from_file(gguf_path.encode(), GgufParams(True, None))
    if not g:
        sys.exit("ggml cannot read " + gguf_path)
    raw = open(gguf_path, "rb").read()
    base = lib.gguf_get_data_offset(g)
    st = open(st_path, "rb").read()
    header_len = struct.unpack("<Q", st[:8])[0]
    header = json.loads(st[8:8 + header_len])
    data = st[8 + header_len:]
    want_dtype = {"f32": "F32", "f16": "F16", "bf16": "BF16"}[dtype]
    checked = 0
    for i in range(lib.gguf_get_n_tensors(g)):
        name = lib.gguf_get_tensor_name(g, i).decode()
        t = lib.gguf_get_tensor_type(g, i)
        if t not in TYPES:
            continue
        off = base + lib.gguf_get_tensor_offset(g, i)
        size = lib.gguf_get_tensor_size(g, i)
        k = PER_ROW * ROWS
        blocks = ctypes.create_string_buffer(raw[off:off + size], size)
        ref = (ctypes.c_float * k)()
        getattr(lib, "dequantize_row_" + TYPES[t])(blocks, ref, k)
        ref_bits = struct.unpack("<%dI" % k, bytes(ref))
        entry = header.get(name)
        if entry is None:
            sys.exit("%s: not in %s" % (name, st_path))
        if entry["dtype"] != want_dtype or entry["shape"] != [ROWS, PER_ROW]:
            sys.exit("%s: %s %s, expected %s %s" % (name, entry["dtype"],
                     entry["shape"], want_dtype, [ROWS, PER_ROW]))
        a, b = entry["data_offsets"]
        got = data[a:b]
        if dtype == "f32":
            got_bits = struct.unpack("<%dI" % k, got)
            for e in range(k):
                if got_bits[e] != ref_bits[e]:
                    sys.exit("%s element %d: 0x%08x, ggml 0x%08x" %
                             (name, e, got_bits[e], ref_bits[e]))
        else:
            got16 = struct.unpack("<%dH" % k, got)
            rnd = to_half if dtype == "f16" else to_bf16
            nan_mask = 0x7C00 if dtype == "f16" else 0x7F80
            for e in range(k):
                want = rnd(ref_bits[e])
                ok = (got16[e] & nan_mask == nan_mask and got16[e] &
                      (0x3FF if dtype == "f16" else 0x7F) != 0
                      if want is None else got16[e] == want)
                if not ok:
                    sys.exit("%s element %d: 0x%04x, expected 0x%04x from "
                             "ggml's f32 0x%08x" % (name, e, got16[e],
                                                    want or 0, ref_bits[e]))
        checked += 1
    print("%d block tensors as ggml decodes them (%s)" % (checked, dtype))


def tensors(lib, path):
    """name -> (ggml type, bytes), by ggml's gguf reader."""
    g = lib.gguf_init_from_file(path.encode(), GgufParams(True, None))
    if not g:
        sys.exit("ggml cannot read " + path)
    raw = open(path, "rb").read()
    base = lib.gguf_get_data_offset(g)
    out = {}
    for i in range(lib.gguf_get_n_tensors(g)):
        off = base + lib.gguf_get_tensor_offset(g, i)
        out[lib.gguf_get_tensor_name(g, i).decode()] = (
            lib.gguf_get_tensor_type(g, i),
            raw[off:off + lib.gguf_get_tensor_size(g, i)])
    return out


def decode(lib, t, data, k):
    blocks = ctypes.create_string_buffer(data, len(data))
    ref = (ctypes.c_float * k)()
    getattr(lib, "dequantize_row_" + TYPES[t])(blocks, ref, k)
    return ref


def requant(lib, in_path, out_path, target_name):
    target = [t for t, n in TYPES.items() if n == target_name][0]
    qk, size = 32, {2: 18, 3: 20, 6: 22, 7: 24, 8: 34}[target]
    src, dst = tensors(lib, in_path), tensors(lib, out_path)
    k = PER_ROW * ROWS
    exact = rounded = 0
    for name, (t, data) in sorted(src.items()):
        if t not in TYPES:
            continue
        got_type, got = dst[name]
        if got_type != target or len(got) != k // qk * size:
            sys.exit("%s: type %d, %d bytes" % (name, got_type, len(got)))
        values = decode(lib, t, data, k)
        want_bits = bytes(values)
        got_bits = bytes(decode(lib, target, got, k))
        quantized = ctypes.create_string_buffer(len(got))
        lib.ggml_quantize_chunk(target, values, quantized, 0, ROWS, PER_ROW,
                                None)
        for b in range(k // qk):
            blk = got[b * size:(b + 1) * size]
            if got_bits[b * qk * 4:(b + 1) * qk * 4] == \
                    want_bits[b * qk * 4:(b + 1) * qk * 4]:
                exact += 1
            elif blk == quantized.raw[b * size:(b + 1) * size]:
                rounded += 1
            else:
                sys.exit("%s block %d: neither exact nor ggml's quantization"
                         % (name, b))
    print("%d blocks exact, %d as ggml quantizes them (%s)" %
          (exact, rounded, target_name))


def main():
    lib = load(sys.argv[1])
    if sys.argv[2] == "write":
        write(lib, sys.argv[3])
    elif sys.argv[2] == "requant":
        requant(lib, sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        check(lib, sys.argv[3], sys.argv[4], sys.argv[5])


if __name__ == "__main__":
    main()
