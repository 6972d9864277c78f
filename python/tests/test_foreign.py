# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""safetensors and GGUF through vmpack.open, as .vmpk and .irpa open.

The files are written here by writers that use only json, struct and numpy
(following the safetensors README's "Format" section and ggml's
docs/gguf.md, "File Structure"), and by vmpack-convert; every tensor read
through vmpack is compared with the numpy array it was written from.
Load options (mode, verify, threads, buffer) of vmpack.open are checked
on the same files, and damaged files must raise, never crash."""

import json
import struct
import subprocess

import numpy as np
import pytest

import vmpack
from conftest import BUILD_DIR
from reference import patterns, widen

RNG = np.random.default_rng(13)

# numpy dtype -> safetensors dtype (huggingface/safetensors, Dtype).
ST_DTYPES = {
    np.dtype(np.bool_): "BOOL", np.dtype(np.uint8): "U8",
    np.dtype(np.int8): "I8", np.dtype(np.int16): "I16",
    np.dtype(np.uint16): "U16", np.dtype(np.int32): "I32",
    np.dtype(np.uint32): "U32", np.dtype(np.int64): "I64",
    np.dtype(np.uint64): "U64", np.dtype(np.float16): "F16",
    np.dtype(np.float32): "F32", np.dtype(np.float64): "F64",
}


def sample_arrays():
    """One array per numpy dtype safetensors has, odd shapes."""
    out = {}
    for k, dtype in enumerate(ST_DTYPES):
        shape = [(3, 5), (7,), (2, 3, 3)][k % 3]
        if dtype.kind == "b":
            a = RNG.integers(0, 2, size=shape).astype(np.bool_)
        elif dtype.kind in "iu":
            info = np.iinfo(dtype)
            a = RNG.integers(info.min, info.max, size=shape, dtype=dtype,
                             endpoint=True)
        else:
            a = (RNG.standard_normal(shape) * 100).astype(dtype)
        out[f"t{k}.{dtype.name}"] = a
    return out


def pack_bits(values, width):
    """The `packed` layout of docs/packing.md: W-bit values back to back,
    least significant bit first, the last byte's unused bits zero."""
    v = np.asarray(values, dtype=np.int64).ravel() & ((1 << width) - 1)
    bits = ((v[:, None] >> np.arange(width)) & 1).astype(np.uint8).ravel()
    return np.packbits(bits, bitorder="little").tobytes()


