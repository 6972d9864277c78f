//===- TypeTable.cpp - Element types across formats
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//------------------------===//
//
// Sources of the foreign names and numbers:
//  - safetensors dtypes: huggingface/safetensors, safetensors/src/tensor.rs,
//    `enum Dtype` and `Dtype::bitsize` (commit 24b0b28).
//  - ggml type numbers of the plain types: ggml-org/ggml, include/ggml.h
//    `enum ggml_type`, commit d99724f. The block types' geometry is the
//    quantization layer's (lib/Quant/GgmlTypes.cpp).
//  - ONNX data types: onnx/onnx, onnx/onnx.proto, `TensorProto.DataType`
//    (IR version 12: UINT2 25 and INT2 26 are the newest).
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/TypeTable.h"

#include <cstring>

using namespace vmpack;
using namespace vmpack::formats;

namespace {
ElementType scalar(ScalarKind kind, uint32_t width = 0) {
  ElementType t;
  t.scalar = width ? ScalarType{kind, width} : ScalarType::floatKind(kind);
  return t;
}
ElementType sint(uint32_t w) { return scalar(ScalarKind::SignlessInt, w); }
ElementType sgn(uint32_t w) { return scalar(ScalarKind::SignedInt, w); }
ElementType unsignedInt(uint32_t w) {
  return scalar(ScalarKind::UnsignedInt, w);
}
ElementType flt(ScalarKind k) { return scalar(k); }
ElementType complexOf(ScalarKind k) {
  ElementType t = scalar(k);
  t.isComplex = true;
  return t;
}
} // namespace

const std::vector<InteropType> &vmpack::formats::interopTypes() {
  static const std::vector<InteropType> table = {
      {sint(1), "BOOL", -1, true, 9},
      {unsignedInt(8), "U8", -1, true, 2},
      {sint(8), "I8", 24, true, 3},
      {sgn(8), "I8", 24, false, 3},
      {unsignedInt(16), "U16", -1, true, 4},
      {sint(16), "I16", 25, true, 5},
      {sgn(16), "I16", 25, false, 5},
      {unsignedInt(32), "U32", -1, true, 12},
      {sint(32), "I32", 26, true, 6},
      {sgn(32), "I32", 26, false, 6},
      {unsignedInt(64), "U64", -1, true, 13},
      {sint(64), "I64", 27, true, 7},
      {sgn(64), "I64", 27, false, 7},
      {scalar(ScalarKind::Index), "I64", 27, false, 7},
      {flt(ScalarKind::F16), "F16", 1, true, 10},
      {flt(ScalarKind::BF16), "BF16", 30, true, 16},
      {flt(ScalarKind::F32), "F32", 0, true, 1},
      {flt(ScalarKind::F64), "F64", 28, true, 11},
      {complexOf(ScalarKind::F32), "C64", -1, true, 14},
      {flt(ScalarKind::F8E5M2), "F8_E5M2", -1, true, 19},
      {flt(ScalarKind::F8E4M3FN), "F8_E4M3", -1, true, 17},
      {flt(ScalarKind::F8E8M0FNU), "F8_E8M0", -1, true, 24},
      {flt(ScalarKind::F8E4M3FNUZ), "F8_E4M3FNUZ", -1, true, 18},
      {flt(ScalarKind::F8E5M2FNUZ), "F8_E5M2FNUZ", -1, true, 20},
      {flt(ScalarKind::F6E2M3FN), "F6_E2M3", -1, true, -1},
      {flt(ScalarKind::F6E3M2FN), "F6_E3M2", -1, true, -1},
      {flt(ScalarKind::F4E2M1FN), "F4", -1, true, 23},
      // Types ONNX has and safetensors and GGUF do not.
      {complexOf(ScalarKind::F64), nullptr, -1, true, 15},
      {unsignedInt(4), nullptr, -1, true, 21},
      {sint(4), nullptr, -1, true, 22},
      {sgn(4), nullptr, -1, false, 22},
      {unsignedInt(2), nullptr, -1, true, 25},
      {sint(2), nullptr, -1, true, 26},
      {sgn(2), nullptr, -1, false, 26},
  };
  return table;
}

Encoding vmpack::formats::interopEncoding(const ElementType &type) {
  uint32_t w = type.scalarBits();
  if (w % 8 == 0 || (w == 1 && !type.isComplex))
    return Encoding::Byte;
  return Encoding::Packed;
}

std::optional<ElementType>
vmpack::formats::fromSafetensorsDtype(std::string_view dtype) {
  for (const InteropType &row : interopTypes())
    if (row.canonical && row.safetensorsDtype && dtype == row.safetensorsDtype)
      return row.type;
  return std::nullopt;
}

const char *vmpack::formats::toSafetensorsDtype(const ElementType &type) {
  for (const InteropType &row : interopTypes())
    if (row.type == type)
      return row.safetensorsDtype;
  return nullptr;
}

uint32_t vmpack::formats::safetensorsDtypeBits(std::string_view dtype) {
  std::optional<ElementType> t = fromSafetensorsDtype(dtype);
  if (!t)
    return 0;
  // BOOL is one byte per element.
  if (t->scalarBits() == 1)
    return 8;
  return t->scalarBits() * t->scalarsPerElement();
}

std::optional<ElementType> vmpack::formats::fromGgmlType(uint32_t ggmlType) {
  for (const InteropType &row : interopTypes())
    if (row.canonical && row.ggmlType >= 0 &&
        uint32_t(row.ggmlType) == ggmlType)
      return row.type;
  return std::nullopt;
}

std::optional<uint32_t> vmpack::formats::toGgmlType(const ElementType &type) {
  for (const InteropType &row : interopTypes())
    if (row.type == type && row.ggmlType >= 0)
      return uint32_t(row.ggmlType);
  return std::nullopt;
}

std::optional<ElementType> vmpack::formats::fromOnnxType(int32_t onnxType) {
  for (const InteropType &row : interopTypes())
    if (row.canonical && row.onnxType >= 0 && row.onnxType == onnxType)
      return row.type;
  return std::nullopt;
}

std::optional<int32_t> vmpack::formats::toOnnxType(const ElementType &type) {
  for (const InteropType &row : interopTypes())
    if (row.type == type && row.onnxType >= 0)
      return row.onnxType;
  return std::nullopt;
}

ElementType vmpack::formats::opaqueByteType() { return unsignedInt(8); }

uint32_t vmpack::formats::ggmlByteType() { return *toGgmlType(sint(8)); }
