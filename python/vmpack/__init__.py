# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""vmpack: module archives (.vmpk), IREE parameter archives (.irpa),
safetensors and GGUF files as numpy arrays, and the compiler.

    import vmpack
    with vmpack.open("llama.vmpk") as m:            # any of the four formats
        m.verify()                                  # every CRC-32
        w = m.get_tensor("layers.0.attention.wq")   # i4 -> int8, sign-aware
        mask = m["mask"].numpy()                    # i1 -> numpy.bool_
        for name, segment in m.items(): ...         # a Mapping of Segments
    with vmpack.open("model.gguf", mode="read") as g:
        g.metadata["general.architecture"], g["blk.0.attn_q.weight"].foreign_type
    vmpack.compile("model.mlirbc", "model.vmpk")

Functions:
    vmpack.open(path, mode="auto", verify="structure", threads=0,
                buffer=None)   opens a file (or the first file of a set)
    vmpack.load(data)          opens a file's bytes
    vmpack.compile(input, output, ...)   MLIR in, a module archive, .irpa,
                               safetensors or GGUF out (builds with MLIR)
    vmpack.convert(inputs, output, ...)  between weight file formats, as
                               vmpack-convert does (same bytes)
    vmpack.save_file(tensors, path, metadata=None, format=None,
                     alignment=None, quant=None)   numpy arrays (and
                               planar weights) to any of those formats