def write_safetensors(path, tensors, metadata=None):
    """tensors: name -> numpy array, or name -> (dtype string, shape,
    bytes). The header padded with spaces to a multiple of 8."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        if isinstance(t, tuple):
            dtype, shape, data = t
        else:
            dtype, shape, data = ST_DTYPES[t.dtype], list(t.shape), \
                np.ascontiguousarray(t).astype(t.dtype.newbyteorder("<")) \
                .tobytes()
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    return path


def read_safetensors(path):
    """The json+numpy reader: name -> (dtype string, shape, bytes), and
    __metadata__."""
    raw = path.read_bytes()
    (n,) = struct.unpack_from("<Q", raw)
    header = json.loads(raw[8:8 + n])
    metadata = header.pop("__metadata__", {})
    data = raw[8 + n:]
    return {name: (e["dtype"], tuple(e["shape"]),
                   data[e["data_offsets"][0]:e["data_offsets"][1]])
            for name, e in header.items()}, metadata


# GGUF (ggml docs/gguf.md): metadata value types and ggml tensor types.
GGUF_UINT16, GGUF_UINT32, GGUF_INT32, GGUF_FLOAT32, GGUF_BOOL, GGUF_STRING, \
    GGUF_ARRAY, GGUF_UINT64, GGUF_FLOAT64 = 2, 4, 5, 6, 7, 8, 9, 10, 12
GGML_TYPES = {np.dtype(np.float32): 0, np.dtype(np.float16): 1,
              np.dtype(np.int8): 24, np.dtype(np.int16): 25,
              np.dtype(np.int32): 26, np.dtype(np.int64): 27,
              np.dtype(np.float64): 28}
GGML_Q4_0, GGML_BF16 = 2, 30


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_value(vtype, value):
    scalar = {GGUF_UINT16: "<H", GGUF_UINT32: "<I", GGUF_INT32: "<i",
              GGUF_FLOAT32: "<f",
              GGUF_BOOL: "<?", GGUF_UINT64: "<Q", GGUF_FLOAT64: "<d"}
    if vtype == GGUF_STRING:
        return gguf_string(value)
    if vtype == GGUF_ARRAY:
        etype, items = value
        return struct.pack("<IQ", etype, len(items)) + \
            b"".join(gguf_value(etype, v) for v in items)
    return struct.pack(scalar[vtype], value)


def write_gguf(path, tensors, kvs, alignment=32):
    """tensors: name -> (ggml type, shape outermost first, bytes);
    kvs: [(key, value type, value)]. GGUF version 3."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs))
    for key, vtype, value in kvs:
        out += gguf_string(key) + struct.pack("<I", vtype) + \
            gguf_value(vtype, value)
    offset, datas = 0, []
    for name, (gtype, shape, data) in tensors.items():
        offset += -offset % alignment
        out += gguf_string(name) + struct.pack("<I", len(shape))
        out += b"".join(struct.pack("<Q", d) for d in reversed(shape))
        out += struct.pack("<IQ", gtype, offset)
        datas.append((offset, data))
        offset += len(data)
    out += b"\0" * (-len(out) % alignment)
    body = bytearray(offset + (-offset % alignment))
    for at, data in datas:
        body[at:at + len(data)] = data
    path.write_bytes(out + bytes(body))
    return path


def gguf_sample(tmp_path):
    """A GGUF file of every plain type, BF16, a Q4_0 tensor and metadata;
    returns (path, arrays, q4 bytes, bf16 bits, expected metadata)."""
    arrays = {}
    tensors = {}
    for k, dtype in enumerate(GGML_TYPES):
        shape = [(3, 5), (7,), (2, 3, 3)][k % 3]
        if dtype.kind == "i":
            a = RNG.integers(np.iinfo(dtype).min, np.iinfo(dtype).max,
                             size=shape, dtype=dtype, endpoint=True)
        else:
            a = (RNG.standard_normal(shape) * 10).astype(dtype)
        name = f"g{k}.{dtype.name}"
        arrays[name] = a
        tensors[name] = (GGML_TYPES[dtype], shape, a.astype(
            dtype.newbyteorder("<")).tobytes())
    bf16 = RNG.integers(0, 1 << 16, size=(4, 2), dtype=np.uint16)
    bf16[bf16 & 0x7F80 == 0x7F80] = 0x3F80  # no NaN/Inf patterns
    tensors["bf16"] = (GGML_BF16, (4, 2), bf16.astype("<u2").tobytes())
    q4 = RNG.integers(0, 256, size=2 * 2 * 18, dtype=np.uint8).tobytes()
    tensors["blk.0.q4"] = (GGML_Q4_0, (2, 64), q4)
    kvs = [("general.architecture", GGUF_STRING, "llama"),
           ("general.alignment", GGUF_UINT32, 64),
           ("llama.block_count", GGUF_UINT32, 1),
           ("llama.rope.freq_base", GGUF_FLOAT32, 10000.0),
           ("x.int", GGUF_INT32, -7),
           ("x.big", GGUF_UINT64, 2**63 + 5),
           ("x.half", GGUF_FLOAT64, 0.5),
           ("x.flag", GGUF_BOOL, True),
           ("tokenizer.ggml.tokens", GGUF_ARRAY,
            (GGUF_STRING, ["<s>", "a\"b", "\u00e9"])),
           ("tokenizer.ggml.scores", GGUF_ARRAY,
            (GGUF_FLOAT32, [0.0, -1.5, 2.25]))]
    expected = {"general.architecture": ("llama", "string"),
                "general.alignment": ("64", "uint32"),
                "llama.block_count": ("1", "uint32"),
                "llama.rope.freq_base": ("1e+04", "float32"),
                "x.int": ("-7", "int32"),
                "x.big": (str(2**63 + 5), "uint64"),
                "x.half": ("0.5", "float64"),
                "x.flag": ("true", "bool"),
                "tokenizer.ggml.tokens": ('["<s>","a\\"b","\u00e9"]',
                                          "array<string>"),
                "tokenizer.ggml.scores": ("[0.0,-1.5,2.25]",
                                          "array<float32>")}
    path = write_gguf(tmp_path / "sample.gguf", tensors,
                      kvs, alignment=64)
    return path, arrays, q4, bf16, expected


