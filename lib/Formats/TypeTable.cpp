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
      {sint(1), "BOOL", -1, true},
      {unsignedInt(8), "U8", -1, true},
      {sint(8), "I8", 24, true},
      {sgn(8), "I8", 24, false},
      {unsignedInt(16), "U16", -1, true},
      {sint(16), "I16", 25, true},
      {sgn(16), "I16", 25, false},
      {unsignedInt(32), "U32", -1, true},
      {sint(32), "I32", 26, true},
      {sgn(32), "I32", 26, false},
      {unsignedInt(64), "U64", -1, true},
      {sint(64), "I64", 27, true},
      {sgn(64), "I64", 27, false},
      {scalar(ScalarKind::Index), "I64", 27, false},
      {flt(ScalarKind::F16), "F16", 1, true},
      {flt(ScalarKind::BF16), "BF16", 30, true},
      {flt(ScalarKind::F32), "F32", 0, true},
      {flt(ScalarKind::F64), "F64", 28, true},
      {complexOf(ScalarKind::F32), "C64", -1, true},
      {flt(ScalarKind::F8E5M2), "F8_E5M2", -1, true},
      {flt(ScalarKind::F8E4M3FN), "F8_E4M3", -1, true},
      {flt(ScalarKind::F8E8M0FNU), "F8_E8M0", -1, true},
      {flt(ScalarKind::F8E4M3FNUZ), "F8_E4M3FNUZ", -1, true},
      {flt(ScalarKind::F8E5M2FNUZ), "F8_E5M2FNUZ", -1, true},
      {flt(ScalarKind::F6E2M3FN), "F6_E2M3", -1, true},
      {flt(ScalarKind::F6E3M2FN), "F6_E3M2", -1, true},
      {flt(ScalarKind::F4E2M1FN), "F4", -1, true},
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

ElementType vmpack::formats::opaqueByteType() { return unsignedInt(8); }

uint32_t vmpack::formats::ggmlByteType() { return *toGgmlType(sint(8)); }
