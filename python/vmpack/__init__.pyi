# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Type stubs of the vmpack package (vmpack/__init__.py, docs/python.md).
python/tests/test_conventions.py checks that every public name and
attribute is declared here."""

import collections.abc
import os
from typing import (Any, Dict, Iterator, List, Optional, Tuple, Union,
                    overload)

import numpy as np
import numpy.typing as npt

from ._vmpack import (BufferTooSmallError as BufferTooSmallError,
                      ChecksumError as ChecksumError,
                      CompileError as CompileError, Error as Error,
                      FormatError as FormatError,
                      InternalError as InternalError,
                      InvalidArgumentError as InvalidArgumentError,
                      IOError as IOError, NotFoundError as NotFoundError,
                      OutOfMemoryError as OutOfMemoryError,
                      OutOfRangeError as OutOfRangeError,
                      UnsupportedError as UnsupportedError)

__version__: str
__all__: List[str]
# Type name -> {"type", "block_size", "block_bytes", "parts": ((suffix,
# MLIR element type, bits, values per block, numpy dtype), ...)}.
PLANAR_TYPES: Dict[str, Dict[str, Any]]

_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
_Name = Union[str, bytes]

class Segment:
    index: int
    name: str
    shape: Tuple[int, ...]
    size: int
    mlir_type: Optional[str]
    element_type: Optional[str]
    encoding: str
    nbytes: int
    offset: int
    alignment: Optional[int]
    checksum: Optional[int]
    is_alias: bool
    alias_of: Optional[str]
    source_kind: Optional[str]
    source_key: Optional[str]
    scalar_kind: Optional[int]
    scalar_bits: Optional[int]
    is_complex: bool
    kind: str
    splat_pattern: Optional[bytes]
    metadata: Optional[bytes]
    foreign_type: Optional[str]
    foreign_type_id: Optional[int]
    foreign_shape: Optional[Tuple[int, ...]]
    def verify(self) -> None: ...
    @property
    def quant_info(self) -> Optional[Dict[str, Any]]: ...
    def dequantize(self, dtype: npt.DTypeLike = ..., first: int = ...,
                   count: Optional[int] = ...,
                   out: Optional[npt.NDArray[Any]] = ...,
                   threads: int = ...) -> npt.NDArray[Any]: ...
    def planar(self) -> "PlanarWeight": ...
    @property
    def raw(self) -> memoryview: ...
    @property
    def natural_dtype(self) -> Optional[np.dtype[Any]]: ...
    def numpy(self, dtype: npt.DTypeLike = ...) -> npt.NDArray[Any]: ...
    def unpack(self, first: int = ..., count: Optional[int] = ...,
               dtype: npt.DTypeLike = ...,
               out: Optional[npt.NDArray[Any]] = ...) -> npt.NDArray[Any]: ...
    def __array__(self, dtype: npt.DTypeLike = ...,
                  copy: Optional[bool] = ...) -> npt.NDArray[Any]: ...

class Module(collections.abc.Mapping[str, Segment]):
    path: Optional[str]
    @property
    def name(self) -> Optional[str]: ...
    @property
    def producer(self) -> Optional[str]: ...
    @property
    def format_version(self) -> Optional[int]: ...
    @property
    def container(self) -> str: ...
    @property
    def load_mode(self) -> str: ...
    @property
    def metadata(self) -> Dict[str, str]: ...
    @property
    def metadata_types(self) -> Dict[str, str]: ...
    @property
    def program(self) -> memoryview: ...
    def __getitem__(self, name: _Name) -> Segment: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def __contains__(self, name: object) -> bool: ...
    def keys(self) -> collections.abc.KeysView[str]: ...
    def values(self) -> collections.abc.ValuesView[Segment]: ...
    def items(self) -> collections.abc.ItemsView[str, Segment]: ...
    def get_tensor(self, name: _Name, dtype: npt.DTypeLike = ...,
                   dequantize: bool = ...) -> npt.NDArray[Any]: ...
    def verify(self, threads: int = ...) -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> "Module": ...
    def __exit__(self, *exc: object) -> bool: ...

def open(path: _Path, mode: str = ..., verify: str = ..., threads: int = ...,
         buffer: Any = ...) -> Module: ...
def load(data: Any) -> Module: ...
def convert(inputs: Union[_Path, List[_Path]], output: _Path, *,
            from_format: Optional[str] = ..., format: Optional[str] = ...,
            alignment: Optional[int] = ...,
            max_shard_size: Union[int, str, None] = ...,
            module_name: Optional[str] = ..., encoding: Optional[str] = ...,
            dense: bool = ..., dequant_split: bool = ...,
            dequantize: Optional[str] = ..., scheme: Optional[str] = ...,
            quant: Optional[str] = ..., tokenizer_pre: Optional[str] = ...,
            no_vocab: bool = ..., onnx_template: Optional[_Path] = ...,
            onnx_inline: bool = ...,
            threads: Optional[int] = ...) -> Dict[str, Any]: ...

_Saved = Union[npt.ArrayLike, Tuple[npt.ArrayLike, str], "Tensor",
               "PlanarWeight"]

class Tensor:
    """An array and the MLIR element type to save it as (save_file)."""
    array: Any
    type: Optional[str]
    def __init__(self, array: Any, type: Optional[str] = ...) -> None: ...

class PlanarWeight:
    """A ggml-quantized weight as numpy arrays of its planar parts."""
    ggml_type: str
    q: Any
    d: Any
    m: Any
    sd: Any
    sm: Any
    def __init__(self, ggml_type: str, q: npt.ArrayLike, d: npt.ArrayLike,
                 m: Optional[npt.ArrayLike] = ...,
                 sd: Optional[npt.ArrayLike] = ...,
                 sm: Optional[npt.ArrayLike] = ...) -> None: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def parts(self) -> Dict[str, Any]: ...
    @property
    def part_types(self) -> Dict[str, str]: ...

def save_file(tensors: collections.abc.Mapping[str, _Saved], path: _Path,
              metadata: Optional[collections.abc.Mapping[str, str]] = ...,
              format: Optional[str] = ...,
              alignment: Optional[int] = ...,
              quant: Optional[str] = ...) -> None: ...

def compile(input: _Path, output: _Path, encoding: Optional[str] = ...,
            alignment: Optional[int] = ..., threads: int = ...,
            module_name: Optional[str] = ..., dedup: Optional[str] = ...,
            zero_fill_elided: bool = ..., strip_debuginfo: bool = ...,
            allow_unregistered_dialect: bool = ...,
            fsync: bool = ..., format: Optional[str] = ...,
            emit_program: Optional[_Path] = ...,
            parameter_scope: Optional[str] = ...,
            parameter_minimum_size: int = ...) -> None: ...