def st_sample(tmp_path):
    """A safetensors file of every dtype numpy has, an i4 tensor in the
    documented U8 convention, BF16 bits and metadata."""
    arrays = sample_arrays()
    i4 = RNG.integers(-8, 8, size=(3, 5)).astype(np.int8)
    bf16 = RNG.integers(0, 1 << 16, size=(6,), dtype=np.uint16)
    bf16[bf16 & 0x7F80 == 0x7F80] = 0x3F80
    tensors = dict(arrays)
    tensors["w.i4"] = ("U8", [8], pack_bits(i4, 4))
    tensors["bf16"] = ("BF16", [6], bf16.astype("<u2").tobytes())
    metadata = {"format": "pt", "vmpack.type.w.i4": "tensor<3x5xi4>",
                "note": "sp\u00e4ce"}
    path = write_safetensors(tmp_path / "sample.safetensors", tensors,
                             metadata)
    return path, arrays, i4, bf16


def bf16_to_float32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def tool(name):
    path = BUILD_DIR / "bin" / name if BUILD_DIR else None
    if path is None or not path.exists():
        pytest.skip(f"{name} is not built (VMPACK_BUILD_DIR={BUILD_DIR})")
    return path


#===----------------------------------------------------------------------===#
# safetensors
#===----------------------------------------------------------------------===#

OPEN_WAYS = [dict(), dict(mode="mmap"), dict(mode="read"),
             dict(mode="mmap", verify="full", threads=2),
             dict(mode="read", verify="lazy")]


@pytest.mark.parametrize("options", OPEN_WAYS, ids=str)
def test_safetensors_against_numpy(tmp_path, options):
    path, arrays, i4, bf16 = st_sample(tmp_path)
    with vmpack.open(path, **options) as m:
        assert m.container == "safetensors"
        if "mode" in options:
            assert m.load_mode == options["mode"]
        # What safetensors has no value for is None.
        assert m.name is None and m.producer is None
        assert m.format_version is None
        # The vmpack.type record is applied, not listed.
        assert m.metadata == {"format": "pt", "note": "sp\u00e4ce"}
        assert set(m.metadata_types.values()) == {"string"}
        assert list(m.keys()) == list(arrays) + ["w.i4", "bf16"]
        m.verify()
        for name, want in arrays.items():
            s = m[name]
            assert s.foreign_type is None and s.checksum is None
            assert s.shape == want.shape
            got = m.get_tensor(name)
            if want.dtype == np.bool_:
                # BOOL is i1: numpy.bool_ (a view, below); the integers on
                # request, sign-aware: true is -1 (docs/python.md).
                np.testing.assert_array_equal(s.numpy(dtype="int8"),
                                              -want.astype(np.int8))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
            # Whole-byte types are views of the file's bytes.
            assert not got.flags.writeable and got.base is not None
            assert np.shares_memory(got, np.frombuffer(s.raw, np.uint8))
            assert bytes(s.raw) == want.astype(
                want.dtype.newbyteorder("<")).tobytes()
        w = m["w.i4"]
        assert (w.element_type, w.mlir_type, w.encoding, w.shape) == \
            ("i4", "tensor<3x5xi4>", "packed", (3, 5))
        np.testing.assert_array_equal(m.get_tensor("w.i4"), i4)
        assert m.get_tensor("w.i4").dtype == np.int8
        np.testing.assert_array_equal(w.unpack(dtype="int32"), i4.ravel())
        # The stored bytes, read by the test's reference of docs/packing.md.
        assert widen(patterns(w.raw, "packed", 4, 15), 4, True) == \
            i4.ravel().tolist()
        b = m.get_tensor("bf16")
        assert b.dtype == np.float32
        np.testing.assert_array_equal(b, bf16_to_float32(bf16))


