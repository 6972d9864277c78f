# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""vmpack: module archives (.vmpk), IREE parameter archives (.irpa),
safetensors and GGUF files as numpy arrays, and the compiler.

    import vmpack
    with vmpack.open("llama.vmpk") as m:
        m.verify()                                  # every CRC-32
        w = m.get_tensor("layers.0.attention.wq")   # i4 -> int8, sign-aware
    with vmpack.open("model.gguf", mode="read") as g:
        g.metadata["general.architecture"], g["blk.0.attn_q.weight"].foreign_type
    vmpack.compile("model.mlirbc", "model.vmpk")

A thin layer over the C runtime (include/vmpack/vmpack.h) in the extension
module vmpack._vmpack. docs/python.md is the reference.
"""

import os as _os
import sys as _sys

import numpy as _np

from . import _vmpack
from ._vmpack import (
    BufferTooSmallError,
    ChecksumError,
    Error,
    FormatError,
    InternalError,
    InvalidArgumentError,
    IOError,
    NotFoundError,
    OutOfMemoryError,
    OutOfRangeError,
    UnsupportedError,
)

if _vmpack.HAS_COMPILER:
    from ._vmpack import CompileError
else:

    class CompileError(Error):
        """vmpack.compile failed (this build has no compiler)."""


__all__ = [
    "open", "load", "compile", "Module", "Segment", "Error", "CompileError",
    "InvalidArgumentError", "IOError", "FormatError", "ChecksumError",
    "NotFoundError", "OutOfRangeError", "UnsupportedError",
    "BufferTooSmallError", "OutOfMemoryError", "InternalError",
]

_KIND = _vmpack.SCALAR_KINDS
_INT_KINDS = {_KIND["SIGNLESS_INT"], _KIND["SIGNED_INT"], _KIND["UNSIGNED_INT"],
              _KIND["INDEX"]}
# Float kinds whose bytes are a numpy dtype as they are.
_NATIVE_FLOATS = {_KIND["F16"]: _np.float16, _KIND["F32"]: _np.float32,
                  _KIND["F64"]: _np.float64}
_NATIVE_COMPLEX = {_KIND["F32"]: _np.complex64, _KIND["F64"]: _np.complex128}
# Wider floats the C runtime does not decode.
_UNDECODABLE_FLOATS = {_KIND["F64"], _KIND["F80"], _KIND["F128"]}
_UNPACK_DTYPES = {name: _np.dtype(name) for name in _vmpack.DTYPES}
# Stored bytes are little-endian (docs/packing.md): views need a LE host.
_LITTLE_ENDIAN = _sys.byteorder == "little"


def _native_dtype(kind, bits):
    """The numpy dtype whose bytes are this scalar's stored bytes, or None."""
    if not _LITTLE_ENDIAN:
        return None
    if kind in _INT_KINDS and bits in (8, 16, 32, 64):
        signed = kind != _KIND["UNSIGNED_INT"]
        return _np.dtype(("int" if signed else "uint") + str(bits))
    if kind in _NATIVE_FLOATS:
        return _np.dtype(_NATIVE_FLOATS[kind])
    return None


def _fits(kind, bits, dtype):
    """Whether every value of an integer type is a value of `dtype` (the C
    runtime accepts uiN into intN too, wrapping the upper half)."""
    limit = dtype.itemsize * 8
    return bits < limit if kind == _KIND["UNSIGNED_INT"] else bits <= limit


def _unpack_dtype(kind, bits):
    """The dtype the C runtime unpacks a scalar into by default, or None."""
    if kind in _INT_KINDS:
        for candidate in ("int8", "int16", "int32"):
            if _fits(kind, bits, _UNPACK_DTYPES[candidate]):
                return _UNPACK_DTYPES[candidate]
        return None
    if kind in _UNDECODABLE_FLOATS:
        return None
    return _UNPACK_DTYPES["float32"]


def _decode_name(raw):
    return raw.decode("utf-8", "surrogateescape")


def _encode_name(name):
    if isinstance(name, (bytes, bytearray, memoryview)):
        return bytes(name)
    return str(name).encode("utf-8", "surrogateescape")


