//===- TypeTable.h - Element types across formats ------------------*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// The one table of docs/interop.md: which MLIR element type each
// safetensors dtype, each plain ggml type and each ONNX data type stands
// for, and the block
// geometry of every ggml type a GGUF file may hold. Readers, writers, the
// documentation's table and the tests all derive from interopTypes() and
// ggmlTypeTraits(); nothing else spells a dtype or a ggml type number.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_FORMATS_TYPETABLE_H
#define VMPACK_FORMATS_TYPETABLE_H

#include "vmpack/Pack/ElementType.h"
#include "vmpack/Pack/Encoding.h"
#include "vmpack/Quant/GgmlTypes.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vmpack::formats {

/// One row of the table. A row is `canonical` when reading the foreign type
/// gives this MLIR type; other rows are aliases used only when writing
/// (si8 is stored as I8, index as I64) and record the logical type in the
/// file's metadata (docs/interop.md) so that it reads back exactly.
struct InteropType {
  ElementType type;
  /// safetensors dtype string, or nullptr when safetensors has none.
  const char *safetensorsDtype;
  /// ggml_type value of a plain (one element per block) ggml type, or -1.
  int32_t ggmlType;
  bool canonical;
  /// ONNX TensorProto.DataType value, or -1 when ONNX has none.
  int32_t onnxType;
};

/// Every row, in the order docs/interop.md lists them.
const std::vector<InteropType> &interopTypes();

/// The stored layout of a type in safetensors and GGUF: whole little-endian
/// bytes per scalar (`byte`), except sub-byte types, which are a dense
/// little-endian bit stream (`packed`). i1 is `byte` (safetensors BOOL).
Encoding interopEncoding(const ElementType &type);

/// safetensors: dtype -> canonical MLIR type, and MLIR type -> dtype.
std::optional<ElementType> fromSafetensorsDtype(std::string_view dtype);
const char *toSafetensorsDtype(const ElementType &type);
/// Bits per element of a safetensors dtype (4, 6, 8, ..., 64).
uint32_t safetensorsDtypeBits(std::string_view dtype);

/// GGUF: plain ggml type -> canonical MLIR type, and back.
std::optional<ElementType> fromGgmlType(uint32_t ggmlType);
std::optional<uint32_t> toGgmlType(const ElementType &type);

/// ONNX: TensorProto.DataType -> canonical MLIR type, and back. STRING (8)
/// and UNDEFINED (0) have no row.
std::optional<ElementType> fromOnnxType(int32_t onnxType);
std::optional<int32_t> toOnnxType(const ElementType &type);

/// ggml's type traits (elements and bytes per block), defined once in the
/// quantization layer (vmpack/Quant/GgmlTypes.h).
using quant::ggmlTypes;
using quant::GgmlTypeTraits;
using quant::ggmlTypeTraits;

/// The element type written for bytes that no foreign dtype describes
/// (sub-byte integers, f8E4M3, ...): safetensors U8 / ggml I8, shape
/// [byte count], with the logical type in the metadata.
ElementType opaqueByteType();
/// The ggml type of that fallback in GGUF (I8, which ggml has; no U8).
uint32_t ggmlByteType();

} // namespace vmpack::formats

#endif // VMPACK_FORMATS_TYPETABLE_H