def test_metadata_and_bytes_match_a_json_reader(tmp_path):
    path, arrays, _, _ = st_sample(tmp_path)
    entries, metadata = read_safetensors(path)
    (n,) = struct.unpack_from("<Q", path.read_bytes())
    header = json.loads(path.read_bytes()[8:8 + n])
    with vmpack.open(path) as m:
        for name, (dtype, shape, data) in entries.items():
            assert bytes(m[name].raw) == data, name
            assert m[name].offset == 8 + n + \
                header[name]["data_offsets"][0]
        del metadata["vmpack.type.w.i4"]
        assert m.metadata == metadata


#===----------------------------------------------------------------------===#
# GGUF
#===----------------------------------------------------------------------===#

@pytest.mark.parametrize("options", OPEN_WAYS, ids=str)
def test_gguf_against_numpy(tmp_path, options):
    path, arrays, q4, bf16, expected = gguf_sample(tmp_path)
    with vmpack.open(path, **options) as m:
        assert m.container == "gguf" and m.format_version == 3
        assert {k: (v, m.metadata_types[k]) for k, v in m.metadata.items()} \
            == expected
        assert list(m.metadata) == list(expected)  # file order
        assert json.loads(m.metadata["tokenizer.ggml.tokens"]) == \
            ["<s>", "a\"b", "\u00e9"]
        assert float(m.metadata["llama.rope.freq_base"]) == 10000.0
        m.verify()
        for name, want in arrays.items():
            s = m[name]
            assert s.alignment == 64 and s.offset % 64 == 0
            got = m.get_tensor(name)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            assert np.shares_memory(got, np.frombuffer(s.raw, np.uint8))
        np.testing.assert_array_equal(m.get_tensor("bf16"),
                                      bf16_to_float32(bf16))
        q = m["blk.0.q4"]
        assert (q.foreign_type, q.foreign_type_id, q.foreign_shape) == \
            ("ggml.Q4_0", GGML_Q4_0, (2, 64))
        assert (q.element_type, q.shape, q.encoding) == ("ui8", (72,), "byte")
        assert bytes(q.raw) == q4
        raw = m.get_tensor("blk.0.q4")
        assert raw.dtype == np.uint8 and raw.tobytes() == q4
        assert "ggml.Q4_0" in repr(q)


def test_gguf_with_vmpack_convert(tmp_path):
    """GGUF -> .vmpk and safetensors -> .gguf/.vmpk by vmpack-convert: the
    same tensors, foreign types and metadata through vmpack.open."""
    convert = tool("vmpack-convert")
    path, arrays, q4, bf16, expected = gguf_sample(tmp_path)
    out = tmp_path / "converted.vmpk"
    subprocess.run([str(convert), str(path), "-o", str(out)], check=True,
                   capture_output=True)
    with vmpack.open(out) as m:
        assert m.container == "vmpk"
        m.verify()
        for name, want in arrays.items():
            np.testing.assert_array_equal(m.get_tensor(name), want)
        q = m["blk.0.q4"]
        assert (q.foreign_type, q.foreign_shape) == ("ggml.Q4_0", (2, 64))
        assert bytes(q.raw) == q4
        # String pairs move into .vmpk metadata (docs/interop.md).
        assert m.metadata["general.architecture"] == "llama"
        assert set(m.metadata_types.values()) == {"string"}

    st, st_arrays, i4, _ = st_sample(tmp_path)
    for suffix in (".gguf", ".vmpk"):
        target = tmp_path / ("from-st" + suffix)
        subprocess.run([str(convert), str(st), "-o", str(target)],
                       check=True, capture_output=True)
        with vmpack.open(target) as m:
            assert m.container == suffix[1:]
            for name, want in st_arrays.items():
                got = m.get_tensor(name)
                np.testing.assert_array_equal(got, want, err_msg=name)
            np.testing.assert_array_equal(m.get_tensor("w.i4"), i4)
            assert m.metadata["format"] == "pt"