class Segment:
    """One constant of a module: a stored segment, or an alias of one.

    Attributes: name, index, shape, mlir_type, element_type, encoding,
    nbytes, offset, alignment, checksum, is_alias, alias_of, source_kind,
    source_key. Byte-level facts (encoding, nbytes, offset, alignment,
    checksum, raw) of an alias are those of the segment it shares.
    """

    def __init__(self, module, info):
        self._module = module
        self._info = info
        self.index = info["index"]
        self.name = _decode_name(info["name"])
        self.shape = info["shape"]
        self.size = info["element_count"]
        self.mlir_type = info["mlir_type"]
        self.element_type = info["element_type"]
        self.encoding = _vmpack.ENCODINGS[info["encoding"]]
        self.nbytes = info["length"]
        self.offset = info["offset"]
        self.alignment = info["alignment"]
        self.checksum = info["checksum"]
        self.is_alias = info["is_alias"]
        self.alias_of = (
            _decode_name(module._handle().info(info["alias_of"])["name"])
            if self.is_alias else None)
        self.source_kind = _vmpack.SOURCE_KINDS.get(info["source_kind"])
        self.source_key = info["source_key"]
        self.scalar_kind = info["scalar_kind"]
        self.scalar_bits = info["scalar_bits"]
        self.is_complex = info["is_complex"]
        # "typed", or for .irpa entries "untyped" (stored bytes) or "splat"
        # (a pattern repeated, no stored bytes); untyped ones have no type:
        # their shape is (nbytes,) and their elements are bytes.
        self.kind = _vmpack.SEGMENT_KINDS[info["kind"]]
        self.splat_pattern = info["splat_pattern"]
        self.metadata = info["metadata"]
        if self.kind != "typed":
            self.shape = (self.nbytes,)
            self.size = self.nbytes
        # A ggml block tensor (GGUF, or a .vmpk segment converted from
        # one): ui8 bytes of shape (nbytes,), with its ggml type
        # ("ggml.Q4_0"), type number and logical shape.
        foreign = module._handle().foreign(self.index)
        self.foreign_type, self.foreign_type_id, self.foreign_shape = \
            foreign if foreign is not None else (None, None, None)

    @property
    def quant_info(self):
        """A quantized segment's scheme (vmpack_segment_quant_info): a dict
        with scheme ("ggml.Q4_K"), ggml_type, block_size, block_bytes,
        shape (the logical shape), element_count, block_count and
        has_fast_kernel; None when the segment is not quantized."""
        return self._module._handle().quant_info(self.index)

    def dequantize(self, dtype="float32", first=0, count=None, out=None,
                   threads=0):
        """A quantized segment's values, exactly as ggml's reference
        dequantize_row_* computes them in float32, then for float16 and
        bfloat16 rounded to nearest even (vmpack_segment_dequantize).

        dtype: "float32", "float16" or "bfloat16" (numpy has no bfloat16:
        the result is then uint16 bit patterns). All elements give an
        array of the logical shape; a range [first, first + count) (in
        row-major order) a 1-D array, or `out` (a writable C-contiguous
        array of that many values of the dtype's size) filled. The GIL is
        released; `threads` 0 uses every hardware thread.
        UnsupportedError for a segment that is not quantized."""
        name = _np.dtype(dtype).name if dtype not in (
            "bfloat16", "bf16") else "bfloat16"
        if name not in _vmpack.FLOAT_TYPES:
            raise UnsupportedError(
                f"segment {self.name!r}: dequantize writes float32, float16 "
                f"or bfloat16, not {name}")
        info = self.quant_info
        if info is None:
            raise UnsupportedError(
                f"segment {self.name!r} is not quantized (use numpy())")
        whole = first == 0 and count is None
        if count is None:
            count = max(info["element_count"] - first, 0)
        storage = _np.dtype(_np.uint16) if name == "bfloat16" else \
            _np.dtype(name)
        if out is None:
            out = _np.empty(count, dtype=storage)
        elif out.dtype.itemsize != storage.itemsize:
            raise InvalidArgumentError(
                f"dequantize: out has dtype {out.dtype}, not {storage}")
        self._module._handle().dequantize(self.index, first, count,
                                          _vmpack.FLOAT_TYPES[name], out,
                                          threads)
        return out.reshape(info["shape"]) if whole else out

    def __repr__(self):
        what = f"alias of {self.alias_of!r}" if self.is_alias else \
            f"{self.encoding}, {self.nbytes} bytes at {self.offset}"
        if self.foreign_type:
            what += f", {self.foreign_type} {self.foreign_shape}"
        return f"<vmpack.Segment {self.name!r} {self.mlir_type} ({what})>"

    def verify(self):
        """Checks this segment's CRC-32 (once per module; later calls give
        the first result): vmpack.ChecksumError if damaged. Files without
        checksums (.irpa, safetensors, GGUF) always pass."""
        self._module._handle().verify_segment(self.index)

    @property
    def raw(self):
        """The stored bytes: a read-only memoryview into the mapped file.

        No copy; it keeps the mapping alive (see Module.close). A splat
        stores no bytes: its raw is the pattern repeated, in new memory."""
        return memoryview(self._module._handle().view(self.index))

    @property
    def natural_dtype(self):
        """The numpy dtype numpy() returns by default, or None if the
        runtime cannot widen this element type (read `raw` then)."""
        if self.kind != "typed":
            return _np.dtype(_np.uint8)
        native = _native_dtype(self.scalar_kind, self.scalar_bits)
        if native is not None:
            if self.is_complex and self.scalar_kind in _NATIVE_COMPLEX:
                return _np.dtype(_NATIVE_COMPLEX[self.scalar_kind])
            return native
        unpacked = _unpack_dtype(self.scalar_kind, self.scalar_bits)
        if unpacked is not None and self.is_complex and unpacked.kind == "f":
            return _np.dtype(_np.complex64)
        return unpacked

    def _zero_copy(self, dtype):
        view = self._module._handle().view(self.index)
        array = view.view(dtype)
        shape = self.shape + ((2,) if self.is_complex and
                              dtype.kind != "c" else ())
        return array.reshape(shape)

    def numpy(self, dtype=None):
        """The elements as a numpy array of this segment's shape.

        dtype=None: byte-aligned integers (8/16/32/64 bits), f16, f32, f64
        and complex<f32>/<f64> are zero-copy read-only views of the mapped
        file; other integers are widened sign-aware (iN, siN, index
        sign-extend, uiN zero-extends) into the smallest of int8/16/32 that
        holds them; other floats of at most 32 bits (f4, f6, f8, bf16, tf32)
        are decoded to float32, complex ones to complex64.

        dtype="int8"|"int16"|"int32"|"float32" asks the C runtime for that
        destination type; a complex element gives two values (real,
        imaginary) on a trailing axis of length 2. A dtype equal to the
        zero-copy one returns the view. Anything else raises
        vmpack.UnsupportedError, as does a type the runtime cannot widen.
        """
        if self.kind != "typed":
            return self._untyped(dtype)
        native = _native_dtype(self.scalar_kind, self.scalar_bits)
        if dtype is None:
            natural = self.natural_dtype
            if natural is None:
                raise UnsupportedError(
                    f"segment {self.name!r}: {self.element_type} has no numpy "
                    "dtype the runtime unpacks into; read Segment.raw")
            if native is not None:
                return self._zero_copy(natural)
            if natural.kind == "c":
                flat = self.unpack(dtype="float32")
                return flat.view(_np.complex64).reshape(self.shape)
            return self.unpack(dtype=natural).reshape(self._value_shape())
        dtype = _np.dtype(dtype)
        if native is not None and dtype == native:
            return self._zero_copy(native)
        return self.unpack(dtype=dtype).reshape(self._value_shape())

    def _untyped(self, dtype):
        """An .irpa entry's bytes, reinterpreted as `dtype` (any numpy
        dtype whose size divides the length; uint8 by default): a view of
        the mapping for stored bytes."""
        data = self._module._handle().view(self.index)
        if dtype is None:
            return data
        dtype = _np.dtype(dtype)
        if dtype.itemsize == 0 or self.nbytes % dtype.itemsize:
            raise InvalidArgumentError(
                f"segment {self.name!r}: {self.nbytes} untyped bytes are not "
                f"a whole number of {dtype.name} ({dtype.itemsize} bytes)")
        return data.view(dtype)

    def _value_shape(self):
        return self.shape + ((2,) if self.is_complex else ())

    def unpack(self, first=0, count=None, dtype="int32", out=None):
        """Elements [first, first + count) through the C runtime's unpack,
        as a 1-D array (two values per complex element): a new one, or
        `out` (a writable C-contiguous array of dtype `dtype` and at least
        that many values) to reuse memory. The GIL is released for outputs
        of RELEASE_GIL_BYTES or more."""
        dtype = _np.dtype(dtype)
        if dtype.name not in _vmpack.DTYPES:
            raise UnsupportedError(
                f"segment {self.name!r}: dtype {dtype.name} is not one of "
                f"{', '.join(_vmpack.DTYPES)} (or the zero-copy dtype "
                f"{_native_dtype(self.scalar_kind, self.scalar_bits)})")
        if self.scalar_kind in _INT_KINDS and dtype.kind == "i" and \
                self.kind == "typed" and \
                not _fits(self.scalar_kind, self.scalar_bits, dtype):
            raise UnsupportedError(
                f"segment {self.name!r}: {self.element_type} does not fit "
                f"{dtype.name}")
        if count is None:
            count = max(self.size - first, 0)
        per = 2 if self.is_complex else 1
        if out is None:
            out = _np.empty(count * per, dtype=dtype)
        elif out.dtype != dtype:
            raise InvalidArgumentError(
                f"unpack: out has dtype {out.dtype}, not {dtype}")
        self._module._handle().unpack(self.index, first, count,
                                      _vmpack.DTYPES[dtype.name], out)
        return out

    def __array__(self, dtype=None, copy=None):
        """np.asarray(segment): numpy() (a view where that is zero-copy)."""
        array = self.numpy()
        if dtype is not None and _np.dtype(dtype) != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array


