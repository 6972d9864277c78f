//===- TypeTable.cpp - Element types across formats
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//------------------------===//
//
// Sources of the foreign names and numbers:
//  - safetensors dtypes: huggingface/safetensors, safetensors/src/tensor.rs,
//    `enum Dtype` and `Dtype::bitsize` (commit 24b0b28).
//  - ggml types and block geometry: ggml-org/ggml, include/ggml.h
//    `enum ggml_type`, src/ggml.c `type_traits` (blck_size, type_size) and
//    src/ggml-common.h (block structs and their static_asserted sizes),
//    commit d99724f.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Formats/TypeTable.h"

#include <algorithm>
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

const std::vector<GgmlTypeTraits> &vmpack::formats::ggmlTypes() {
  // Block sizes: QK_K = 256, QK4_0 = QK4_1 = QK5_0 = QK5_1 = QK8_0 = QK8_1 =
  // QK4_NL = QK_MXFP4 = 32, QK_NVFP4 = 64, QK1_0 = 128, QK2_0 = 64. Bytes per
  // block are the sizes ggml-common.h static_asserts for each block struct.
  static const std::vector<GgmlTypeTraits> table = {
      {0, "F32", 1, 4},         {1, "F16", 1, 2},
      {2, "Q4_0", 32, 18},      {3, "Q4_1", 32, 20},
      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},
      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},
      {10, "Q2_K", 256, 84},    {11, "Q3_K", 256, 110},
      {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
      {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},
      {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
      {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
      {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},
      {22, "IQ2_S", 256, 82},   {23, "IQ4_XS", 256, 136},
      {24, "I8", 1, 1},         {25, "I16", 1, 2},
      {26, "I32", 1, 4},        {27, "I64", 1, 8},
      {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},
      {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},
      {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
      {40, "NVFP4", 64, 36},    {41, "Q1_0", 128, 18},
      {42, "Q2_0", 64, 18},
  };
  return table;
}

const GgmlTypeTraits *vmpack::formats::ggmlTypeTraits(uint32_t type) {
  const std::vector<GgmlTypeTraits> &table = ggmlTypes();
  auto it = std::lower_bound(
      table.begin(), table.end(), type,
      [](const GgmlTypeTraits &t, uint32_t v) { return t.type < v; });
  if (it == table.end() || it->type != type)
    return nullptr;
  return &*it;
}

ElementType vmpack::formats::opaqueByteType() { return unsignedInt(8); }

uint32_t vmpack::formats::ggmlByteType() { return *toGgmlType(sint(8)); }