#===----------------------------------------------------------------------===#
# Load options
#===----------------------------------------------------------------------===#

def aligned_buffer(size, alignment=64):
    raw = np.empty(size + alignment, dtype=np.uint8)
    start = -raw.ctypes.data % alignment
    return raw[start:start + size]


@pytest.mark.parametrize("kind", ["safetensors", "gguf"])
def test_caller_buffer(tmp_path, kind):
    if kind == "gguf":
        path, arrays, *_ = gguf_sample(tmp_path)
    else:
        path, arrays, *_ = st_sample(tmp_path)
    size = path.stat().st_size
    buf = aligned_buffer(size)
    m = vmpack.open(path, mode="read", buffer=buf)
    assert m.load_mode == "read"
    assert buf.tobytes() == path.read_bytes()
    name = next(n for n, a in arrays.items() if a.dtype != np.bool_)
    a = m.get_tensor(name)
    assert np.shares_memory(a, buf)
    m.close()
    del buf  # the module's arrays keep the buffer alive
    np.testing.assert_array_equal(a, arrays[name])

    with pytest.raises(vmpack.BufferTooSmallError):
        vmpack.open(path, mode="read", buffer=aligned_buffer(size - 1))
    with pytest.raises(vmpack.InvalidArgumentError, match="16-byte"):
        vmpack.open(path, mode="read", buffer=aligned_buffer(size + 1)[1:])
    with pytest.raises(vmpack.InvalidArgumentError, match="read"):
        vmpack.open(path, mode="mmap", buffer=aligned_buffer(size))
    with pytest.raises(vmpack.InvalidArgumentError):
        vmpack.open(path, mode="read", buffer=bytes(size + 64))  # read-only


def test_bad_options(tmp_path):
    path, *_ = st_sample(tmp_path)
    with pytest.raises(vmpack.InvalidArgumentError, match="mode"):
        vmpack.open(path, mode="fast")
    with pytest.raises(vmpack.InvalidArgumentError, match="verify"):
        vmpack.open(path, verify="yes")


def test_lazy_verification_of_a_vmpk(tmp_path):
    """verify="lazy" on a .vmpk (from vmpack-convert): a damaged segment
    raises ChecksumError on its first read (numpy, raw, unpack); the
    others stay readable."""
    convert = tool("vmpack-convert")
    st, arrays, *_ = st_sample(tmp_path)
    target = tmp_path / "m.vmpk"
    subprocess.run([str(convert), str(st), "-o", str(target)], check=True,
                   capture_output=True)
    names = list(arrays)
    with vmpack.open(target) as m:
        damaged, offset = names[4], m[names[4]].offset
    data = bytearray(target.read_bytes())
    data[offset] ^= 0xFF
    target.write_bytes(bytes(data))
    for mode in ("mmap", "read"):
        with vmpack.open(target, mode=mode, verify="lazy") as m:
            for read in (lambda s: s.numpy(), lambda s: s.raw,
                         lambda s: s.unpack(dtype="int32"), lambda s:
                         s.verify()):
                with pytest.raises(vmpack.ChecksumError, match=damaged):
                    read(m[damaged])
            np.testing.assert_array_equal(m.get_tensor(names[2]),
                                          arrays[names[2]])
        with pytest.raises(vmpack.ChecksumError):
            vmpack.open(target, mode=mode, verify="full")
        with vmpack.open(target, mode=mode) as m:
            with pytest.raises(vmpack.ChecksumError):
                m.verify()