Classes:
    Tensor    an array with the type to save it as: Tensor(a, type="i4")
    PlanarWeight   a ggml-quantized weight as numpy arrays of its codes and
              scales (q, d, m, sd, sm): Segment.planar() reads one from
              ggml blocks, save_file writes one as its planar set or joined
              into ggml blocks (PLANAR_TYPES lists every type's parts)
    Module    an open file: a collections.abc.Mapping of names to Segments,
              with name, container, metadata, program, verify(), close()
    Segment   one tensor: shape, element_type, encoding, raw bytes, and
              numpy(dtype=None), which gives zero-copy views where the
              stored bytes are a numpy array, else the values widened;
              for ggml blocks dequantize() and planar()
    Error     the base of every exception; one subclass per C status
              (FormatError, ChecksumError, NotFoundError, ...), each also a
              built-in exception (ValueError, KeyError, ...)

An attribute a format has no value for is None (a safetensors file's
checksums, an .irpa entry's element type). A thin layer over the C
runtime (include/vmpack/vmpack.h) in the extension module vmpack._vmpack;
docs/python.md is the reference. __version__ is vmpack's version.
"""

import collections.abc as _abc
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


__version__ = _vmpack.VERSION

__all__ = [
    "__version__",
    "open", "load", "compile", "convert", "save_file", "Tensor",
    "PlanarWeight", "PLANAR_TYPES", "Module", "Segment", "Error",
    "CompileError",
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


# Float element kinds as numbers: (significand bits after the point,
# smallest positive value (a subnormal where the type has them), largest
# finite value), from each type's definition (MLIR's APFloat semantics;
# docs/packing.md section 4). A numpy float dtype holds every value of one
# exactly when it has at least as many significand bits, reaches as small
# and as large; NaN and infinities, where the type has them, exist in
# every numpy float.
_FLOAT_RANGES = {
    _KIND["F4E2M1FN"]: (1, 2.0**-1, 6.0),
    _KIND["F6E2M3FN"]: (3, 2.0**-3, 7.5),
    _KIND["F6E3M2FN"]: (2, 2.0**-4, 28.0),
    _KIND["F8E5M2"]: (2, 2.0**-16, 57344.0),
    _KIND["F8E4M3"]: (3, 2.0**-9, 240.0),
    _KIND["F8E4M3FN"]: (3, 2.0**-9, 448.0),
    _KIND["F8E5M2FNUZ"]: (2, 2.0**-17, 57344.0),
    _KIND["F8E4M3FNUZ"]: (3, 2.0**-10, 240.0),
    _KIND["F8E4M3B11FNUZ"]: (3, 2.0**-13, 30.0),
    _KIND["F8E3M4"]: (4, 2.0**-6, 15.5),
    _KIND["F8E8M0FNU"]: (0, 2.0**-127, 2.0**127),
    _KIND["BF16"]: (7, 2.0**-133, float(_np.finfo(_np.float32).max) *
                    (1 - 2.0**-8) / (1 - 2.0**-24)),
    _KIND["F16"]: (10, 2.0**-24, 65504.0),
    _KIND["TF32"]: (10, 2.0**-136, float(_np.finfo(_np.float32).max) *
                    (1 - 2.0**-11) / (1 - 2.0**-24)),
    _KIND["F32"]: (23, 2.0**-149, float(_np.finfo(_np.float32).max)),
    _KIND["F64"]: (52, 5e-324, float(_np.finfo(_np.float64).max)),
}


def _float_holds(dtype, kind):
    """Whether numpy float (or complex: its parts) dtype `dtype` holds
    every value of float kind `kind` exactly."""
    if kind not in _FLOAT_RANGES:
        return False  # f80, f128: wider than what is decoded
    bits, smallest, largest = _FLOAT_RANGES[kind]
    info = _np.finfo(dtype)
    return (info.nmant >= bits and
            float(info.smallest_subnormal) <= smallest and
            float(info.max) >= largest)


def _integer_holds(dtype, kind, bits):
    """Whether numpy dtype `dtype` holds every value of an integer of
    `bits` bits of `kind` exactly (iN and siN signed, uiN unsigned,
    index 64-bit signed; i1 is -1 and 0 as a number)."""
    signed = kind != _KIND["UNSIGNED_INT"]
    if dtype.kind == "i":
        return bits <= dtype.itemsize * 8 - (0 if signed else 1)
    if dtype.kind == "u":
        return not signed and bits <= dtype.itemsize * 8
    if dtype.kind in "fc":
        # Every integer of magnitude up to 2**(nmant + 1) is a float.
        magnitude = bits - 1 if signed else bits
        return magnitude <= _np.finfo(dtype).nmant + 1
    return False


def _decode_name(raw):
    return raw.decode("utf-8", "surrogateescape")


def _encode_name(name):
    if isinstance(name, (bytes, bytearray, memoryview)):
        return bytes(name)
    return str(name).encode("utf-8", "surrogateescape")


class Segment:
    """One constant of a module: a stored segment, or an alias of one.

    Attributes: name, index, shape, size, mlir_type, element_type,
    encoding, nbytes, offset, alignment, checksum, is_alias, alias_of,
    source_kind, source_key, kind, splat_pattern, metadata, foreign_type,
    foreign_type_id, foreign_shape. Byte-level facts (encoding, nbytes,
    offset, alignment, checksum, raw) of an alias are those of the segment
    it shares. An attribute the file's format has no value for is None:
    checksum for .irpa, safetensors and GGUF (they have no checksums),
    mlir_type, element_type and the scalar facts of an .irpa entry (it has
    no element type), source_kind and source_key outside .vmpk, a splat's
    alignment (it stores no bytes).
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
        container = module.container
        if container != "vmpk":
            self.checksum = None
            self.source_kind = None
            self.source_key = None
        if self.kind != "typed":
            self.mlir_type = None
            self.element_type = None
            self.scalar_kind = None
            self.scalar_bits = None
        if self.kind == "splat":
            self.alignment = None

    @property
    def _is_bool(self):
        """i1 (and safetensors BOOL, which is i1): numpy.bool_ elements."""
        return self.kind == "typed" and not self.is_complex and \
            self.scalar_kind == _KIND["SIGNLESS_INT"] and self.scalar_bits == 1

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

    def planar(self):
        """A ggml block segment in its planar form (docs/quant.md, section
        4): a PlanarWeight of its codes q (the weight's logical shape),
        scales d and, where the type has them, minimums m and sub-block
        scales and minimums sd and sm, each a new numpy array of the
        values widened (siN into int8, uiN into uint8, f16 as float16,
        MXFP4's E8M0 scales and E2M1 codes, NVFP4's E2M1 codes into
        float32; NVFP4's UE4M3 scale bytes are ui8, so uint8). The blocks
        are split by the Quant layer's ggmlToPlanar, a batch at a time,
        without the GIL; the parts are the only memory allocated.

        Every bit of a block lands in one part, so save_file(..,
        quant="ggml") gives the blocks back byte for byte.
        vmpack.UnsupportedError names the segment when it is not ggml
        blocks or its type has no planar form (Q8_1, Q8_K, the grid and
        ternary types, Q1_0, Q2_0: PLANAR_TYPES lists those that have)."""
        info = self.quant_info
        if info is None or not str(info["scheme"]).startswith("ggml."):
            raise UnsupportedError(
                f"segment {self.name!r} is not ggml blocks (planar() splits "
                "a GGUF block tensor, or a .vmpk segment converted from one)")
        if not _LITTLE_ENDIAN:
            raise UnsupportedError(
                f"segment {self.name!r}: planar() needs a little-endian host")
        blocks = self._module._handle().view(self.index)
        parts = _vmpack.ggml_to_planar(info["ggml_type"], blocks,
                                       list(info["shape"]), self.name)
        type_name = _PLANAR_BY_NUMBER[info["ggml_type"]]
        suffixes = [part[0] for part in PLANAR_TYPES[type_name]["parts"]]
        return PlanarWeight(type_name, **dict(zip(suffixes, parts)))

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
        if self._is_bool:
            return _np.dtype(_np.bool_)
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
        file; i1 (safetensors BOOL) is numpy.bool_, zero-copy where it is
        stored one byte per element (the word and byte encodings) and every
        byte is 0 or 1; other integers are widened sign-aware (iN, siN,
        index sign-extend, uiN zero-extends) into the smallest of
        int8/16/32 that holds them; other floats of at most 32 bits (f4,
        f6, f8, bf16, tf32) are decoded to float32, complex ones to
        complex64.

        dtype="int8"|"int16"|"int32"|"float32" asks the C runtime for that
        destination type (i1 into int8 is -1 for true); a complex element
        gives two values (real, imaginary) on a trailing axis of length 2.
        Any other numpy dtype that holds every value of the element type
        exactly is the default array converted (float64 for f16, int64 for
        i4, float32 for i16, numpy.bool_ only for i1). A dtype equal to the
        zero-copy one returns the view. Anything else raises
        vmpack.UnsupportedError, as does a type the runtime cannot widen.
        """
        if self.kind != "typed":
            return self._untyped(dtype)
        natural = self.natural_dtype
        if dtype is None or (natural is not None and
                             _np.dtype(dtype) == natural):
            if natural is None:
                raise UnsupportedError(
                    f"segment {self.name!r}: {self.element_type} has no numpy "
                    "dtype the runtime unpacks into; read Segment.raw")
            return self._natural(natural)
        dtype = _np.dtype(dtype)
        native = _native_dtype(self.scalar_kind, self.scalar_bits)
        if native is not None and dtype == native:
            return self._zero_copy(native)
        integer = self.scalar_kind in _INT_KINDS
        if dtype.name in _vmpack.DTYPES and (
                (integer and dtype.kind == "i") or
                (not integer and dtype.name == "float32")):
            return self.unpack(dtype=dtype).reshape(self._value_shape())
        if natural is not None and self._holds_exactly(dtype):
            values = self._natural(natural)
            if self._is_bool and dtype.kind != "b":
                values = self.unpack(dtype="int8").reshape(self.shape)
            return values.astype(dtype)
        raise UnsupportedError(
            f"segment {self.name!r}: {self.element_type} has values that "
            f"{dtype.name} does not hold exactly (or the runtime cannot "
            "widen it)")

    def _holds_exactly(self, dtype):
        """Whether `dtype` holds every value of the element type exactly."""
        kind, bits = self.scalar_kind, self.scalar_bits
        if dtype.kind == "b":
            return self._is_bool
        if self.is_complex:
            # Only complex floats go to a complex dtype (integer parts keep
            # their trailing axis of two).
            return dtype.kind == "c" and kind not in _INT_KINDS and \
                _float_holds(dtype, kind)
        if kind in _INT_KINDS:
            return _integer_holds(dtype, kind, bits)
        return dtype.kind in "fc" and _float_holds(dtype, kind)

    def _natural(self, natural):
        """The array numpy() gives by default (`natural`: natural_dtype)."""
        if self._is_bool:
            return self._bool_array()
        native = _native_dtype(self.scalar_kind, self.scalar_bits)
        if native is not None:
            return self._zero_copy(natural)
        if natural.kind == "c":
            flat = self.unpack(dtype="float32")
            return flat.view(_np.complex64).reshape(self.shape)
        return self.unpack(dtype=natural).reshape(self._value_shape())

    def _bool_array(self):
        """i1 as numpy.bool_: a view of bytes that are each 0 or 1, else the
        unpacked elements (the bit of each element only, as unpacking reads
        them: docs/packing.md) compared with zero."""
        if self.encoding in ("word", "byte") and self.nbytes == self.size:
            stored = self._zero_copy(_np.dtype(_np.uint8))
            if not (stored > 1).any():
                return stored.view(_np.bool_)
        return self.unpack(dtype="int8").reshape(self.shape) != 0

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


class Module(_abc.Mapping):
    """An open module archive, .irpa, safetensors or GGUF file. Use
    vmpack.open() or vmpack.load().

    A collections.abc.Mapping from constant names to Segments: keys()
    lists the stored segments in file order, then the aliases; get(),
    items(), values(), len(), `in` and iteration work as for a dict.
    m[name] raises vmpack.NotFoundError (a KeyError) for a name it does not
    have.
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
        """The module's name; None for .irpa, safetensors and GGUF, which
        have none (GGUF's general.name is in metadata)."""
        return self._handle().name if self.container == "vmpk" else None

    @property
    def producer(self):
        """The tool that wrote a .vmpk; None for the other formats."""
        return self._handle().producer if self.container == "vmpk" else None

    @property
    def format_version(self):
        """The file's format version: a .vmpk's, an .irpa's major version
        (0), a GGUF file's (2 or 3); None for safetensors, which has
        none."""
        if self.container == "safetensors":
            return None
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

    # The mapping (collections.abc.Mapping gives keys, items, values, get,
    # __eq__ from these).
    def __iter__(self):
        """The names: stored segments in file order, then the aliases."""
        return iter(list(self._load_names()))

    def __len__(self):
        """How many constants (segments and aliases)."""
        return len(self._load_names())

    def __contains__(self, name):
        """Whether a constant is named `name` (str, or bytes)."""
        names = self._load_names()
        if isinstance(name, str):
            return name in names
        try:
            self[name]
        except KeyError:
            return False
        return True

    def keys(self):
        """A view of the names (stored segments in file order, then the
        aliases)."""
        self._load_names()  # raises once closed
        return _abc.KeysView(self)

    def values(self):
        """A view of the Segments, in the order of keys()."""
        self._load_names()
        return _abc.ValuesView(self)

    def items(self):
        """A view of (name, Segment) pairs, in the order of keys()."""
        self._load_names()
        return _abc.ItemsView(self)

    # Modules compare (and hash) by identity, not as mappings do.
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__

    def __getitem__(self, name):
        """The Segment named `name` (str, or bytes for exact bytes);
        vmpack.NotFoundError (a KeyError) if there is none."""
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
        """Whether close() was called."""
        return self._raw.closed

    def __enter__(self):
        """`with vmpack.open(...) as m:` closes m at the end."""
        return self

    def __exit__(self, *exc):
        """Closes the module."""
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


def _output_path(function, output):
    """`output` as a str path; '-' (standard output on the tools' command
    lines) is refused: a Python output is a file, and sys.stdout may be a
    notebook's, a test's capture or a StringIO, which bytes written to
    fd 1 would bypass."""
    path = _os.fsdecode(_os.fspath(output))
    if path == "-":
        raise InvalidArgumentError(
            "vmpack.%s: output '-': standard output is the command-line "
            "tools' -o -, not a Python path; write a file (its bytes are "
            "the tool's) and copy it to sys.stdout.buffer, or name a file "
            "called '-' as './-'" % function)
    return path


def compile(input, output, encoding=None, alignment=None, threads=0,
            module_name=None, dedup=None, zero_fill_elided=False,
            strip_debuginfo=False, allow_unregistered_dialect=True,
            fsync=False, format=None, emit_program=None,
            parameter_scope=None, parameter_minimum_size=0):
    """Compiles an MLIR module (.mlir or .mlirbc) as vmpack-compile does
    (same options, same bytes): into the format `format` names ("vmpk",
    "irpa", "safetensors", "gguf"), by default the one output's extension
    names (.vmpk, .irpa, .safetensors, .gguf: the tools' one table; any
    other extension raises vmpack.InvalidArgumentError listing these).
    encoding ("packed" by default, "word", "byte"), alignment (64 by
    default), dedup ("resources" by default, "off", "content") and
    module_name are the archive's: given for another format, they raise
    vmpack.InvalidArgumentError, as vmpack-compile refuses them; so does
    fsync for .safetensors and .gguf. emit_program also writes the
    program that remains (.vmpk and .irpa outputs; .mlirbc: bytecode,
    else text); parameter_scope and parameter_minimum_size are the .irpa
    export's (an error for other outputs). An output (or emit_program)
    that is the input under any name is refused, and so is "-" (standard
    output is the tools' -o -; docs/python.md). The output is written to
    a temporary file and renamed; on error nothing is written and
    vmpack.CompileError carries the diagnostics (an error without a source
    location as "vmpack.compile: error: ..."). Runs without the GIL."""
    if not _vmpack.HAS_COMPILER:
        raise UnsupportedError(
            "vmpack.compile: this vmpack was built without MLIR "
            "(-DVMPACK_ENABLE_MLIR=OFF)")
    _vmpack.compile(_os.fsdecode(_os.fspath(input)),
                    _output_path("compile", output), encoding or "",
                    None if alignment is None else int(alignment),
                    int(threads),
                    module_name or "", dedup or "",
                    bool(zero_fill_elided), bool(strip_debuginfo),
                    bool(allow_unregistered_dialect), bool(fsync),
                    format or "",
                    _os.fsdecode(_os.fspath(emit_program)) if emit_program
                    else "", parameter_scope or "",
                    int(parameter_minimum_size))


def convert(inputs, output, *, from_format=None, format=None, alignment=None,
            max_shard_size=None, module_name=None, encoding=None, dense=False,
            dequant_split=False, dequantize=None, scheme=None, quant=None,
            allow_rounding=False, tokenizer_pre=None, no_vocab=False,
            onnx_template=None, onnx_inline=False, threads=None):
    """Converts weight files as vmpack-convert does: the same function
    (tools::convertFiles), the same options, the same bytes. `inputs` is a
    path or a list of paths (a set by its first file or its index);
    `output` a path, written through a temporary file and a rename, its
    format the one its extension names unless `format` ("vmpk",
    "safetensors", "gguf", "irpa", "onnx", "mlir", "mlirbc") says.
    The keywords are vmpack-convert's flags: from_format (--from),
    alignment, max_shard_size (bytes, or a size such as "500MB"),
    module_name, encoding, dense, dequant_split, dequantize ("f32", "f16",
    "bf16"), scheme, quant, allow_rounding, tokenizer_pre, no_vocab,
    onnx_template, onnx_inline, threads (the threads that decode
    dequantize's floats: ggml blocks, ONNX MatMulNBits and 4-bit
    DequantizeLinear weights, Hugging Face checkpoints' linears; 0 all
    cores to 1024; None: one; refused without dequantize). An option that does not apply to the output raises
    vmpack.InvalidArgumentError; a failed conversion raises the error of
    its kind and writes nothing. An output that is an input under any name,
    and "-" (standard output is the tools' -o -), raise
    vmpack.InvalidArgumentError. Returns a dict: format, files (the files
    written), tensors, input_files, summary and warnings (lines the tool
    would print). Runs without the GIL."""
    if isinstance(inputs, (str, bytes, _os.PathLike)):
        inputs = [inputs]
    paths = [_os.fsdecode(_os.fspath(p)) for p in inputs]
    options = dict(from_format=from_format, format=format,
                   alignment=alignment, module_name=module_name,
                   encoding=encoding, dense=bool(dense),
                   dequant_split=bool(dequant_split), dequantize=dequantize,
                   scheme=scheme, quant=quant,
                   allow_rounding=bool(allow_rounding),
                   tokenizer_pre=tokenizer_pre,
                   no_vocab=bool(no_vocab), onnx_inline=bool(onnx_inline),
                   max_shard_size=max_shard_size,
                   threads=None if threads is None else int(threads),
                   onnx_template=_os.fsdecode(_os.fspath(onnx_template))
                   if onnx_template is not None else None)
    return _vmpack.convert(paths, _output_path("convert", output), options)


class Tensor:
    """A numpy array with the MLIR element type to save it as, for types
    numpy has no dtype for: vmpack.Tensor(array, type="si3"). The array
    holds the values widened (integers in any integer dtype, floats in
    float16, float32 or float64); save_file checks that each is a value of
    the type. The same as the tuple (array, "si3")."""

    __slots__ = ("array", "type")

    def __init__(self, array, type=None):
        self.array = array
        self.type = type

    def __repr__(self):
        a = _np.asarray(self.array)
        return "vmpack.Tensor(shape=%s, dtype=%s, type=%r)" % (
            tuple(a.shape), a.dtype, self.type)


# The planar form of every ggml type that has one, from the Quant layer's
# one table (quant::ggmlPlanarParts, through the extension): for each
# type's name, its number ("type"), block_size, block_bytes and parts, a
# tuple of (suffix, MLIR element type, bits, values per block, the numpy
# dtype Segment.planar widens the part into), codes first.
PLANAR_TYPES = _vmpack.PLANAR_TYPES
_PLANAR_BY_NUMBER = {t["type"]: name for name, t in PLANAR_TYPES.items()}
_PLANAR_SUFFIXES = ("q", "d", "m", "sd", "sm")


class PlanarWeight:
    """A quantized weight in the planar form of a ggml type (docs/quant.md,
    section 4): its parts as numpy arrays of their values.

        w = vmpack.PlanarWeight("Q4_K", q=codes, d=scales, m=minimums,
                                sd=sub_scales, sm=sub_minimums)

    ggml_type: ggml's name for the type, in any case ("Q4_0", "q4_k",
    "MXFP4"). Which parts the type has, their MLIR element types and values
    per block are PLANAR_TYPES[ggml_type]["parts"] (part_types gives the
    element types): q, the codes, of the weight's logical shape [..., K]
    (K a multiple of the block size); d, the scales; m, the minimums
    (Q4_1, Q5_1, Q2_K, Q4_K, Q5_K); sd and sm, the K-quants' integer
    sub-block scales and minimums. A part of n values per block has shape
    [..., K / block_size * n].

    Each part holds its values widened, as save_file's (array, "TYPE")
    convention does: integer parts (siN, uiN) in any integer dtype
    (Segment.planar gives int8 and uint8), f16 scales in float16 (written
    from the array itself) or any float dtype holding them exactly, E8M0
    scales (MXFP4's d: powers of two) and E2M1 codes in a float dtype
    (float32 from Segment.planar). So for Q4_0 the value of element i is
    float32(q[i]) * float32(d[i // 32]); docs/quant.md's table gives every
    type's formula.

    The constructor checks nothing: save_file checks the type, every part
    (present, of its shape, values in range) and names the tensor."""

    __slots__ = ("ggml_type", "q", "d", "m", "sd", "sm")

    def __init__(self, ggml_type, q, d, m=None, sd=None, sm=None):
        self.ggml_type = ggml_type
        self.q, self.d, self.m, self.sd, self.sm = q, d, m, sd, sm

    @property
    def shape(self):
        """The weight's logical shape: the shape of q."""
        return tuple(_np.shape(self.q))

    @property
    def parts(self):
        """The parts given, by suffix ("q", "d", "m", "sd", "sm"), in that
        order."""
        return {s: getattr(self, s) for s in _PLANAR_SUFFIXES
                if getattr(self, s) is not None}

    @property
    def part_types(self):
        """The MLIR element type of each part of ggml_type's planar form,
        by suffix (PLANAR_TYPES); vmpack.InvalidArgumentError when
        ggml_type names no type with a planar form."""
        name = _planar_type_name(self.ggml_type, None)
        return {part[0]: part[1] for part in PLANAR_TYPES[name]["parts"]}

    def __repr__(self):
        parts = ", ".join(
            "%s=%s%s" % (s, _np.asarray(a).dtype, list(_np.shape(a)))
            for s, a in self.parts.items())
        return "vmpack.PlanarWeight(%r, %s)" % (self.ggml_type, parts)


def _planar_type_name(ggml_type, tensor):
    """The canonical name of a type with a planar form (PLANAR_TYPES), or
    vmpack.InvalidArgumentError naming `tensor`."""
    found = _vmpack.ggml_type(ggml_type) if isinstance(ggml_type, str) \
        else None
    if found is not None and found[0] in PLANAR_TYPES:
        return found[0]
    where = "tensor %r: " % tensor if tensor is not None else \
        "vmpack.PlanarWeight: "
    what = ("ggml %s has no planar form" % found[0] if found is not None
            else "%r is not the name of a ggml type" % (ggml_type,))
    raise InvalidArgumentError(
        "%s%s; the types with a planar form are %s (docs/quant.md, "
        "section 4)"
        % (where, what, ", ".join(PLANAR_TYPES)))


def _planar_entries(name, weight):
    """The save_file entries of a PlanarWeight's parts NAME.q, NAME.d, ...
    (each typed from PLANAR_TYPES; a part the type lacks is passed on
    untyped, for save_file's check to name), and (NAME, its type)."""
    if not isinstance(name, str):
        raise TypeError("vmpack.save_file: tensor names are str, not %s"
                        % type(name).__name__)
    type_name = _planar_type_name(weight.ggml_type, name)
    types = {part[0]: part[1] for part in PLANAR_TYPES[type_name]["parts"]}
    entries = [_save_entry("%s.%s" % (name, suffix),
                           Tensor(array, types.get(suffix)))
               for suffix, array in weight.parts.items()]
    return entries, (name, type_name)


def _save_entry(name, value):
    """(name, C-contiguous little-endian array, type or None) for the
    extension. Only an array that is not C-contiguous or not little-endian
    is copied (once); every other array is written from its own buffer."""
    if not isinstance(name, str):
        raise TypeError("vmpack.save_file: tensor names are str, not %s"
                        % type(name).__name__)
    type_ = None
    if isinstance(value, Tensor):
        value, type_ = value.array, value.type
    elif isinstance(value, tuple):
        if len(value) != 2 or not isinstance(value[1], str):
            raise TypeError("vmpack.save_file: tensor %r: a tuple is "
                            "(array, \"TYPE\")" % name)
        value, type_ = value
    if type_ is not None and not isinstance(type_, str):
        raise TypeError("vmpack.save_file: tensor %r: the type is a str "
                        "such as \"i4\"" % name)
    array = _np.asarray(value)
    if array.dtype.byteorder == ">" or (array.dtype.byteorder == "=" and
                                        not _LITTLE_ENDIAN):
        array = array.astype(array.dtype.newbyteorder("<"))
    if array.dtype.kind not in "biufc":
        raise UnsupportedError(
            "tensor %r: numpy dtype %s holds no numbers vmpack writes"
            % (name, array.dtype))
    if not array.flags.c_contiguous:
        array = array.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)
    return (name, array, type_)


def save_file(tensors, path, metadata=None, format=None, alignment=None,
              quant=None):
    """Writes numpy arrays to a weight file, as safetensors' save_file
    does: `tensors` maps names to arrays, written in the mapping's order.

    The format is the one `path`'s extension names (.vmpk, .safetensors,
    .gguf, .irpa, .mlir, .mlirbc, .onnx), or `format` ("vmpk",
    "safetensors", "gguf", "irpa", "mlir", "mlirbc", "onnx"). The writers,
    layouts and metadata are vmpack-convert's (tools::writeTensorFile):
    what vmpack-convert writes from a file, save_file writes from arrays.

    Element types: each array's dtype gives one (bool -> i1, int8 -> i8,
    uint16 -> ui16, float16 -> f16, float32 -> f32, float64 -> f64,
    complex64 -> complex<f32>, complex128 -> complex<f64>). A type numpy
    lacks is named with the array: (array, "i4"), (array, "f4E2M1FN") or
    vmpack.Tensor(array, type="si3"), any MLIR element type of at most 64
    bits (32 for floats, complex<...> of floats). The array holds the
    values widened (i4 in int8, f8E4M3FN or bf16 in float32, ...), and
    every value must be one of the type: integers in its range (iN and
    siN -2^(N-1) to 2^(N-1)-1, uiN 0 to 2^N-1; i1 also takes 1 and -1 for
    true), floats held exactly (no rounding; any NaN is the type's NaN,
    where it has one). Otherwise vmpack.InvalidArgumentError names the
    tensor, the value and its index, and nothing is written.

    Memory: an array whose bytes are the stored bytes is written from its
    own buffer, without a copy; others are encoded while the file is
    written, a few MiB at a time. Only an array that is not C-contiguous
    or is big-endian is copied first. A planar weight's parts are arrays
    like any other (float16 scales written from their own buffers, codes
    encoded while written); joined into ggml blocks, they are read 1024
    blocks at a time, so nothing the size of a tensor is allocated.

    metadata: a mapping of str to str. safetensors: its __metadata__;
    .vmpk: the module's metadata; MLIR: the vmpack.metadata attribute;
    GGUF: string values, and a key "vmpack.gguf.KEY" with a value
    "TYPE:JSON" ("uint32:32", "array<string>:[\\"a\\"]"; docs/interop.md)
    stores KEY as that GGUF type; ONNX: metadata_props. .irpa keeps none
    and refuses any. A key the writers reserve (vmpack.type.*, which
    records sub-byte types) is refused, named; so is GGUF's
    general.alignment as anything but a uint32 (`alignment` sets it).

    alignment: .vmpk segment alignment (default 64), GGUF's
    general.alignment (default 32, at least 8), MLIR blob alignment
    (default 16); a power of two from 1 to 65536. safetensors and .irpa
    have fixed layouts and refuse it.

    Planar weights: a value may be a vmpack.PlanarWeight. Its parts are
    written as the tensors NAME.q, NAME.d (NAME.m, NAME.sd, NAME.sm) with
    the element types of PLANAR_TYPES, checked first as one set
    (quant::checkPlanarSet: every part present, of its type and shape, no
    other NAME.* tensor; then every value in range), and recorded by the
    metadata entry vmpack.planar.NAME = the type's name (docs/quant.md,
    section 9), or joined into one tensor NAME of ggml blocks. quant:
    None (the default) joins them for .gguf outputs and writes planar sets
    to every other format; "planar" writes planar sets in every format;
    "ggml" and a ggml type name ("q8_0", ...) do to all the tensors what
    vmpack-convert --quant=ggml|TYPE does to a file's (the same C++,
    tools::applyQuantTarget): every planar set, a PlanarWeight's or
    arrays named NAME.q, NAME.d, ... with or without a vmpack.planar.NAME
    entry, becomes ggml blocks, and with a type, every ggml tensor becomes
    that type exactly or is refused. The joined blocks are built while the
    file is written, a batch at a time.

    The file is written beside `path` under a temporary name and renamed
    into place when complete: a failed save leaves no file and an existing
    one as it was. A file this process has open (vmpack.open) is never
    overwritten; "-" is refused (standard output is the tools' -o -; name
    a file called "-" as "./-"). Runs without the GIL. Returns None."""
    if isinstance(tensors, _abc.Mapping):
        items = list(tensors.items())
    else:
        raise TypeError("vmpack.save_file: tensors is a mapping of names "
                        "to arrays, not %s" % type(tensors).__name__)
    entries, planar = [], []
    for name, value in items:
        if isinstance(value, PlanarWeight):
            parts, weight = _planar_entries(name, value)
            entries += parts
            planar.append(weight)
        else:
            entries.append(_save_entry(name, value))
    seen = set()
    for entry in entries:
        if entry[0] in seen:
            raise InvalidArgumentError(
                "vmpack.save_file: tensor %r is given twice (a planar "
                "weight's part has that name)" % entry[0])
        seen.add(entry[0])
    for name, _ in planar:
        if name in seen:
            raise InvalidArgumentError(
                "vmpack.save_file: tensor %r is given twice (a planar "
                "weight and an array)" % name)
    if quant is not None and not isinstance(quant, str):
        raise TypeError("vmpack.save_file: quant is a str (\"planar\", "
                        "\"ggml\", \"q4_0\", ...) or None")
    pairs = []
    if metadata is not None:
        if not isinstance(metadata, _abc.Mapping):
            raise TypeError("vmpack.save_file: metadata is a mapping of str "
                            "to str")
        for key, value in metadata.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError(
                    "vmpack.save_file: metadata key %r: keys and values are "
                    "str (GGUF values of other types: key \"vmpack.gguf."
                    "KEY\", value \"TYPE:JSON\")" % (key,))
            pairs.append((key, value))
    if alignment is not None and (isinstance(alignment, bool) or
                                  not isinstance(alignment, int)):
        raise TypeError("vmpack.save_file: alignment is an int")
    _vmpack.save_file(entries, _output_path("save_file", path), pairs, format,
                      alignment, planar, quant)