class Module:
    """An open module archive. Use vmpack.open() or vmpack.load().

    A mapping from constant names to Segments: keys() lists the stored
    segments in file order, then the aliases.
    """

    def __init__(self, handle, path=None):
        self._raw = handle
        self.path = path
        self._segments = None
        self._names = None
        self._metadata_entries = None

    def _handle(self):
        if self._raw.closed:
            raise ValueError(f"vmpack module {self.path or '<memory>'} is "
                             "closed")
        return self._raw

    def _load_names(self):
        h = self._handle()  # raises once closed
        if self._names is None:
            self._segments = [Segment(self, h.info(i)) for i in range(h.count())]
            self._names = {s.name: s for s in self._segments}
        return self._names

    # Module facts.
    @property
    def name(self):
        return self._handle().name

    @property
    def producer(self):
        return self._handle().producer

    @property
    def format_version(self):
        return self._handle().format_version

    @property
    def container(self):
        """The kind of file: "vmpk", "irpa", "safetensors" or "gguf"."""
        return _vmpack.CONTAINERS[self._handle().container()]

    @property
    def load_mode(self):
        """How the bytes got into memory: "mmap" or "read" (also for
        vmpack.load)."""
        mode = self._handle().load_mode()
        return next(k for k, v in _vmpack.LOAD_MODES.items() if v == mode)

    def _metadata(self):
        # Immutable while the module is open: read once (a GGUF vocabulary
        # can be megabytes of text).
        h = self._handle()  # raises once closed
        if self._metadata_entries is None:
            self._metadata_entries = [(_decode_name(k), _decode_name(v), t)
                                      for k, v, t in h.metadata()]
        return self._metadata_entries

    @property
    def metadata(self):
        """The file's key/value metadata as a dict of str to str, in file
        order: a .vmpk module's metadata, a safetensors __metadata__, or
        every GGUF key/value pair as text (strings as they are, other
        values as JSON that json.loads reads; metadata_types gives their
        GGUF types). Empty for .irpa."""
        return {k: v for k, v, _ in self._metadata()}

    @property
    def metadata_types(self):
        """The type of each metadata value: "string" for .vmpk and
        safetensors; GGUF's "uint32", "float32", "array<string>", ..."""
        return {k: t for k, _, t in self._metadata()}

    @property
    def program(self):
        """The program entry (MLIR bytecode), a read-only memoryview.
        vmpack.UnsupportedError for an .irpa, which has none."""
        return memoryview(self._handle().program())

    # The mapping.
    def keys(self):
        return list(self._load_names())

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self._load_names())

    def __contains__(self, name):
        return name in self._load_names()

    def values(self):
        self._load_names()
        return list(self._segments)

    def items(self):
        return list(self._load_names().items())

    def __getitem__(self, name):
        names = self._load_names()
        if isinstance(name, str) and name in names:
            return names[name]
        index = self._handle().find(_encode_name(name))  # NotFoundError
        return self._segments[index]

    def get_tensor(self, name, dtype=None, dequantize=False):
        """self[name].numpy(dtype): see Segment.numpy. dequantize=True: a
        quantized segment's values instead (Segment.dequantize, dtype
        float32 unless given); other segments as numpy(dtype)."""
        segment = self[name]
        if dequantize and segment.quant_info is not None:
            return segment.dequantize("float32" if dtype is None else dtype)
        return segment.numpy(dtype)

    def verify(self, threads=0):
        """Full verification: every CRC-32, all padding, every byte of the
        file accounted for; raises vmpack.ChecksumError naming the damaged
        entry. threads=0 uses one per core. Runs without the GIL. An .irpa
        has no checksums: its layout is checked (vmpack.FormatError)."""
        self._handle().verify(threads)

    def close(self):
        """Closes the module. Arrays and memoryviews already handed out stay
        valid: the file stays mapped until the last of them is gone. Every
        later call on the module or its Segments raises ValueError."""
        self._raw.close()

    @property
    def closed(self):
        return self._raw.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        if self.closed:
            return f"<vmpack.Module {self.path or '<memory>'} (closed)>"
        return (f"<vmpack.Module {self.name!r} ({len(self)} constants) "
                f"from {self.path or '<memory>'}>")