def test_arrays_outlive_a_closed_gguf(tmp_path):
    path, arrays, q4, *_ = gguf_sample(tmp_path)
    m = vmpack.open(path)
    name = next(iter(arrays))
    a, raw = m.get_tensor(name), m["blk.0.q4"].raw
    m.close()
    with pytest.raises(ValueError, match="closed"):
        m.metadata
    np.testing.assert_array_equal(a, arrays[name])
    assert bytes(raw) == q4


#===----------------------------------------------------------------------===#
# Hostile files
#===----------------------------------------------------------------------===#

def read_everything(m):
    m.metadata, m.metadata_types
    for s in m.values():
        bytes(s.raw)
        for dtype in (None, "int8", "int32", "float32"):
            try:
                s.numpy(dtype)
            except vmpack.UnsupportedError:
                pass
    m.verify()


@pytest.mark.parametrize("kind", ["safetensors", "gguf"])
def test_every_byte_change_and_truncation(tmp_path, kind):
    """No checksums: a changed byte either breaks the structure
    (FormatError; UnsupportedError for a changed GGUF version or byte
    order) or the file opens and reads within its bounds."""
    if kind == "gguf":
        tensors = {"a": (0, (3,), np.arange(3, dtype="<f4").tobytes()),
                   "q": (GGML_Q4_0, (32,), bytes(range(18)))}
        path = write_gguf(tmp_path / "s.gguf", tensors,
                          [("k", GGUF_STRING, "v"),
                           ("n", GGUF_ARRAY, (GGUF_UINT32, [1, 2]))])
    else:
        path = write_safetensors(
            tmp_path / "s.safetensors",
            {"a": np.arange(3, dtype=np.float32),
             "w": ("U8", [2], pack_bits([1, -2, 3], 4))},
            {"vmpack.type.w": "tensor<3xi4>", "k": "v"})
    good = path.read_bytes()
    with vmpack.load(good) as m:
        read_everything(m)
    rejected = 0
    for i in range(len(good)):
        for delta in (1, 0x80):
            bad = bytearray(good)
            bad[i] = (bad[i] + delta) & 0xFF
            try:
                with vmpack.load(bytes(bad)) as m:
                    read_everything(m)
            except vmpack.FormatError as e:
                assert str(e)
                rejected += 1
            except vmpack.UnsupportedError as e:
                assert kind == "gguf" and "GGUF" in str(e), str(e)
                rejected += 1
    assert rejected > 0
    with vmpack.load(good) as m:
        data_end = max(s.offset + s.nbytes for s in m.values())
    # Every tensor's bytes are needed; only GGUF's final padding may go.
    assert len(good) - data_end < (32 if kind == "gguf" else 1)
    for n in range(data_end):
        with pytest.raises(vmpack.FormatError):
            vmpack.load(good[:n])


def test_the_example_script_on_converted_files(tmp_path):
    """examples/python/vmpack_example.py (scripts/demo.sh runs it) prints
    the same weights from a .vmpk and its safetensors and GGUF forms."""
    import sys
    from conftest import SOURCE_DIR
    convert = tool("vmpack-convert")
    module = SOURCE_DIR / "fuzz" / "corpus" / "reader" / "tiny-llama"
    script = SOURCE_DIR / "examples" / "python" / "vmpack_example.py"
    outputs = {}
    for suffix in ("vmpk", "safetensors", "gguf"):
        path = tmp_path / f"tiny.{suffix}"
        subprocess.run([str(convert), str(module), "--from", "vmpk", "-o",
                        str(path)], check=True, capture_output=True)
        out = subprocess.run([sys.executable, script, path,
                              "layers.0.attention.wq"], check=True,
                             capture_output=True, text=True).stdout
        assert out.startswith(suffix + " ")
        outputs[suffix] = [line for line in out.splitlines()
                           if "as numpy" in line or "float16" in line]
        assert len(outputs[suffix]) == 2 and "a view of the file" in out
    assert outputs["vmpk"] == outputs["safetensors"] == outputs["gguf"]