def open(path, mode="auto", verify="structure", threads=0, buffer=None):
    """Opens the file at `path` (str or os.PathLike) and checks its
    structure (time proportional to the index, not the data): a .vmpk
    module archive, an IREE parameter archive (.irpa), a safetensors or a
    GGUF file, told apart by their first bytes. The first file of a
    sharded set (NAME-00001-of-0000N.vmpk or .gguf, a safetensors
    NAME.safetensors.index.json or first shard) opens the whole set as one
    module; another file of a set raises vmpack.UnsupportedError naming
    the first.

    mode: "mmap" maps the file; "read" reads it into memory (computing its
    CRC-32 on the way, so a full verification costs little); "auto" (the
    default) reads on network and user-space file systems, maps elsewhere
    (VMPACK_LOAD_MODE=mmap|read|auto overrides "auto").
    verify: "structure" (the default); "full" checks every CRC-32 before
    returning (vmpack.ChecksumError); "lazy" checks each segment's CRC-32
    the first time its bytes are read (numpy, raw, unpack).
    threads: for "full" verification of a mapped file (0: one per core).
    buffer: with mode="read", a writable C-contiguous buffer (bytearray,
    numpy array, ...) at least the file's size and 16-byte aligned to read
    the file into; the module keeps it (and it cannot be resized) until the
    module and every array over it are gone.

    Raises vmpack.IOError if the file cannot be read, vmpack.FormatError if
    it is not valid, vmpack.InvalidArgumentError for bad options."""
    path = _os.fspath(path)
    if isinstance(path, bytes):
        path = _os.fsdecode(path)
    if mode not in _vmpack.LOAD_MODES:
        raise InvalidArgumentError(
            f"vmpack.open: mode {mode!r} is not one of "
            f"{', '.join(_vmpack.LOAD_MODES)}")
    if verify not in _vmpack.VERIFY_MODES:
        raise InvalidArgumentError(
            f"vmpack.open: verify {verify!r} is not one of "
            f"{', '.join(_vmpack.VERIFY_MODES)}")
    if buffer is not None:
        if mode != "read":
            raise InvalidArgumentError(
                "vmpack.open: a buffer needs mode=\"read\"")
        if memoryview(buffer).readonly:
            raise InvalidArgumentError(
                "vmpack.open: the buffer must be writable")
    return Module(_vmpack.Module.open_file(
        path, _vmpack.LOAD_MODES[mode], _vmpack.VERIFY_MODES[verify],
        int(threads), buffer), path)


def load(data):
    """Opens a module from a bytes-like object (copied once into an
    aligned buffer the module owns)."""
    return Module(_vmpack.Module.open_memory(data))


def compile(input, output, encoding="packed", alignment=64, threads=0,
            module_name=None, dedup="resources", zero_fill_elided=False,
            strip_debuginfo=False, allow_unregistered_dialect=True,
            fsync=False):
    """Compiles an MLIR module (.mlir or .mlirbc) into a module archive, as
    vmpack-compile does (same options, same bytes). The output is written
    to a temporary file and renamed; on error nothing is written and
    vmpack.CompileError carries the diagnostics. Runs without the GIL."""
    if not _vmpack.HAS_COMPILER:
        raise UnsupportedError(
            "vmpack.compile: this vmpack was built without MLIR "
            "(-DVMPACK_ENABLE_MLIR=OFF)")
    _vmpack.compile(_os.fsdecode(_os.fspath(input)),
                    _os.fsdecode(_os.fspath(output)), encoding,
                    int(alignment), int(threads), module_name or "", dedup,
                    bool(zero_fill_elided), bool(strip_debuginfo),
                    bool(allow_unregistered_dialect), bool(fsync))
